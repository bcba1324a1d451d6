// SPDX-License-Identifier: MIT
// The man pages against the real command lines: every subcommand and option that a tool's CLI
// defines must be named in its page, and every page must pass mandoc's linter.
#include <catch2/catch.hpp>

#include <CLI/CLI.hpp>

#include "../../cmd/kstat/cli.hpp"
#include "../../cmd/pkgcloud/cli.hpp"
#include "../../cmd/syscount/cli.hpp"
#include "pattern.hpp"
#include "process.hpp"

namespace {

// The page as a reader sees it: rendered by mandoc, with overstrike bold and underline removed.
std::string man_page(const std::string& tool) {
  auto rendered = opskit::test::run(
      {"mandoc", "-T", "ascii", std::string(OPSKIT_SOURCE_DIR) + "/man/" + tool + ".1"});
  REQUIRE(rendered.exit_status == 0);
  return opskit::test::re::replace(rendered.out, ".\b", "");
}

bool mentions(const std::string& page, const std::string& word) {
  using namespace opskit::test;
  return re::search(page, "(^|[^A-Za-z0-9_-])" + re::escape(word) + "($|[^A-Za-z0-9_-])")
      .has_value();
}

// Every "NAME" of subcommands and "--long"/"-s" of options under `app`, with where it sits.
void collect(const CLI::App& app, const std::string& path,
             std::vector<std::pair<std::string, std::string>>& out) {
  for (const CLI::Option* option : app.get_options()) {
    for (const auto& name : option->get_lnames())
      out.emplace_back("--" + name, path);
    for (const auto& name : option->get_snames())
      out.emplace_back("-" + name, path);
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    out.emplace_back(sub->get_name(), path);
    collect(*sub, path + " " + sub->get_name(), out);
  }
}

template <class Options, class Define>
void check_page(const std::string& tool, Define define) {
  CLI::App app{"", tool};
  Options options;
  define(app, options);
  std::vector<std::pair<std::string, std::string>> words;
  collect(app, tool, words);
  std::string page = man_page(tool);
  for (const auto& [word, where] : words) {
    INFO(where << ": " << word << " is missing from man/" << tool << ".1");
    CHECK(mentions(page, word));
  }
}

} // namespace

TEST_CASE("man pages: every kstat subcommand and option is documented", "[man]") {
  check_page<opskit::cmd::kstat::Options>(
      "kstat", [](CLI::App& app, auto& options) { opskit::cmd::kstat::define_cli(app, options); });
}

TEST_CASE("man pages: every pkgcloud subcommand and option is documented", "[man]") {
  check_page<opskit::cmd::pkgcloud::Options>("pkgcloud", opskit::cmd::pkgcloud::define_cli);
}

TEST_CASE("man pages: every syscount subcommand and option is documented", "[man]") {
  check_page<opskit::cmd::syscount::Options>("syscount", opskit::cmd::syscount::define_cli);
}

TEST_CASE("man pages: mandoc finds nothing to warn about", "[man]") {
  for (std::string tool : {"kstat", "pkgcloud", "syscount"}) {
    auto lint = opskit::test::run({"mandoc", "-T", "lint", "-W", "warning",
                                   std::string(OPSKIT_SOURCE_DIR) + "/man/" + tool + ".1"});
    INFO(lint.out << lint.err);
    CHECK(lint.exit_status == 0);
  }
}
