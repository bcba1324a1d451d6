// SPDX-License-Identifier: MIT
// pkgcloud's commands: gather the environment, call the library, render what it returns.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <unistd.h>

#include <fmt/format.h>

#include "cli.hpp"
#include "exit.hpp"
#include "opskit/file.hpp"
#include "opskit/repo/repository.hpp"
#include "opskit/table.hpp"
#include "render.hpp"

namespace opskit::cmd::pkgcloud {

namespace {

using repo::Environment;
using repo::Repository;

int failed(const Error& error) {
  print_error("pkgcloud", error.message());
  return k_exit_failure;
}

// A one-line bar on stderr, redrawn in place; only when stderr is a terminal.
void draw_progress(std::size_t done, std::size_t total) {
  constexpr std::size_t k_width = 30;
  std::size_t filled = total ? done * k_width / total : k_width;
  print_stderr("\r[{}{}] {}/{}", std::string(filled, '#'), std::string(k_width - filled, ' '), done,
               total);
  if (done == total)
    print_stderr("\r{}\r", std::string(k_width + 24, ' '));
  std::fflush(stderr);
}

Result<Environment> environment(const Options& o) {
  Environment env;
  if (o.passphrase_file) {
    auto text = read_file(*o.passphrase_file);
    if (!text)
      return fail(text.error().with_context("--passphrase-file"));
    std::string pass = text->substr(0, text->find('\n')); // its first line, as gpg reads one
    if (pass.ends_with('\r'))
      pass.pop_back();
    env.passphrase = std::move(pass);
  } else if (const char* pass = std::getenv("PKGCLOUD_GPG_PASSPHRASE")) {
    env.passphrase = pass;
  }
  // Not handed down: gpg would pass it on to the gpg-agent it starts, which outlives us.
  ::unsetenv("PKGCLOUD_GPG_PASSPHRASE");
  env.now = std::time(nullptr);
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch && *epoch) {
    char* end = nullptr;
    long long value = std::strtoll(epoch, &end, 10);
    if (*end != '\0' || value < 0)
      return fail(fmt::format("SOURCE_DATE_EPOCH '{}': not a number of seconds", epoch));
    env.now = static_cast<std::time_t>(value);
  }
  if (::isatty(STDERR_FILENO))
    env.progress = draw_progress;
  env.notice = [](std::string_view line) { print_stderr("pkgcloud: {}\n", line); };
  env.variable = [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  return env;
}

int list(Repository& r, const Options& o) {
  auto records = r.list(o.dist);
  if (!records)
    return failed(records.error());
  if (o.dist && records->empty())
    print_stderr("pkgcloud: {} holds no packages\n", *o.dist);
  if (o.json) {
    fmt::print("{}", records_json(*records));
    return k_exit_ok;
  }
  Table table({{"NAME"},
               {"VERSION"},
               {"ARCH"},
               {"FORMAT"},
               {"DIST"},
               {"COMPONENT"},
               {"SIZE", Align::right}});
  for (const auto& p : *records)
    table.add_row({p.name, p.version, p.arch, std::string(repo::format_name(p.format)), p.dist,
                   p.component, std::to_string(p.size)});
  fmt::print("{}", table.render());
  return k_exit_ok;
}

bool is_url(std::string_view s) {
  return s.starts_with("s3://") || s.starts_with("http://") || s.starts_with("https://");
}

// `saved` with the settings the command line gives in place of its own.
repo::PublishTarget overlaid(repo::PublishTarget saved, const repo::PublishTarget& given) {
  for (auto field : {&repo::PublishTarget::endpoint, &repo::PublishTarget::region,
                     &repo::PublishTarget::profile, &repo::PublishTarget::user,
                     &repo::PublishTarget::password_file, &repo::PublishTarget::ca_file})
    if (!(given.*field).empty())
      saved.*field = given.*field;
  saved.path_style = saved.path_style || given.path_style;
  if (given.multipart_threshold != 0)
    saved.multipart_threshold = given.multipart_threshold;
  return saved;
}

// The target the command line names: --to URL with its settings (saved with --save), a URL
// given as the target, or a saved target's name with the settings given beside it.
Result<repo::PublishTarget> target_of(Repository& r, const Options& o, const std::string& name) {
  repo::PublishTarget target = o.target;
  if (is_url(name))
    target.url = name;
  else if (!name.empty()) {
    if (o.save)
      return fail("publish: --save takes a target given by --to URL");
    OPSKIT_TRY_ASSIGN(auto saved, r.saved_target(name));
    return overlaid(std::move(saved), o.target);
  }
  if (o.save)
    OPSKIT_TRY(r.save_target(*o.save, target));
  return target;
}

// verify's output for what verify_remote found.
int print_problems(const Result<std::vector<repo::Problem>>& problems, const Options& o) {
  if (!problems)
    return failed(problems.error());
  fmt::print("{}", o.json ? problems_json(*problems) : problems_text(*problems));
  if (!problems->empty()) {
    print_error("pkgcloud", fmt::format("verify: {} problem{}", problems->size(),
                                        problems->size() == 1 ? "" : "s"));
    return k_exit_failure;
  }
  if (!o.json)
    fmt::print("ok\n");
  return k_exit_ok;
}

// The environment variable `name` when it is set, else `fallback`: seconds from 1 to `most`.
// PKGCLOUD_STALL_SECONDS: how long a transfer may move no byte before it is tried again;
// PKGCLOUD_LOCK_REFRESH_SECONDS: how often the target's lock is written again, well within
// the ten minutes it lasts.
Result<std::chrono::seconds> seconds_from(const char* name, std::chrono::seconds fallback,
                                          std::chrono::seconds most = std::chrono::hours(1)) {
  const char* text = std::getenv(name);
  if (!text || !*text)
    return fallback;
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 1 || value > most.count())
    return fail(
        fmt::format("{} '{}': not a number of seconds from 1 to {}", name, text, most.count()));
  return std::chrono::seconds(value);
}

// What publish is to do, from the command line (and a saved target it names): all of it read
// before the repository is changed, so that push --publish fails before the push.
Result<repo::PublishOptions> publish_options(Repository& r, const Options& o,
                                             const std::string& name) {
  repo::PublishOptions options;
  OPSKIT_TRY_ASSIGN(options.target, target_of(r, o, name));
  OPSKIT_TRY_ASSIGN(options.stall,
                    seconds_from("PKGCLOUD_STALL_SECONDS", repo::PublishOptions().stall));
  OPSKIT_TRY_ASSIGN(options.lock_refresh,
                    seconds_from("PKGCLOUD_LOCK_REFRESH_SECONDS",
                                 repo::PublishOptions().lock_refresh, std::chrono::minutes(5)));
  options.jobs = o.jobs;
  options.dry_run = o.dry_run;
  options.delete_stale = o.delete_stale ? repo::DeleteStale::yes : repo::DeleteStale::no;
  options.wait = std::chrono::seconds(o.wait);
  return options;
}

int publish(Repository& r, const Options& o, const repo::PublishOptions& options) {
  if (o.verify_remote)
    return print_problems(r.verify_remote(options.target), o);
  auto report = r.publish(options);
  if (!report)
    return failed(report.error());
  fmt::print("{}", o.json ? publish_json(*report) : publish_text(*report));
  return k_exit_ok;
}

int init_repository(const std::string& root, const Options& o, Environment env) {
  repo::InitOptions init;
  init.generate_key = o.generate_key;
  init.key = o.key;
  if (o.origin)
    init.origin = *o.origin;
  if (o.label)
    init.label = *o.label;
  init.valid_for_days = o.valid_for;
  if (!o.architectures.empty())
    init.architectures = o.architectures;
  auto made = Repository::init(root, init, std::move(env));
  if (!made)
    return failed(made.error());
  fmt::print("initialised {}; serve or upload {}, never the repository itself\n", root,
             made->publication());
  if (o.generate_key) {
    fmt::print("signing key in {}/.pkgcloud/gnupg (back it up with the repository: "
               "gpg --homedir {}/.pkgcloud/gnupg --export-secret-keys)\n",
               root, root);
  } else if (!o.key) {
    std::fflush(stdout); // the line above first
    print_stderr("pkgcloud: {} is unsigned, which apt and dnf take only with their "
                 "signature checks off (init --generate-key or --key signs a repository)\n",
                 root);
  }
  return k_exit_ok;
}

// push, and publish after it when --publish names a target.
int push_packages(Repository& r, const Options& o) {
  std::optional<repo::PublishOptions> then;
  if (o.publish_to) {
    auto options = publish_options(r, o, *o.publish_to);
    if (!options)
      return failed(options.error());
    then = std::move(*options);
  }
  // A dist that held nothing may be a typo, which would stay published: say so.
  auto held = o.dist ? r.holds(*o.dist) : Result<bool>(true);
  repo::PushOptions push{o.dist, o.component, o.replace ? repo::Replace::yes : repo::Replace::no};
  auto pushed = r.push(o.files, push);
  if (!pushed)
    return failed(pushed.error());
  if (held && !*held)
    print_stderr("pkgcloud: {} held no packages before this push: clients need a sources entry "
                 "for it (pkgcloud sources prints them)\n",
                 *o.dist);
  if (o.json)
    fmt::print("{}", pushed_json(*pushed));
  else
    for (const auto& p : *pushed)
      fmt::print("{} {} {} {} -> {}{}{}\n", action_word(p.action), p.record.name, p.record.version,
                 p.record.arch, p.record.dist, p.record.component.empty() ? "" : " ",
                 p.record.component);
  return then ? publish(r, o, *then) : k_exit_ok;
}

int index_repository(Repository& r, const Options& o) {
  repo::IndexOptions index{o.sign ? repo::SignRequest::required : repo::SignRequest::if_key,
                           o.rebuild};
  auto report = r.index(index);
  if (!report)
    return failed(report.error());
  fmt::print("{}", o.json ? index_json(*report, o.rebuild) : index_text(*report, o.rebuild));
  return k_exit_ok;
}

// rm NAME[=VERSION], or prune --keep N.
int remove_packages(Repository& r, const Options& o) {
  Result<std::vector<repo::PackageRecord>> removed = std::vector<repo::PackageRecord>();
  if (o.command == Command::rm) {
    repo::RemoveFilter filter{o.spec, std::nullopt, o.dist, o.arch};
    if (auto eq = o.spec.find('='); eq != std::string::npos) {
      filter.name = o.spec.substr(0, eq);
      filter.version = o.spec.substr(eq + 1);
    }
    removed = r.remove(filter);
  } else {
    removed = r.prune(o.keep, o.dist);
  }
  if (!removed)
    return failed(removed.error());
  if (o.json)
    fmt::print("{}", records_json(*removed));
  else
    for (const auto& p : *removed)
      fmt::print("removed {} {} {} from {}\n", p.name, p.version, p.arch, p.dist);
  return k_exit_ok;
}

int print_key(Repository& r, const Options& o) {
  auto key = r.export_key(o.armor ? repo::Armor::yes : repo::Armor::no);
  if (!key)
    return failed(key.error());
  if (!o.armor && ::isatty(STDOUT_FILENO)) {
    print_error("pkgcloud",
                "export-key: not writing a binary keyring to a terminal (redirect it, or use "
                "--armor)");
    return k_exit_failure;
  }
  std::fwrite(key->data(), 1, key->size(), stdout);
  return k_exit_ok;
}

int print_sources(Repository& r, const Options& o) {
  auto sources = r.sources(o.url);
  if (!sources)
    return failed(sources.error());
  fmt::print("{}", sources_text(*sources, r.publication(), o.url));
  return k_exit_ok;
}

} // namespace

int run(const Options& o) {
  auto env = environment(o);
  if (!env)
    return failed(env.error());
  std::string root = o.repo.empty() ? "." : o.repo;
  if (o.command == Command::init)
    return init_repository(root, o, std::move(*env));
  auto opened = Repository::open(root, std::move(*env));
  if (!opened)
    return failed(opened.error());
  Repository& r = *opened;
  switch (o.command) {
  case Command::push:
    return push_packages(r, o);
  case Command::index:
    return index_repository(r, o);
  case Command::ls:
    return list(r, o);
  case Command::rm:
  case Command::prune:
    return remove_packages(r, o);
  case Command::verify:
    return print_problems(r.verify(), o);
  case Command::export_key:
    return print_key(r, o);
  case Command::sources:
    return print_sources(r, o);
  case Command::publish: {
    auto options = publish_options(r, o, o.target_name);
    return options ? publish(r, o, *options) : failed(options.error());
  }
  default:
    return k_exit_usage;
  }
}

} // namespace opskit::cmd::pkgcloud
