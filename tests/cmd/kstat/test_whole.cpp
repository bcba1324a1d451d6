// SPDX-License-Identifier: MIT
// kstat over the whole namespace of this machine, as root and as an unprivileged user
// (setpriv to nobody): `kstat read ''` and a scrape of `kstat serve ''` end in time, name each
// entry they cannot read, and change nothing: a few /proc/sys values and the kernel log are the
// same after, and a trace of the read (by syscount) shows that it never opened a write-only
// entry or vm.stat_refresh, which acts when read.
#include <catch2/catch.hpp>

#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "pattern.hpp"
#include "serve.hpp"
#include "skip.hpp"

using namespace opskit::test;

namespace {

namespace fs = std::filesystem;

// The command that runs what follows it as `who` ("root": as we are; "nobody": setpriv), or
// nothing, with `why` set, where that cannot be done here.
std::optional<std::vector<std::string>> runner(const std::string& who, std::string& why) {
  if (who == "root")
    return std::vector<std::string>{};
  if (::geteuid() != 0)
    why = "needs root to become nobody";
  else if (!have_program("setpriv"))
    why = "setpriv is not installed";
  else if (::getpwnam("nobody") == nullptr)
    why = "there is no user nobody";
  if (!why.empty())
    return std::nullopt;
  std::string group = ::getgrnam("nogroup") != nullptr ? "nogroup" : "nobody";
  return std::vector<std::string>{"setpriv", "--reuid=nobody", "--regid=" + group,
                                  "--clear-groups"};
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// What a read must not change: a few /proc/sys values, and the kernel log.
struct SystemState {
  std::map<std::string, std::string> values;
  std::string log; // dmesg, empty when it cannot be read

  static SystemState now() {
    SystemState state;
    for (std::string name :
         {"vm/swappiness", "vm/dirty_ratio", "vm/overcommit_memory", "kernel/printk",
          "kernel/sysrq", "kernel/panic", "net/ipv4/ip_forward", "fs/protected_symlinks"})
      state.values[name] = slurp("/proc/sys/" + name);
    if (auto log = run({"dmesg"}); log.exit_status == 0)
      state.log = log.out;
    return state;
  }
  // The kernel's lines since `before` that name kstat (a deprecated entry's warning names the
  // process that read it).
  std::vector<std::string> kstat_log_lines_since(const SystemState& before) const {
    std::string fresh = log.starts_with(before.log) ? log.substr(before.log.size()) : log;
    std::vector<std::string> found;
    std::istringstream lines(fresh);
    for (std::string line; std::getline(lines, line);)
      if (line.find("kstat") != std::string::npos)
        found.push_back(line);
    return found;
  }
};

void check_unchanged(const SystemState& before) {
  auto after = SystemState::now();
  CHECK(after.values == before.values);
  CHECK(after.kstat_log_lines_since(before).empty());
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

// The /proc/sys entries a read must never open: write-only ones, and one that acts when read.
std::set<std::string> never_opened() {
  std::set<std::string> paths{"/proc/sys/vm/stat_refresh"};
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator("/proc/sys", ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IRUSR) == 0)
      paths.insert(it->path().string());
  }
  return paths;
}

// `before`, then the command `as` runs what follows it by, then `kstat read ''`.
std::vector<std::string> read_all(std::vector<std::string> before,
                                  const std::vector<std::string>& as) {
  before.insert(before.end(), as.begin(), as.end());
  before.insert(before.end(), {tool("kstat"), "read", ""});
  return before;
}

} // namespace

