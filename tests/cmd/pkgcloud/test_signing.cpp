// SPDX-License-Identifier: MIT
// pkgcloud's signing keys over their lives: subkeys added, keys that cannot sign, passphrases.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "../../repo/deb_builder.hpp"
#include "fixture.hpp"
#include "opskit/file.hpp"
#include "pattern.hpp"

using namespace opskit::test;
namespace fs = std::filesystem;

namespace {

// A GNUPGHOME of its own in `dir`.
std::string gnupg_home(const TempDir& dir) {
  std::string home = dir / "gnupg";
  fs::create_directories(home);
  fs::permissions(home, fs::perms::owner_all);
  return home;
}

// The fingerprint of the one secret key of `user_id` in `home`.
std::string fingerprint(const std::string& home, const std::string& user_id) {
  auto listing =
      run({"gpg", "--homedir", home, "--with-colons", "--list-secret-keys", "=" + user_id});
  auto match = re::search(listing.out, "\nfpr:+([0-9A-F]{40}):"); // follows the "sec:" line
  REQUIRE(match);
  return (*match)[1];
}

// pkgcloud with GNUPGHOME=`home`.
Outcome pkgcloud_in(const std::string& home, const std::string& repo,
                    std::vector<std::string> args) {
  std::vector<std::string> argv{"env", "GNUPGHOME=" + home, tool("pkgcloud"), "--repo", repo};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv);
}

} // namespace

TEST_CASE("pkgcloud: a signing subkey added to the key is published before it signs, and verify "
          "tells a signature clients cannot check",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "repo", home = repo + "/.pkgcloud/gnupg";
  REQUIRE(pkgcloud(repo, {"init", "--generate-key", "Sub <sub@example.com>"}).exit_status == 0);
  std::string old_key = *opskit::read_file(repo + "/public/gpg.gpg");
  auto added = run({"gpg", "--homedir", home, "--batch", "--pinentry-mode", "loopback",
                    "--passphrase", "", "--quick-add-key",
                    fingerprint(home, "Sub <sub@example.com>"), "ed25519", "sign", "never"});
  REQUIRE(added.exit_status == 0);
  auto deb = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  REQUIRE(pkgcloud(repo, {"push", deb}).exit_status == 0);

  // What an apt client that fetched gpg.gpg checks InRelease with.
  std::string in_release = repo + "/public/deb/debian/dists/bookworm/InRelease";
  auto checked = run({"gpgv", "--keyring", repo + "/public/gpg.gpg", in_release});
  INFO(checked.err);
  CHECK(checked.exit_status == 0);
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);

  std::ofstream(repo + "/public/gpg.gpg", std::ios::trunc) << old_key; // as published before
  auto verify = pkgcloud(repo, {"verify"});
  CHECK(verify.exit_status == 1);
  CHECK(verify.out.find("deb/debian/dists/bookworm/InRelease: signed by ") != std::string::npos);
  CHECK(verify.out.find("which the published gpg.gpg lacks") != std::string::npos);

  // dnf's gpgkey= is the armored one: missing, verify says so, and the next push writes it.
  REQUIRE(pkgcloud(repo, {"index"}).exit_status == 0);
  fs::remove(repo + "/public/gpg.key");
  auto without = pkgcloud(repo, {"verify"});
  CHECK(without.exit_status == 1);
  CHECK(without.out.find("gpg.key") != std::string::npos);
  auto other = dpkg_deb_build(dir.path(), "world", control("world", "1.0", "amd64"));
  REQUIRE(pkgcloud(repo, {"push", other}).exit_status == 0);
  CHECK(fs::exists(repo + "/public/gpg.key"));
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}

TEST_CASE("pkgcloud: init refuses an expired key by name and leaves nothing to stop a new init",
          "[pkgcloud]") {
  TempDir dir;
  std::string home = gnupg_home(dir);
  // Made in 2020 to expire a year later.
  REQUIRE(run({"gpg", "--homedir", home, "--batch", "--faked-system-time", "20200101T000000",
               "--pinentry-mode", "loopback", "--passphrase", "", "--quick-gen-key",
               "Old <old@example.com>", "ed25519", "sign", "1y"})
              .exit_status == 0);
  std::string old = fingerprint(home, "Old <old@example.com>");
  std::string repo = dir / "repo";
  auto refused = pkgcloud_in(home, repo, {"init", "--key", old});
  CHECK(refused.exit_status == 1);
  CHECK(refused.err == "pkgcloud: error: secret key " + old + ": expired\n");
  CHECK_FALSE(fs::exists(repo + "/.pkgcloud/state.db"));
}

