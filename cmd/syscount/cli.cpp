// SPDX-License-Identifier: MIT
#include "cli.hpp"

#include <limits>
#include <string>
#include <string_view>

#include "cli_main.hpp"
#include "opskit/version.hpp"

namespace opskit::cmd::syscount {

namespace {

struct Subcommand {
  trace::SyscallClass cls;
  const char* description;
};

constexpr Subcommand k_subcommands[] = {
    {trace::SyscallClass::stats,
     "Count the stat family: stat, lstat, fstat, newfstatat, statx, access, faccessat, "
     "faccessat2, readlink, readlinkat (and for 32-bit programs stat64, lstat64, fstat64, "
     "fstatat64, oldstat, oldlstat, oldfstat); by syscall, result, path, failed directory and "
     "suffix."},
    {trace::SyscallClass::files,
     "Count the stat family plus open, openat, openat2, creat, execve, execveat, unlink(at), "
     "rename(at,at2), mkdir(at) and chdir."},
    {trace::SyscallClass::all, "Count every system call, with errors by errno, like strace -c."},
};

} // namespace

void define_cli(CLI::App& app, Options& options) {
  app.description("Run a command (or attach to a process) and count the system calls it makes, "
                  "above all the stat family, by path and by result.");
  app.set_version_flag("--version", std::string("syscount ") + k_version);
  app.require_subcommand(1);
  app.footer("Example: syscount stats -- perl -MPOSIX -e 1");
  for (const auto& sub : k_subcommands) {
    CLI::App* cmd = app.add_subcommand(std::string(trace::to_string(sub.cls)), sub.description);
    cmd->parse_complete_callback([&options, cls = sub.cls] { options.cls = cls; });
    cmd->add_option("-p,--pid", options.pid,
                    "Attach to this running process and all its threads instead of running a "
                    "command; Ctrl-C detaches")
        ->check(whole_number("a pid", 1, std::numeric_limits<int>::max()));
    cmd->add_flag("--per-process", options.per_process, "Break the report down by process");
    cmd->add_option("--top", options.top,
                    "List at most N paths, directories, suffixes and "
                    "processes (0: all)")
        ->capture_default_str()
        ->check(whole_number("a number of entries", 0));
    cmd->add_option("--max-paths", options.max_paths,
                    "Keep at most N distinct paths exactly; fold the rest into their directory")
        ->capture_default_str()
        ->check(whole_number("a number of paths", 1));
    cmd->add_option("-o,--output", options.output, "Write the report to FILE instead of stderr");
    cmd->add_flag("--json", options.json, "Write the report as JSON");
    cmd->add_flag("--no-idle-poll", options.no_idle_poll,
                  "Let idle CPUs sleep while tracing: saves power, but each traced call then "
                  "waits for a sleeping CPU to wake");
    cmd->add_option_function<std::string>(
           "--backend",
           [&options](const std::string& word) {
             options.backend = trace::parse_backend(word).value_or(trace::Backend::automatic);
           },
           "How to count: ebpf (in the kernel; needs root, or CAP_BPF and CAP_PERFMON), "
           "ptrace (stops the command at each counted call), or auto: ebpf where it loads, "
           "else ptrace")
        ->check(CLI::IsMember({"auto", "ebpf", "ptrace"}))
        ->default_str("auto");
    // Taken by take_command(), before the parser: named here for --help.
    cmd->add_option("command", options.command,
                    "The command to run and its arguments: after syscount's options, or after --");
  }
}

int take_command(const CLI::App& app, int argc, char** argv, Options& options) {
  const CLI::App* sub = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string_view word = argv[i];
    if (word == "--") {
      options.command.assign(argv + i + 1, argv + argc);
      return i;
    }
    if (word.size() > 1 && word.starts_with('-')) {
      const CLI::Option* option = (sub ? sub : &app)->get_option_no_throw(std::string(word));
      if (option && option->get_items_expected_min() > 0)
        ++i; // its value
      continue;
    }
    if (sub == nullptr) {
      auto named = app.get_subcommands([&](const CLI::App* c) { return c->check_name(argv[i]); });
      if (named.empty())
        return argc; // no subcommand: the parser tells
      sub = named.front();
      continue;
    }
    options.command.assign(argv + i, argv + argc);
    return i;
  }
  return argc;
}

int parse_and_run(int argc, char** argv) {
  CLI::App app{"", "syscount"};
  Options options;
  define_cli(app, options);
  argc = take_command(app, argc, argv, options);
  return run_main("syscount", app, argc, argv, [&] { return run(options); });
}

} // namespace opskit::cmd::syscount
