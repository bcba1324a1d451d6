// SPDX-License-Identifier: MIT
#include "cli.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "cli_main.hpp"

#include "opskit/repo/repository.hpp"
#include "opskit/text.hpp"
#include "opskit/version.hpp"

namespace opskit::cmd::pkgcloud {

namespace {

// A --dist that is no DISTRO/RELEASE is a mistake of the command line, not a selection of
// nothing.
CLI::Validator dist_name() {
  return CLI::Validator(
      [](std::string& dist) {
        auto parts = repo::split_dist(dist);
        return parts ? std::string() : parts.error().message();
      },
      "");
}

// What apt's URIs and dnf's baseurl take: an http, https or file URL, without spaces.
CLI::Validator client_url() {
  return CLI::Validator(
      [](std::string& url) {
        bool scheme =
            url.starts_with("http://") || url.starts_with("https://") || url.starts_with("file:/");
        bool blank = std::any_of(url.begin(), url.end(),
                                 [](unsigned char c) { return c <= ' ' || c == 0x7f; });
        return scheme && !blank ? std::string()
                                : fmt::format("'{}' is not an http://, https:// or file: URL "
                                              "without spaces",
                                              url);
      },
      "");
}

void define_publish(CLI::App& app, Options& o) {
  auto* pub = app.add_subcommand(
      "publish", "Send public/ to S3 or a WebDAV server: what changed, top-level files last");
  pub->callback([&o] {
    o.command = Command::publish;
    if (o.target_name.empty() && o.target.url.empty())
      throw CLI::ValidationError(
          "publish: no target: give --to URL, or the name of one saved with --save");
  });
  auto* name =
      pub->add_option("target", o.target_name, "A target saved with --save, or a URL as for --to");
  pub->add_option("--to", o.target.url,
                  "s3://BUCKET/PREFIX, or the http:// or https:// URL of a WebDAV collection")
      ->excludes(name);
  pub->add_option("--save", o.save, "Remember the target (no secret) under this name");
  pub->add_option("--endpoint", o.target.endpoint,
                  "S3: the service's URL, for a store other than AWS (MinIO, Ceph RGW, ...)");
  pub->add_option("--region", o.target.region,
                  "S3: the region to sign for (default: $AWS_REGION, the profile's, us-east-1)");
  pub->add_option("--profile", o.target.profile,
                  "S3: the profile of ~/.aws/credentials (default: the environment's "
                  "AWS_ACCESS_KEY_ID, else $AWS_PROFILE, else default)");
  pub->add_flag("--path-style", o.target.path_style,
                "S3: put the bucket in the URL's path, not in its host name");
  pub->add_option("--multipart-threshold", o.target.multipart_threshold,
                  "S3: send a file larger than this as a multipart upload, in parts of 16 MiB+ "
                  "(from 5MiB to 5GiB; KB and MB are 1000, KiB and MiB 1024 bytes)")
      ->transform(CLI::AsSizeValue(true).description(""))
      ->check(CLI::Validator(
          [](std::string& bytes) {
            return repo::multipart_threshold_problem(std::strtoull(bytes.c_str(), nullptr, 10))
                .value_or("");
          },
          ""))
      ->type_name("SIZE")
      ->default_str("64MiB");
  pub->add_option("--user", o.target.user, "WebDAV: the user for basic authentication");
  pub->add_option("--password-file", o.target.password_file,
                  "WebDAV: read the password from this file's first line (default: ~/.netrc)");
  pub->add_option("--ca-file", o.target.ca_file,
                  "Trust these certificate authorities (default: $AWS_CA_BUNDLE for S3, else "
                  "the system's)");
  pub->add_option("--jobs,-j", o.jobs, "Requests at once (default: 8)")
      ->check(whole_number("a number of requests", 1, 64));
  pub->add_option("--wait", o.wait,
                  "Wait this many seconds for another publish to the target to finish "
                  "(default: fail at once)")
      ->check(whole_number("a number of seconds", 0, 86400 * 365));
  pub->add_flag("--delete", o.delete_stale,
                "Delete from the target the files the publication no longer has, a publish after "
                "the one that left them out (clients may still read them meanwhile)");
  auto* dry_run =
      pub->add_flag("--dry-run,-n", o.dry_run, "List what would be sent and deleted; send nothing");
  pub->add_flag("--verify-remote", o.verify_remote,
                "List the target and check it against its manifest; send nothing")
      ->excludes(dry_run);
  pub->add_flag("--json", o.json, "Print what was done as a JSON object");
}

} // namespace

void define_cli(CLI::App& app, Options& o) {
  app.description("Keep signed apt and dnf package repositories: push .deb and .rpm files, "
                  "build and sign the indexes, publish them.");
  app.set_version_flag("--version", std::string("pkgcloud ") + k_version);
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();
  app.add_option("--repo", o.repo,
                 "The repository directory (default: $PKGCLOUD_REPO, else .); clients read its "
                 "public/")
      ->envname("PKGCLOUD_REPO");
  app.add_option(
      "--passphrase-file", o.passphrase_file,
      "Read the signing key's passphrase from this file (else $PKGCLOUD_GPG_PASSPHRASE)");

  auto* init = app.add_subcommand("init", "Create a repository here (or in --repo)");
  init->callback([&o] { o.command = Command::init; });
  auto* gen = init->add_option("--generate-key", o.generate_key,
                               "Make an ed25519 signing key for this user id in .pkgcloud/gnupg")
                  ->check(CLI::Validator(
                      [](std::string& id) {
                        return trim(id).empty() ? std::string("a user id, such as 'Example Repo "
                                                              "<repo@example.com>', is needed")
                                                : std::string();
                      },
                      ""));
  init->add_option("--key", o.key, "Sign with this secret key of $GNUPGHOME (a fingerprint)")
      ->excludes(gen);
  init->add_option("--origin", o.origin, "The Origin field of Release files (default: pkgcloud)");
  init->add_option("--label", o.label, "The Label field of Release files (default: pkgcloud)");
  init->add_option("--arch", o.architectures,
                   "The machines clients run on, as Debian or rpm names them (default: amd64; "
                   "e.g. amd64,arm64): an apt suite and dnf repository for each")
      ->delimiter(',')
      ->transform(CLI::Validator(
          [](std::string& arch) { // "amd64, arm64"
            arch = std::string(trim(arch));
            return std::string();
          },
          ""));
  init->add_option("--valid-for", o.valid_for,
                   "Release files expire this many days after they are written (default: never)")
      ->check(whole_number("a number of days", 0, 36500));

  auto* push =
      app.add_subcommand("push", "Add .deb and .rpm packages and re-index what they touch");
  push->callback([&o] { o.command = Command::push; });
  push->add_option("--dist", o.dist, "DISTRO/RELEASE to add to, e.g. debian/bookworm or el/9")
      ->check(dist_name());
  push->add_option("--component", o.component, "The apt component (default: main)");
  push->add_flag("--replace", o.replace, "Replace a package of the same name, version and arch");
  auto* then =
      push->add_option("--publish", o.publish_to,
                       "Then publish to this saved target (or URL), as pkgcloud publish does");
  push->add_flag("--json", o.json, "Print the packages and what was done with each as a JSON array")
      ->excludes(then); // one document on stdout: publish --json prints its own
  push->add_option("files", o.files, "Package files (.deb or .rpm, told by content)")->required();

  auto* index = app.add_subcommand("index", "Rewrite all metadata from the repository's state");
  index->callback([&o] { o.command = Command::index; });
  index->add_flag("--sign", o.sign, "Fail unless the metadata can be signed");
  index->add_flag("--rebuild", o.rebuild, "Rescan the pool first (recovers a lost database)");
  index->add_flag("--json", o.json, "Print what was written as a JSON object");

  auto* ls = app.add_subcommand("ls", "List the packages");
  ls->callback([&o] { o.command = Command::ls; });
  ls->add_option("--dist", o.dist, "Only this DISTRO/RELEASE")->check(dist_name());
  ls->add_flag("--json", o.json, "Print a JSON array");

  auto* rm = app.add_subcommand("rm", "Remove packages and re-index what they were in");
  rm->callback([&o] { o.command = Command::rm; });
  rm->add_option("package", o.spec, "NAME or NAME=VERSION")
      ->required()
      ->check(CLI::Validator(
          [](std::string& spec) {
            return spec.empty() || spec[0] == '=' || spec.back() == '='
                       ? fmt::format("'{}': expected NAME or NAME=VERSION", spec)
                       : std::string();
          },
          ""));
  rm->add_option("--dist", o.dist, "Only from this DISTRO/RELEASE")->check(dist_name());
  rm->add_option("--arch", o.arch, "Only this architecture");
  rm->add_flag("--json", o.json, "Print the packages removed as a JSON array");

  auto* prune = app.add_subcommand("prune", "Remove all but the newest versions of each package");
  prune->callback([&o] { o.command = Command::prune; });
  prune->add_option("--keep", o.keep, "How many versions to keep per name, dist and arch")
      ->required()
      ->check(whole_number("a number of versions", 1))
      ->default_str(""); // no default: it must be given
  prune->add_option("--dist", o.dist, "Only in this DISTRO/RELEASE")->check(dist_name());
  prune->add_flag("--json", o.json, "Print the packages removed as a JSON array");

  auto* verify =
      app.add_subcommand("verify", "Check indexes, signatures and pool files as clients would");
  verify->callback([&o] { o.command = Command::verify; });
  verify->add_flag("--json", o.json, "Print the problems found as a JSON array");

  auto* exp = app.add_subcommand("export-key", "Print the public signing key");
  exp->callback([&o] { o.command = Command::export_key; });
  exp->add_flag("--armor", o.armor, "ASCII-armored instead of a binary keyring");

  auto* sources = app.add_subcommand("sources", "Print apt and dnf client configuration");
  sources->callback([&o] { o.command = Command::sources; });
  sources->add_option("--url", o.url, "The URL the repository's public/ is served at")
      ->required()
      ->check(client_url());

  define_publish(app, o);
}

int parse_and_run(int argc, char** argv) {
  CLI::App app{"", "pkgcloud"};
  Options options;
  define_cli(app, options);
  return run_main("pkgcloud", app, argc, argv, [&] { return run(options); });
}

} // namespace opskit::cmd::pkgcloud