// Runs the rest of the test case as root, then as nobody: `who_var` names which, `as_var` is the
// command to run what follows by; skipped with the reason where nobody cannot be had.
#define OPSKIT_AS_ROOT_AND_NOBODY(who_var, as_var)                                                 \
  const std::string who_var = GENERATE(as<std::string>{}, "root", "nobody");                       \
  INFO("as " << who_var);                                                                          \
  std::string why_##who_var;                                                                       \
  const auto as_var = runner(who_var, why_##who_var);                                              \
  if (!as_var)                                                                                     \
  OPSKIT_SKIP(why_##who_var)

TEST_CASE("kstat read: the whole namespace ends in time, names what it cannot read and changes "
          "nothing",
          "[kstat][cli][root]") {
  OPSKIT_AS_ROOT_AND_NOBODY(who, as);
  auto before = SystemState::now();
  auto read = run(read_all({"timeout", "60"}, *as));
  CHECK(read.exit_status != 124); // timeout's: it hung
  // 3: some entries could not be read (each named on stderr), the rest printed
  CHECK((read.exit_status == 0 || read.exit_status == 3));
  CHECK((read.exit_status == 3) == !read.err.empty());
  if (who == "nobody") {
    CHECK(read.exit_status == 3);
    CHECK(read.err.find(": Permission denied\n") != std::string::npos);
  }
  std::set<std::string> printed, failed;
  for (const auto& line : lines_of(read.out))
    printed.insert(line.substr(0, line.find(": ")));
  CHECK(printed.size() > 1000);
  for (const auto& line : lines_of(read.err)) {
    INFO(line);
    // A file system the mount tests beside unmounted during the read: its sysfs files go; a
    // cgroup the serve tests beside removed; a mount point that went, or one in a directory
    // nobody may look in
    auto m = re::match(
        line, R"(kstat: error: ([^ ]+): ((open|read) (/proc/\S+|/sys/fs/(xfs|btrfs|cgroup)/\S+)|)"
              R"(statfs \S+): .+)");
    REQUIRE(m);
    failed.insert((*m)[1]);
  }
  for (const auto& name : failed)
    CHECK(printed.count(name) == 0);
  check_unchanged(before);
}

TEST_CASE("kstat read: the whole namespace never opens a write-only entry or vm.stat_refresh",
          "[kstat][cli][root][syscount]") {
  OPSKIT_AS_ROOT_AND_NOBODY(who, as);
  TempDir tmp;
  auto traced = run(read_all(
      {tool("syscount"), "files", "--json", "--top", "0", "-o", tmp / "report.json", "--"}, *as));
  INFO(traced.err.substr(0, 2000));
  CHECK((traced.exit_status == 0 || traced.exit_status == 3));
  auto report = nlohmann::json::parse(slurp(tmp / "report.json"));
  auto forbidden = never_opened();
  std::size_t under_proc_sys = 0;
  for (const auto& p : report.at("paths")) {
    auto path = p.at("path").get<std::string>();
    under_proc_sys += path.starts_with("/proc/sys/");
    CHECK(forbidden.count(path) == 0);
  }
  CHECK(under_proc_sys > 500); // the paths are absolute: the check above sees every entry
}

TEST_CASE("kstat serve: a scrape of the whole namespace is served in time, what cannot be read "
          "as scrape errors, and changes nothing",
          "[kstat][serve][root]") {
  OPSKIT_AS_ROOT_AND_NOBODY(who, as);
  auto before = SystemState::now();
  KstatServe serve({""}, *as);
  auto started = std::chrono::steady_clock::now();
  auto reply = http_get(serve.url()); // curl --max-time 30
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(30));
  CHECK(reply.status == 200);
  auto series = samples(reply.body);
  CHECK(series.count("kstat_sysctl{name=\"vm.swappiness\"}") == 1);
  std::size_t errors = 0;
  for (const auto& [name, value] : series)
    if (name.starts_with("kstat_scrape_error{source=\"/proc/sys/")) {
      ++errors;
      CHECK(value == 1);
    }
  if (who == "nobody")
    CHECK(errors > 0); // kernel.cad_pid and the like are root's only
  CHECK(http_get(serve.url()).status == 200);
  CHECK(serve.stop() == 0);
  check_unchanged(before);
}
