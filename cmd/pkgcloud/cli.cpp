// SPDX-License-Identifier: MIT
#include "cli.hpp"

#include "opskit/version.hpp"

namespace opskit::cmd::pkgcloud {

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
                               "Make an ed25519 signing key for this user id in .pkgcloud/gnupg");
  init->add_option("--key", o.key, "Sign with this secret key of $GNUPGHOME (a fingerprint)")
      ->excludes(gen);
  init->add_option("--origin", o.origin, "The Origin field of Release files (default: pkgcloud)");
  init->add_option("--label", o.label, "The Label field of Release files (default: pkgcloud)");
  init->add_option("--valid-for", o.valid_for,
                   "Release files expire this many days after they are written (default: never)");

  auto* push =
      app.add_subcommand("push", "Add .deb and .rpm packages and re-index what they touch");
  push->callback([&o] { o.command = Command::push; });
  push->add_option("--dist", o.dist, "DISTRO/RELEASE to add to, e.g. debian/bookworm or el/9");
  push->add_option("--component", o.component, "The apt component (default: main)");
  push->add_flag("--replace", o.replace, "Replace a package of the same name, version and arch");
  push->add_option("files", o.files, "Package files (.deb or .rpm, told by content)")->required();

  auto* index = app.add_subcommand("index", "Rewrite all metadata from the repository's state");
  index->callback([&o] { o.command = Command::index; });
  index->add_flag("--sign", o.sign, "Fail unless the metadata can be signed");
  index->add_flag("--rebuild", o.rebuild, "Rescan the pool first (recovers a lost database)");
  index->add_flag("--json", o.json, "Print what was written as a JSON object");

  auto* ls = app.add_subcommand("ls", "List the packages");
  ls->callback([&o] { o.command = Command::ls; });
  ls->add_option("--dist", o.dist, "Only this DISTRO/RELEASE");
  ls->add_flag("--json", o.json, "Print a JSON array");

  auto* rm = app.add_subcommand("rm", "Remove packages and re-index what they were in");
  rm->callback([&o] { o.command = Command::rm; });
  rm->add_option("package", o.spec, "NAME or NAME=VERSION")->required();
  rm->add_option("--dist", o.dist, "Only from this DISTRO/RELEASE");
  rm->add_option("--arch", o.arch, "Only this architecture");

  auto* prune = app.add_subcommand("prune", "Remove all but the newest versions of each package");
  prune->callback([&o] { o.command = Command::prune; });
  prune->add_option("--keep", o.keep, "How many versions to keep per name, dist and arch")
      ->required()
      ->check(CLI::PositiveNumber);
  prune->add_option("--dist", o.dist, "Only in this DISTRO/RELEASE");

  auto* verify =
      app.add_subcommand("verify", "Check indexes, signatures and pool files as clients would");
  verify->callback([&o] { o.command = Command::verify; });
  verify->add_flag("--json", o.json, "Print the problems found as a JSON array");

  auto* exp = app.add_subcommand("export-key", "Print the public signing key");
  exp->callback([&o] { o.command = Command::export_key; });
  exp->add_flag("--armor", o.armor, "ASCII-armored instead of a binary keyring");

  auto* sources = app.add_subcommand("sources", "Print apt and dnf client configuration");
  sources->callback([&o] { o.command = Command::sources; });
  sources->add_option("--url", o.url, "The URL the repository's public/ is served at")->required();
}

} // namespace opskit::cmd::pkgcloud
