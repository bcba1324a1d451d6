// SPDX-License-Identifier: MIT
//
// kstat serve and kstat watch against a sensor whose read does not return, or returns late: a
// file of a FUSE file system (stuck_sensor.cpp) mounted as a hardware monitoring chip under a
// --sys-root of the test's, whose read waits until the test lets it go or for as long as it
// says.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include <fmt/format.h>

#include "mount_namespace.hpp"
#include "opskit/file.hpp"
#include "opskit/probes/scrape.hpp"
#include "opskit/scrape_timeout.hpp"
#include "prometheus.hpp"
#include "serve.hpp"

using namespace opskit::test;

namespace {

std::string read_all(const std::filesystem::path& path) {
  return opskit::read_file(path).value_or("");
}

// hwmon0 under `sys`, a chip named "stuck" whose temp1_input does not answer until release(),
// or `late_seconds` after each read where given; unmounted and stopped by its pid. A process
// stuck in that read cannot end, even killed, until it is let go: Released, made after such a
// process, lets it go before it is waited for. It is mounted in a mount namespace of the
// test's own, which the programs it starts share: the tests beside, which read every mount
// point, never find it, nor a copy of it whose server is gone.
class StuckSensor {
public:
  explicit StuckSensor(const std::filesystem::path& sys, std::optional<double> late_seconds = {})
      : chip_(sys / "class/hwmon/hwmon0") {
    enter_own_mount_namespace();
    std::filesystem::create_directories(chip_);
    std::vector<std::string> argv{STUCK_SENSOR, release_file_, chip_};
    if (late_seconds)
      argv.push_back(fmt::format("{}", *late_seconds));
    pid_ = spawn_quiet(argv);
    for (int i = 0; i < 400 && !std::filesystem::exists(chip_ / "name"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    REQUIRE(std::filesystem::exists(chip_ / "name"));
  }
  StuckSensor(const StuckSensor&) = delete;
  StuckSensor& operator=(const StuckSensor&) = delete;
  ~StuckSensor() {
    release();
    ::umount2(chip_.c_str(), MNT_DETACH);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  std::string temperature() const { return (chip_ / "temp1_input").string(); }
  // How many reads of the temperature have answered.
  long reads() const { return std::ranges::count(read_all(release_file_ + ".reads"), '\n'); }
  void release() const { std::ofstream(release_file_) << ""; }

  struct Released {
    const StuckSensor& sensor;
    ~Released() { sensor.release(); }
  };

private:
  TempDir state_;
  std::filesystem::path chip_;
  std::string release_file_ = state_ / "release";
  int pid_ = -1;
};

int threads_of(int pid) {
  std::ifstream in(fmt::format("/proc/{}/status", pid));
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("Threads:"))
      return std::stoi(line.substr(8));
  return -1;
}

// Scrapes `serve` until a body has the sensor's temperature (10 s at most), as it does once the
// read returns, and checks that body has no scrape error.
void check_temperature_served(const KstatServe& serve) {
  std::string body;
  for (int i = 0; i < 400 && body.find("kstat_hwmon_temp_celsius") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    body = http_get(serve.url()).body;
  }
  CHECK(body.find("kstat_hwmon_temp_celsius{chip=\"stuck\",sensor=\"temp1\"} 42\n") !=
        std::string::npos);
  CHECK(body.find("kstat_scrape_error") == std::string::npos);
}

// What kstat with `args`, under `sys` where `sensor`'s read is held, has printed by the time
// `enough` holds of it (10 s at most); then, the read let go (the process cannot end before),
// its exit status, its whole output and its errors.
struct HeldRun {
  std::string while_held;
  int status = -1;
  std::string out, err;
};
template <class Enough>
HeldRun kstat_while_held(const StuckSensor& sensor, const TempDir& sys,
                         const std::vector<std::string>& args, Enough enough) {
  TempDir dir;
  std::vector<std::string> argv{"sh",        "-c",          "exec \"$@\" >\"$0\" 2>\"$0.err\"",
                                dir / "out", tool("kstat"), "--sys-root",
                                sys.path()};
  argv.insert(argv.end(), args.begin(), args.end());
  int pid = spawn_quiet(argv);
  StuckSensor::Released released{sensor};
  HeldRun run;
  for (int i = 0; i < 400 && !enough(run.while_held); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    run.while_held = read_all(dir / "out");
  }
  sensor.release();
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  run.status = WEXITSTATUS(status);
  run.out = read_all(dir / "out");
  run.err = read_all(dir / "out.err");
  return run;
}

} // namespace

TEST_CASE("kstat serve: a sensor that does not answer is a scrape error while the others are "
          "served, and is read again once it answers",
          "[kstat][serve]") {
  TempDir sys;
  StuckSensor sensor(sys.path());
  KstatServe serve(
      {"--sys-root", sys.path(), "--scrape-timeout", "0.5", "hw.hwmon", "kern.loadavg"});
  StuckSensor::Released released{sensor};
  std::string error = fmt::format("kstat_scrape_error{{source=\"{}\"}} 1\n", sensor.temperature());
  int threads = 0;
  for (int scrape = 0; scrape < 4; ++scrape) {
    auto reply = http_get(serve.url());
    CHECK(reply.status == 200);
    CHECK(reply.body.find(error) != std::string::npos);
    CHECK(reply.body.find("kstat_hwmon_chip_names{chip=\"stuck\",chip_name=\"stuck\"} 1\n") !=
          std::string::npos);
    CHECK(reply.body.find("kstat_load1 ") != std::string::npos);
    CHECK(reply.body.find("kstat_hwmon_temp_celsius") == std::string::npos);
    // The stuck read holds one thread, not one more a scrape.
    if (scrape == 0)
      threads = threads_of(serve.pid());
    CHECK(threads_of(serve.pid()) == threads);
  }
  // Told once, with why, on standard error, as the scrapes go on.
  std::string warning =
      fmt::format("kstat: warning: scrape error: read {}: ", sensor.temperature());
  auto err = serve.err();
  CHECK(err.starts_with(warning));
  CHECK(err.find(warning, 1) == std::string::npos);
  sensor.release();
  check_temperature_served(serve);
  CHECK(serve.err().ends_with(fmt::format("kstat: {} reads again\n", sensor.temperature())));
}

TEST_CASE("kstat watch: a sensor that does not answer fails its samples, and the others go on",
          "[kstat][watch]") {
  TempDir sys;
  StuckSensor sensor(sys.path());
  // Its four samples come one an interval, the read still stuck.
  auto run =
      kstat_while_held(sensor, sys, {"watch", "-i", "0.2", "-c", "4", "hw.hwmon", "kern.loadavg.1"},
                       [](const std::string& out) { return std::ranges::count(out, '\n') >= 5; });
  CHECK(run.status == 3); // some entries could not be read
  const std::string& samples = run.out;
  CHECK(samples.starts_with("hw.hwmon.stuck.name hw.hwmon.stuck.temp1.input kern.loadavg.1\n"));
  CHECK(std::ranges::count(samples, '\n') == 5);
  CHECK(samples.find(" stuck ") != std::string::npos);
  CHECK(samples.find(" - ") != std::string::npos); // the temperature, not read
  CHECK(run.err ==
        fmt::format("kstat: error: hw.hwmon.stuck.temp1.input: read {}: still no answer to an "
                    "earlier read; skipped until it returns\n",
                    sensor.temperature()));
}

TEST_CASE("kstat read --timeout: a sensor that does not answer is an error, and the rest is "
          "printed",
          "[kstat][cli]") {
  TempDir sys;
  StuckSensor sensor(sys.path());
  // What it has is printed while the read is held.
  auto run = kstat_while_held(
      sensor, sys, {"read", "--timeout", "0.5", "hw.hwmon", "kern.loadavg.1"},
      [](const std::string& out) { return out.find("kern.loadavg.1: ") != std::string::npos; });
  CHECK(run.while_held.starts_with("hw.hwmon.stuck.name: stuck\nkern.loadavg.1: "));
  CHECK(run.status == 3); // some entries could not be read
  CHECK(run.err.starts_with(
      fmt::format("kstat: error: hw.hwmon.stuck.temp1.input: read {}: ", sensor.temperature())));
}

TEST_CASE("kstat serve: a scrape reads within the timeout Prometheus says it waits, less half a "
          "second",
          "[kstat][serve]") {
  // The sensor answers each read after 1.5 s, within the --scrape-timeout of 5 s.
  TempDir sys;
  StuckSensor sensor(sys.path(), 1.5);
  KstatServe serve({"--sys-root", sys.path(), "hw.hwmon", "kern.loadavg"});
  std::string error = fmt::format("kstat_scrape_error{{source=\"{}\"}} 1\n", sensor.temperature());
  // A scraper that waits a second: the read has half of it, and the answer says what it left.
  auto hurried = http_get(serve.url(), {fmt::format("{}: 1", opskit::k_scrape_timeout_header)});
  CHECK(hurried.status == 200);
  CHECK(hurried.body.find(error) != std::string::npos);
  CHECK(hurried.body.find("kstat_load1 ") != std::string::npos);
  // One that says nothing, once that read has returned: the 5 s, and the temperature.
  check_temperature_served(serve);
}

TEST_CASE("kstat serve: Prometheus with a scrape timeout shorter than a slow sensor's read finds "
          "the target up, and the sensor a scrape error",
          "[kstat][serve][prometheus]") {
  if (!have_program("prometheus"))
    FAIL("prometheus is needed (scripts/dev installs it)");
  // Each read of the sensor takes 2 s; Prometheus scrapes every second and waits 1 s.
  TempDir sys;
  StuckSensor sensor(sys.path(), 2);
  KstatServe serve({"--sys-root", sys.path(), "hw.hwmon", "kern.loadavg"});
  TempDir dir;
  Prometheus prometheus(dir, serve.address(), "    scrape_timeout: 1s\n");
  auto scrapes = prometheus.wait_for("count_over_time(up{job=\"kstat\"}[1m])",
                                     [](double v) { return v >= 3; });
  REQUIRE(scrapes >= 3);
  // Every scrape answered in time: none was down.
  CHECK(prometheus.query("min_over_time(up{job=\"kstat\"}[1m])") == 1);
  CHECK(prometheus.query("kstat_scrape_error{source=\"" + sensor.temperature() + "\"}") == 1);
  CHECK(prometheus.query("count(kstat_load1)") == 1);
}

TEST_CASE("kstat serve's resolve does not read again the sensors its scrape has just read",
          "[kstat][serve]") {
  // A sensor that takes 50 ms a read, found again at every scrape (a resolve interval of 0): its
  // names are probed at the start, and read once a scrape, not twice.
  using opskit::counters::Scraper;
  TempDir sys;
  StuckSensor sensor(sys.path(), 0.05);
  auto scraper = Scraper::open(
      opskit::counters::Namespace("/proc", sys.path()),
      {.sets = {{.names = {"hw.hwmon"}}}, .resolve_interval = Scraper::Clock::duration::zero()});
  REQUIRE(scraper);
  long at_start = sensor.reads();
  CHECK(at_start == 2); // the probe, the first read
  for (int scrape = 0; scrape < 3; ++scrape) {
    auto body = (*scraper)->scrape(opskit::TextFormat::prometheus);
    CHECK(body->find("kstat_hwmon_temp_celsius{chip=\"stuck\",sensor=\"temp1\"} 42\n") !=
          std::string::npos);
  }
  CHECK(sensor.reads() == at_start + 3);
}

TEST_CASE("kstat serve: names found anew after a scrape that ran to its deadline are read in "
          "the next scrape's time and not past it",
          "[kstat][serve]") {
  // A sensor that takes 1.5 s a read, scrapes that may take 0.5 s, and a chip that comes: found
  // at a scrape whose read of the sensor ran to its deadline, the new names' read had none of
  // that scrape's time left, and every source was a scrape error.
  using opskit::counters::Scraper;
  TempDir sys;
  StuckSensor sensor(sys.path(), 1.5);
  StuckSensor::Released released{sensor};
  auto scraper = Scraper::open(opskit::counters::Namespace("/proc", sys.path()),
                               {.sets = {{.names = {"hw.hwmon", "kern.loadavg"}}},
                                .timeout = std::chrono::milliseconds(500),
                                .resolve_interval = Scraper::Clock::duration::zero()});
  REQUIRE(scraper);
  std::this_thread::sleep_for(std::chrono::milliseconds(1700)); // the first read has answered
  auto chip = std::filesystem::path(sys.path()) / "class/hwmon/hwmon1";
  std::filesystem::create_directories(chip);
  std::ofstream(chip / "name") << "second\n";
  std::ofstream(chip / "temp1_input") << "30000\n";
  std::string loadavg_error = "kstat_scrape_error{source=\"/proc/loadavg\"}";
  std::string second = "kstat_hwmon_temp_celsius{chip=\"second\",sensor=\"temp1\"} 30\n";
  bool found = false;
  for (int scrape = 0; scrape < 4; ++scrape) {
    auto body = (*scraper)->scrape(opskit::TextFormat::prometheus, std::chrono::milliseconds(500));
    CHECK(body->find("kstat_load1 ") != std::string::npos);
    CHECK(body->find(loadavg_error) == std::string::npos);
    found = found || body->find(second) != std::string::npos;
  }
  CHECK(found);
}

TEST_CASE("kstat serve --web-config: a change made while serve starts is the one it serves by",
          "[kstat][serve][web]") {
  // The start probes the sensor, which answers each read after 2 s: meanwhile, basic
  // authentication is put into the configuration.
  TempDir sys, dir;
  StuckSensor sensor(sys.path(), 2);
  std::string config = dir / "web.yml";
  std::ofstream(config) << "# open to all\n";
  std::atomic<bool> changed{false};
  std::thread change([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::ofstream(config + ".new") << "basic_auth_users:\n  alice: "
                                      "$2y$04$e3nUNB4xnRWAMchAJUQkYeEIPkENYu4v3e1LbGJwOuS6v5gGqt/"
                                      "Mq\n";
    std::filesystem::rename(config + ".new", config);
    changed = true;
  });
  KstatServe serve({"--sys-root", sys.path(), "hw.hwmon", "kern.loadavg", "--web-config", config});
  bool changed_before = changed; // serve was still starting when the file changed
  change.join();
  INFO("serve started before the change: the test proves nothing");
  REQUIRE(changed_before);
  // The server looks at its files at most once a second.
  int status = 0;
  for (int i = 0; i < 100 && status != 401; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    status = http_get(serve.url()).status;
  }
  CHECK(status == 401);
}
