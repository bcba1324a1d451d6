// SPDX-License-Identifier: MIT
// syscount's one pass: trace into an aggregator, then render the summary once at the end.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.hpp"
#include "exit.hpp"
#include "opskit/file.hpp"
#include "opskit/handle.hpp"
#include "opskit/probes/trace/engine.hpp"
#include "report.hpp"

namespace opskit::cmd::syscount {

namespace {

constexpr int k_exit_not_found = 127;
constexpr int k_exit_cannot_run = 126;

using FilePtr = CPtr<FILE, std::fclose>;

// The width to fit the report to: the terminal's when `fd` is one, else $COLUMNS, else none.
std::size_t report_width(int fd) {
  winsize ws{};
  if (::isatty(fd) && ::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
    return ws.ws_col;
  if (const char* columns = std::getenv("COLUMNS"))
    return static_cast<std::size_t>(std::strtoul(columns, nullptr, 10));
  return 0;
}

// A running process's command line from /proc/<pid>/cmdline, or its pid when unreadable.
std::vector<std::string> process_command(pid_t pid) {
  std::vector<std::string> words;
  if (auto text = read_file(fmt::format("/proc/{}/cmdline", pid))) {
    std::string_view rest = *text;
    while (!rest.empty()) {
      auto nul = rest.find('\0');
      words.emplace_back(rest.substr(0, nul));
      rest = nul == std::string_view::npos ? std::string_view{} : rest.substr(nul + 1);
    }
  }
  if (words.empty())
    words.push_back(std::to_string(pid));
  return words;
}

int usage_error(std::string_view message) {
  print_error("syscount", fmt::format("{} (see 'syscount --help')", message));
  return k_exit_usage;
}

// The request the options make, with its messages to the user on stderr.
trace::TraceRequest make_request(const Options& options) {
  trace::TraceRequest request{.cls = options.cls,
                              .command = options.command,
                              .attach_pid = options.pid,
                              .on_attached = {},
                              .idle_poll = !options.no_idle_poll,
                              .backend = options.backend,
                              .on_fallback = [](const std::string& why) {
                                print_stderr("syscount: counting with ptrace: {}\n", why);
                              }};
  if (options.pid > 0)
    request.on_attached = [pid = options.pid](std::size_t threads) {
      print_stderr("syscount: attached to process {} ({} thread{}); Ctrl-C detaches\n", pid,
                   threads, threads == 1 ? "" : "s");
    };
  return request;
}

// The report file -o names, opened before the run (a typo in it should not cost a whole
// traced run) but emptied only when the report is written: a run that fails leaves a report
// there before it as it was, and removes a file it made.
struct ReportFile {
  FilePtr file;
  std::string made; // the path, when this run created the file

  Result<void> open(const std::string& path) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0)
      made = path;
    else if (errno == EEXIST) // O_CREAT again: the kernel's fs.protected_regular then refuses,
      // as for any program, a file another user made in a sticky directory such as /tmp
      fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
      return fail(Error::from_errno("open", path));
    file.reset(::fdopen(fd, "w"));
    if (!file) {
      ::close(fd);
      return fail(Error::from_errno("open", path));
    }
    return {};
  }
  // Empties it (a terminal or a pipe named by -o has nothing to empty) and hands it over.
  FilePtr take() {
    if (file)
      (void)::ftruncate(::fileno(file.get()), 0);
    made.clear();
    return std::move(file);
  }
  ~ReportFile() {
    if (!made.empty())
      ::unlink(made.c_str());
  }
};

// Writes the report to `file` (stderr when none) and closes it; syscount's exit status.
int write_report(const Options& options, const RunInfo& info, const trace::Aggregator& aggregator,
                 FilePtr file) {
  auto summary = aggregator.summary(options.top == 0 ? static_cast<std::size_t>(-1) : options.top);
  FILE* out = file ? file.get() : stderr;
  std::string report = options.json ? render_json(info, summary, options.top)
                                    : render_text(info, summary,
                                                  {.per_process = options.per_process,
                                                   .top = options.top,
                                                   .width = report_width(::fileno(out))});
  bool written = std::fwrite(report.data(), 1, report.size(), out) == report.size();
  if (file)
    written = std::fclose(file.release()) == 0 && written;
  if (!written) {
    print_error("syscount", Error::from_errno("write report to",
                                              options.output.empty() ? "stderr" : options.output)
                                .message());
    return info.exit_status == 0 ? k_exit_failure : info.exit_status;
  }
  return info.exit_status;
}

} // namespace

int run(const Options& given) {
  if (given.pid > 0 && !given.command.empty())
    return usage_error("give either -p PID or a command, not both");
  if (given.pid == 0 && given.command.empty())
    return usage_error("no command to trace: give one (after the options, or after --), or -p PID");
  // -p of a thread is its process, named so in the messages and the report.
  Options options = given;
  if (options.pid > 0)
    options.pid = trace::process_of(options.pid);

  ReportFile file;
  if (!options.output.empty()) {
    if (auto opened = file.open(options.output); !opened) {
      print_error("syscount", opened.error().message());
      return k_exit_failure;
    }
  }

  trace::Aggregator aggregator({.max_paths = options.max_paths});
  auto request = make_request(options);
  auto backend = trace::open_backend(request, aggregator.limits());
  if (!backend) {
    print_error("syscount", backend.error().message());
    return k_exit_failure;
  }
  RunInfo info;
  info.command = options.pid > 0 ? process_command(options.pid) : options.command;
  info.attached_pid = options.pid;
  info.cls = options.cls;
  info.backend = (*backend)->kind();
  info.max_paths = options.max_paths;
  auto outcome = trace::run_trace(request, **backend, aggregator);
  if (!outcome) {
    print_error("syscount", outcome.error().message());
    if (options.pid > 0)
      return k_exit_failure;
    return outcome.error().errno_value() == ENOENT ? k_exit_not_found : k_exit_cannot_run;
  }
  if (!outcome->warning.empty())
    print_stderr("syscount: warning: {}\n", outcome->warning);
  info.exit_status = outcome->exit_status;
  info.signal = outcome->signal;
  info.detached = outcome->detached;
  info.wall_s = outcome->wall_s;
  return write_report(options, info, aggregator, file.take());
}

} // namespace opskit::cmd::syscount