TEST_CASE("pkgcloud: an init that cannot sign for want of a passphrase can be run again with it",
          "[pkgcloud]") {
  TempDir dir;
  std::string home = gnupg_home(dir);
  REQUIRE(run({"gpg", "--homedir", home, "--batch", "--pinentry-mode", "loopback", "--passphrase",
               "correct horse", "--quick-gen-key", "Pass <pass@example.com>", "ed25519", "sign",
               "never"})
              .exit_status == 0);
  run({"gpgconf", "--homedir", home, "--kill", "gpg-agent"}); // forgets the passphrase
  std::string key = fingerprint(home, "Pass <pass@example.com>");
  std::string repo = dir / "repo";
  auto without = pkgcloud_in(home, repo, {"init", "--key", key});
  CHECK(without.exit_status == 1);
  CHECK(without.err.find("the key needs its passphrase (--passphrase-file FILE or "
                         "PKGCLOUD_GPG_PASSPHRASE)") != std::string::npos);
  CHECK_FALSE(fs::exists(repo + "/.pkgcloud/state.db"));

  std::ofstream(dir / "pass") << "correct horse\r\n"; // written on Windows
  auto with = pkgcloud_in(home, repo, {"--passphrase-file", dir / "pass", "init", "--key", key});
  INFO(with.err);
  CHECK(with.exit_status == 0);
  CHECK(pkgcloud_in(home, repo, {"verify"}).exit_status == 0);
  run({"gpgconf", "--homedir", home, "--kill", "gpg-agent"});
}

TEST_CASE("pkgcloud: init --generate-key after a lost database takes no new key when the one "
          "there is ambiguous",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "repo", home = repo + "/.pkgcloud/gnupg";
  std::vector<std::string> init{"init", "--generate-key", "Twice <twice@example.com>"};
  REQUIRE(pkgcloud(repo, init).exit_status == 0);
  REQUIRE(run({"gpg", "--homedir", home, "--batch", "--yes", "--pinentry-mode", "loopback",
               "--passphrase", "", "--quick-gen-key", "Twice <twice@example.com>", "ed25519",
               "sign", "never"})
              .exit_status == 0);
  std::string key = *opskit::read_file(repo + "/public/gpg.gpg");
  fs::remove(repo + "/.pkgcloud/state.db");
  auto again = pkgcloud(repo, init);
  CHECK(again.exit_status == 1);
  CHECK(again.err.find("secret key =Twice <twice@example.com>: Ambiguous name") !=
        std::string::npos);
  CHECK(*opskit::read_file(repo + "/public/gpg.gpg") == key);
  std::string keys =
      "\n" + run({"gpg", "--homedir", home, "--with-colons", "--list-secret-keys"}).out;
  std::size_t count = 0;
  for (std::size_t at = 0; (at = keys.find("\nsec:", at)) != std::string::npos; ++at)
    ++count;
  CHECK(count == 2); // no third key
}

TEST_CASE("pkgcloud: the passphrase from the environment is not left with the gpg-agent",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "repo", home = repo + "/.pkgcloud/gnupg";
  auto init = run({"env", "PKGCLOUD_GPG_PASSPHRASE=s3cret-word", tool("pkgcloud"), "--repo", repo,
                   "init", "--generate-key", "Env <env@example.com>"});
  INFO(init.err);
  REQUIRE(init.exit_status == 0);
  auto agents = run({"pgrep", "-f", "gpg-agent --homedir " + home});
  REQUIRE_FALSE(agents.out.empty());
  for (std::size_t at = 0, end; (end = agents.out.find('\n', at)) != std::string::npos;
       at = end + 1) {
    auto environment = opskit::read_file("/proc/" + agents.out.substr(at, end - at) + "/environ");
    REQUIRE(environment);
    CHECK(environment->find("s3cret-word") == std::string::npos);
  }
  run({"gpgconf", "--homedir", home, "--kill", "gpg-agent"});
}
