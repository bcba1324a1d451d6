// SPDX-License-Identifier: MIT
// `kstat serve` over HTTP: formats, compression, its pages, and what bad clients and sources do.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>

#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include "mount_namespace.hpp"
#include "net.hpp"
#include "opskit/file.hpp"
#include "opskit/handle.hpp"
#include "opskit/version.hpp"
#include "serve.hpp"

using namespace opskit::test;

namespace {

const std::string k_data = std::string(OPSKIT_TEST_DATA) + "/proc-basic";

// A figure of process `pid`'s /proc status in KiB: "VmRSS" (resident now), "VmHWM" (at most).
long status_kib(int pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(field + ":"))
      return std::stol(line.substr(field.size() + 1));
  return -1;
}

} // namespace

TEST_CASE("kstat serve: /metrics in the 0.0.4 text format, families with labels",
          "[kstat][serve]") {
  KstatServe serve({});
  auto reply = http_get(serve.url());
  CHECK(reply.status == 200);
  CHECK(reply.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8");
  CHECK(reply.body.find("# TYPE kstat_cpu_seconds_total counter\n") != std::string::npos);
  CHECK(reply.body.find("kstat_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} ") != std::string::npos);
  CHECK(reply.body.find("# TYPE kstat_memory_mem_total_bytes gauge\n") != std::string::npos);
  CHECK(reply.body.find("# TYPE kstat_vmstat_pgfault_total counter\n") != std::string::npos);
  // node_exporter's netdev and filesystem collectors are on by default; so are their sources.
  CHECK(reply.body.find("kstat_network_receive_bytes_total{device=\"lo\"} ") != std::string::npos);
  CHECK(reply.body.find("kstat_filesystem_avail_bytes{mountpoint=\"/\",device=\"") !=
        std::string::npos);
  CHECK(reply.body.find("kstat_scrape_duration_seconds ") != std::string::npos);
  CHECK(reply.body.find("cpu=\"all\"") == std::string::npos);
  CHECK(reply.body.find("kstat_sysctl") == std::string::npos); // served when named
  CHECK(serve.stop() == 0);
}

TEST_CASE("kstat serve: a full scrape passes promtool check metrics", "[kstat][serve]") {
  KstatServe serve({});
  auto check = promtool_check(http_get(serve.url()).body);
  CHECK(check.out + check.err == "");
  CHECK(check.exit_status == 0);
}

TEST_CASE("kstat read --prometheus: the /proc/sys tree and every source pass promtool",
          "[kstat][serve]") {
  auto r = run({tool("kstat"), "read", "--prometheus", "kernel", "vm", "fs", "net", "cpu", "kern",
                "disk", "cgroup"});
  CHECK(r.out.find("kstat_sysctl{name=\"vm.swappiness\"} ") != std::string::npos);
  auto check = promtool_check(r.out);
  CHECK(check.out + check.err == "");
  CHECK(check.exit_status == 0);
  // Nested cgroups, io.stat's devices, the interfaces' /sys statistics, memory controllers'
  // errors and thermal zones, from a copied /sys.
  auto copied = run({tool("kstat"), "--sys-root", std::string(OPSKIT_TEST_DATA) + "/sys-basic",
                     "read", "--prometheus", "cgroup", "net.dev", "hw"});
  CHECK(copied.out.find("{cgroup=\"/system.slice/ssh.service\"} ") != std::string::npos);
  CHECK(copied.out.find("kstat_thermal_zone_temp_celsius{zone=\"1\",type=\"acpitz\"} -2.5\n") !=
        std::string::npos);
  check = promtool_check(copied.out);
  CHECK(check.out + check.err == "");
  CHECK(check.exit_status == 0);
}

TEST_CASE("kstat serve --listen :PORT answers on IPv4 and on IPv6, as node_exporter's does",
          "[kstat][serve]") {
  KstatServe serve({"--listen", ":0", "kern.loadavg"});
  std::string port = serve.address().substr(serve.address().rfind(':') + 1);
  CHECK(http_get("http://127.0.0.1:" + port + "/metrics").status == 200);
  // Where this machine has IPv6 on its loopback interface.
  sockaddr_in6 loopback{};
  loopback.sin6_family = AF_INET6;
  loopback.sin6_addr = in6addr_loopback;
  opskit::UniqueFd probe(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (probe && ::bind(probe.get(), reinterpret_cast<sockaddr*>(&loopback), sizeof loopback) == 0) {
    CHECK(serve.address().starts_with("[::]:"));
    CHECK(http_get("http://[::1]:" + port + "/metrics").status == 200);
  }
}

TEST_CASE("kstat-serve, run by hand, is kstat serve", "[kstat][serve]") {
  auto help = run({tool("kstat") + "-serve", "--help"});
  CHECK(help.exit_status == 0);
  CHECK(help.out.find("Usage: kstat serve") != std::string::npos);
  // The global options first, as kstat takes them: then serve's.
  auto bad = run({tool("kstat") + "-serve", "--proc-root", "/proc", "--listen", "nowhere"});
  CHECK(bad.exit_status == 2);
  CHECK(bad.err == "kstat: error: --listen 'nowhere': expected HOST:PORT\n");
}

TEST_CASE("kstat serve: OpenMetrics when Accept asks for it, gzip when accepted",
          "[kstat][serve]") {
  KstatServe serve({"cpu", "vm.meminfo"});
  auto om = http_get(serve.url(), {"Accept: application/openmetrics-text;version=1.0.0,"
                                   "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"});
  CHECK(om.headers["content-type"].starts_with("application/openmetrics-text; version=1.0.0"));
  CHECK(om.body.find("# TYPE kstat_cpu_seconds counter\nkstat_cpu_seconds_total{") !=
        std::string::npos);
  CHECK(om.body.ends_with("# EOF\n"));
  CHECK(om.headers["vary"] == "Accept, Accept-Encoding"); // a cache keeps each format apart
  auto zipped = http_get(serve.url(), {"Accept-Encoding: gzip"});
  CHECK(zipped.headers["content-encoding"] == "gzip");
  auto unzipped = run({"gzip", "-dc"}, zipped.body);
  CHECK(unzipped.exit_status == 0);
  CHECK(unzipped.out.find("kstat_memory_mem_total_bytes ") != std::string::npos);
  CHECK(http_get(serve.url()).headers.count("content-encoding") == 0);
}

TEST_CASE("kstat serve: a scraper's connection is kept open from one scrape to the next",
          "[kstat][serve]") {
  KstatServe serve({"kern.loadavg"});
  auto r = run({"curl", "-sv", "--max-time", "30", serve.url(), "-o", "/dev/null", serve.url(),
                "-o", "/dev/null"});
  REQUIRE(r.exit_status == 0);
  CHECK(r.err.find("Re-using existing connection") != std::string::npos);
  CHECK(r.err.find("Connection: close") == std::string::npos);
}

TEST_CASE("kstat serve: / links to /metrics, other paths are 404, POST is refused",
          "[kstat][serve]") {
  KstatServe serve({"kern.loadavg"});
  auto page = http_get(serve.url("/"));
  CHECK(page.status == 200);
  CHECK(page.body.find("<a href=\"/metrics\">") != std::string::npos);
  CHECK(http_get(serve.url("/nothing")).status == 404);
  auto post =
      run({"curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", serve.url()});
  CHECK(post.out == "405");
  // Refused before its body, which is not taken in: curl, told no 100 Continue (and waiting for
  // one however slow the server), sends none.
  auto large =
      run({"sh", "-c",
           "head -c 100000000 /dev/zero | curl -s -o /dev/null -w '%{http_code} "
           "%{size_upload}' -H 'Expect: 100-continue' --expect100-timeout 30 --data-binary @- " +
               serve.url("/metrics")});
  CHECK(large.out == "405 0");
}

TEST_CASE("kstat serve: clients that never send and 200 scrapes at once do not stop it",
          "[kstat][serve]") {
  KstatServe serve({});
  std::vector<opskit::UniqueFd> silent;
  for (int i = 0; i < 50; ++i) {
    auto fd = connect_loopback(serve.port()); // and send nothing
    REQUIRE(fd);
    silent.push_back(std::move(fd));
  }
  CHECK(http_get(serve.url()).status == 200);
  long before = status_kib(serve.pid(), "VmRSS");
  // gzip, as Prometheus asks: each of the server's threads compresses with its own compressor.
  std::vector<std::string> argv{
      "curl",           "-s", "--parallel", "--parallel-max",        "200",
      "--max-time",     "60", "-H",         "Accept-Encoding: gzip", "-w",
      "%{http_code}\\n"};
  for (int i = 0; i < 200; ++i) {
    argv.push_back(serve.url());
    argv.push_back("-o");
    argv.push_back("/dev/null");
  }
  auto burst = run(argv);
  CHECK(std::count(burst.out.begin(), burst.out.end(), '\n') == 200);
  CHECK(burst.out.find_first_not_of("200\n") == std::string::npos);
#ifndef OPSKIT_SANITIZED // AddressSanitizer keeps freed memory in quarantine, by design
  CHECK(status_kib(serve.pid(), "VmRSS") < before + 32 * 1024);
#else
  CHECK(before > 0);
#endif
  CHECK(http_get(serve.url()).status == 200);
  CHECK(serve.stop(SIGINT) == 0);
}

TEST_CASE("kstat serve: a request with 12 KB of headers is answered", "[kstat][serve]") {
  // A long bearer token or cookie: each connection's memory is bounded (16 KiB), not so tightly
  // that a real client's headers do not fit.
  KstatServe serve({});
  auto reply = http_get(serve.url(), {"Authorization: Bearer " + std::string(12000, 'a')});
  CHECK(reply.status == 200);
  CHECK(reply.body.find("kstat_cpu_seconds_total") != std::string::npos);
  CHECK(serve.stop(SIGTERM) == 0);
}

TEST_CASE("kstat serve: under 10 MiB resident over scrapes, its C++ libraries linked in",
          "[kstat][serve]") {
#ifdef OPSKIT_SANITIZED
  WARN("skipped: AddressSanitizer's shadow memory and quarantine are not the server's");
#else
  KstatServe serve({});
  for (int i = 0; i < 50; ++i)
    REQUIRE(http_get(serve.url()).status == 200);
  long peak = status_kib(serve.pid(), "VmHWM");
  CHECK(peak > 0);
  CHECK(peak < 10 * 1024);
  // kstat-serve takes libstdc++ and yaml-cpp from their static archives: a link that brings in
  // the shared ones costs 1.9 MB resident (8.0 -> 9.9 MiB after 2,000 scrapes).
  std::ifstream maps("/proc/" + std::to_string(serve.pid()) + "/maps");
  std::string shared;
  for (std::string line; std::getline(maps, line);)
    if (line.find("libstdc++.so") != std::string::npos ||
        line.find("libyaml-cpp.so") != std::string::npos)
      shared += line + "\n";
  CHECK(shared.empty());
  CHECK(serve.stop(SIGINT) == 0);
#endif
}

TEST_CASE("kstat serve: its own CPU, memory, descriptors, start and version, under the names "
          "every exporter serves them",
          "[kstat][serve]") {
  auto before = std::chrono::system_clock::now();
  KstatServe serve({"kern.loadavg"});
  auto after = std::chrono::system_clock::now();
  for (int i = 0; i < 20; ++i)
    REQUIRE(http_get(serve.url()).status == 200);
  auto body = http_get(serve.url()).body;
  auto got = samples(body);
  std::string proc = "/proc/" + std::to_string(serve.pid());
  CHECK(got[std::string("kstat_build_info{version=\"") + opskit::k_version + "\"}"] == 1);
  CHECK(got["process_cpu_seconds_total"] > 0);
  CHECK(got["process_cpu_seconds_total"] < 60);
  // Resident memory as /proc/PID/status tells it, within what the scrapes between move it.
  double rss = static_cast<double>(status_kib(serve.pid(), "VmRSS")) * 1024;
  CHECK(got["process_resident_memory_bytes"] > rss / 2);
  CHECK(got["process_resident_memory_bytes"] < rss * 2);
  CHECK(got["process_virtual_memory_bytes"] > got["process_resident_memory_bytes"]);
  // Its descriptors: the source files, the listening socket, the connection.
  auto fds = std::distance(std::filesystem::directory_iterator(proc + "/fd"), {});
  CHECK(std::abs(got["process_open_fds"] - static_cast<double>(fds)) <= 2);
  std::ifstream limits(proc + "/limits");
  double soft = 0;
  for (std::string line; std::getline(limits, line);)
    if (line.starts_with("Max open files"))
      soft = std::stod(line.substr(26));
  CHECK(got["process_max_fds"] == soft);
  auto seconds = [](auto t) { return std::chrono::duration<double>(t.time_since_epoch()).count(); };
  CHECK(got["process_start_time_seconds"] >= seconds(before) - 1);
  CHECK(got["process_start_time_seconds"] <= seconds(after) + 1);
  auto check = promtool_check(body);
  CHECK(check.out + check.err == "");
  CHECK(serve.stop() == 0);
}

TEST_CASE("kstat serve: resolving again and again does not grow it", "[kstat][serve]") {
#ifdef OPSKIT_SANITIZED
  WARN("skipped: AddressSanitizer's allocator is not the server's");
#else
  // A CPU that comes and goes makes every scrape resolve the names again, as a minute does
  // (/proc/stat's lines hold kern.* too); a disk that comes and goes, every other one find the
  // disks' names anew. Two scrapes at once take both server threads. Each resolve frees a
  // snapshot and its families.
  TempDir root;
  std::filesystem::copy(k_data, root.path(), std::filesystem::copy_options::recursive);
  auto disks = opskit::read_file(root / "diskstats");
  auto stat = opskit::read_file(root / "stat");
  REQUIRE(disks);
  REQUIRE(stat);
  KstatServe serve({"--proc-root", root.path()});
  REQUIRE(http_get(serve.url()).status == 200);
  long first = status_kib(serve.pid(), "VmRSS");
  for (int i = 0; i < 60; ++i) {
    std::ofstream(root / "stat") << (i % 2 == 0 ? "cpu2 1 0 1 1 0 0 0 0 0 0\n" : "") << *stat;
    std::ofstream(root / "diskstats")
        << *disks << (i % 4 < 2 ? "   8 400 sdz 42 0 336 10 0 0 0 0 0 10 10 0 0 0 0 0 0\n" : "");
    auto other = std::async(std::launch::async, [&] { return http_get(serve.url()).status; });
    REQUIRE(http_get(serve.url()).status == 200);
    REQUIRE(other.get() == 200);
  }
  // One malloc arena for the threads, trimmed after each resolve: +0.2 MiB here; with an arena
  // a thread and no trim, +1.3 MiB, and 8.5 -> 13 MiB over four resolves of the live defaults.
  CHECK(status_kib(serve.pid(), "VmRSS") - first < 768);
  CHECK(serve.stop(SIGINT) == 0);
#endif
}

TEST_CASE("kstat serve: a disk that appears is served from the next scrape on", "[kstat][serve]") {
  TempDir root;
  std::filesystem::copy(k_data, root.path(), std::filesystem::copy_options::recursive);
  KstatServe serve({"--proc-root", root.path(), "disk"});
  const std::string added = "kstat_disk_reads_completed_total{device=\"sdz\"} 42\n";
  REQUIRE(http_get(serve.url()).body.find("device=\"vda\"") != std::string::npos);
  CHECK(http_get(serve.url()).body.find(added) == std::string::npos);
  std::ofstream(root / "diskstats", std::ios::app)
      << "   8     400 sdz 42 0 336 10 0 0 0 0 0 10 10 0 0 0 0 0 0\n";
  CHECK(http_get(serve.url()).body.find(added) != std::string::npos);
}

TEST_CASE("kstat serve: a file system mounted is served from the next scrape on, and one "
          "unmounted is gone",
          "[kstat][serve]") {
  // In a mount namespace of the test's own, which the server starts in: nothing else sees it.
  opskit::test::enter_own_mount_namespace();
  TempDir point;
  KstatServe serve({"fs.mount"});
  const std::string size =
      "kstat_filesystem_size_bytes{mountpoint=\"" + point.path() + "\",device=\"scratch\"";
  REQUIRE(http_get(serve.url()).body.find("mountpoint=\"/\"") != std::string::npos);
  CHECK(http_get(serve.url()).body.find(size) == std::string::npos);
  REQUIRE(::mount("scratch", point.path().c_str(), "tmpfs", 0, "size=4m") == 0);
  CHECK(http_get(serve.url()).body.find(size + ",fstype=\"tmpfs\"} 4194304\n") !=
        std::string::npos);
  REQUIRE(::umount(point.path().c_str()) == 0);
  auto body = http_get(serve.url()).body;
  CHECK(body.find(size) == std::string::npos);
  CHECK(body.find("kstat_scrape_error") == std::string::npos);
}

TEST_CASE("kstat serve: a cgroup made is served from the next scrape on, and one removed is gone",
          "[kstat][serve]") {
  // The machine's cgroup v2 hierarchy mounted at fs/cgroup of a /sys of the test's own, in a
  // mount namespace of its own, which the server starts in: nothing else sees the mount.
  opskit::test::enter_own_mount_namespace();
  TempDir sys;
  const auto hierarchy = sys / "fs/cgroup";
  std::filesystem::create_directories(hierarchy);
  REQUIRE(::mount("cgroup2", hierarchy.c_str(), "cgroup2", 0, nullptr) == 0);
  struct Cleanup { // before the temporary directory is removed: none of it is under the mount
    std::string hierarchy, group;
    ~Cleanup() {
      ::rmdir((group + "/job.scope").c_str());
      ::rmdir(group.c_str());
      ::umount2(hierarchy.c_str(), MNT_DETACH);
    }
  } cleanup{hierarchy, hierarchy + "/kstat-test-" + std::to_string(::getpid())};

  KstatServe serve({"--sys-root", sys.path(), "cgroup"});
  const std::string group = "/" + cleanup.group.substr(hierarchy.size() + 1);
  const std::string usage = "kstat_cgroup_cpu_usage_seconds_total{cgroup=\"" + group + "\"} ";
  const std::string job_usage =
      "kstat_cgroup_cpu_usage_seconds_total{cgroup=\"" + group + "/job.scope\"} ";
  REQUIRE(http_get(serve.url()).body.find("{cgroup=\"/\"}") != std::string::npos);
  CHECK(http_get(serve.url()).body.find(usage) == std::string::npos);
  REQUIRE(::mkdir(cleanup.group.c_str(), 0755) == 0);
  CHECK(http_get(serve.url()).body.find(usage) != std::string::npos);
  // One made in it: the cgroup made is watched from the scrape that found it.
  REQUIRE(::mkdir((cleanup.group + "/job.scope").c_str(), 0755) == 0);
  auto nested = http_get(serve.url()).body;
  CHECK(nested.find(job_usage) != std::string::npos);
  CHECK(nested.find(usage) != std::string::npos);
  REQUIRE(::rmdir((cleanup.group + "/job.scope").c_str()) == 0);
  REQUIRE(::rmdir(cleanup.group.c_str()) == 0);
  auto body = http_get(serve.url()).body;
  CHECK(body.find(usage) == std::string::npos);
  CHECK(body.find(job_usage) == std::string::npos);
  CHECK(body.find("{cgroup=\"/\"}") != std::string::npos);
  CHECK(body.find("kstat_scrape_error") == std::string::npos);
  CHECK(serve.err().find("warning") == std::string::npos); // a cgroup removed is no failure
  CHECK(serve.stop() == 0);
}

TEST_CASE("kstat serve: a resolve lets the old snapshot's files go before it opens the new "
          "one's",
          "[kstat][serve]") {
  // 100 cgroups of three files each under a limit of 450 open files: the 300 of a snapshot fit
  // once, not twice.
  TempDir sys;
  const std::filesystem::path hierarchy = sys / "fs/cgroup";
  std::filesystem::create_directories(hierarchy);
  std::ofstream(hierarchy / "cgroup.controllers") << "cpu memory pids\n";
  auto make_cgroup = [](const std::filesystem::path& at) {
    std::filesystem::create_directory(at);
    std::ofstream(at / "cpu.stat") << "usage_usec 7\nuser_usec 5\nsystem_usec 2\n";
    std::ofstream(at / "memory.current") << "4096\n";
    std::ofstream(at / "pids.current") << "1\n";
  };
  for (int i = 0; i < 100; ++i)
    make_cgroup(hierarchy / fmt::format("job{}.scope", i));
  KstatServe serve({"--sys-root", sys.path(), "cgroup"}, {"prlimit", "--nofile=450", "--"});
  auto before = http_get(serve.url()).body;
  CHECK(before.find("kstat_cgroup_pids_current{cgroup=\"/job99.scope\"} 1") != std::string::npos);
  CHECK(before.find("kstat_scrape_error") == std::string::npos);
  // Made whole beside the hierarchy and moved in, as mkdir(2) makes a cgroup with its files.
  make_cgroup(sys / "made.scope");
  std::filesystem::rename(sys / "made.scope", hierarchy / "made.scope");
  auto after = http_get(serve.url()).body;
  CHECK(after.find("kstat_cgroup_pids_current{cgroup=\"/made.scope\"} 1") != std::string::npos);
  CHECK(after.find("kstat_cgroup_pids_current{cgroup=\"/job99.scope\"} 1") != std::string::npos);
  CHECK(after.find("kstat_scrape_error") == std::string::npos);
  CHECK(serve.stop() == 0);
}

TEST_CASE("kstat serve: a kernel without IPv6 is served what it has by default", "[kstat][serve]") {
  TempDir root;
  std::filesystem::copy(k_data, root.path(), std::filesystem::copy_options::recursive);
  std::filesystem::remove(root / "net/snmp6");
  std::filesystem::remove(root / "net/sockstat6");
  KstatServe serve({"--proc-root", root.path()});
  auto body = http_get(serve.url()).body;
  CHECK(body.find("kstat_sockstat_tcp_inuse 12\n") != std::string::npos);
  CHECK(body.find("kstat_sockstat_tcp6_inuse") == std::string::npos);
  CHECK(body.find("snmp6") == std::string::npos); // not even as a source that failed
  // Named, an absent source is still an error.
  auto named = run(
      {tool("kstat"), "--proc-root", root.path(), "serve", "--listen", "127.0.0.1:0", "net.snmp6"});
  CHECK(named.exit_status == 1);
  CHECK(named.err.starts_with("kstat: error: unknown name 'net.snmp6'"));
}

TEST_CASE("kstat serve --defaults: the defaults beside the names given, each with its own "
          "exclusions",
          "[kstat][serve]") {
  TempDir root;
  std::filesystem::copy(k_data, root.path(), std::filesystem::copy_options::recursive);
  std::filesystem::remove(root / "net/snmp6");
  KstatServe serve({"--proc-root", root.path(), "--defaults", "--exclude", "cpu.1.*", "disk.loop0",
                    "vm.swappiness", "kern.interrupts"});
  auto body = http_get(serve.url()).body;
  CHECK(body.find("kstat_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 150\n") != std::string::npos);
  CHECK(body.find("kstat_cpu_seconds_total{cpu=\"1\"") == std::string::npos); // excluded
  CHECK(body.find("kstat_sysctl{name=\"vm.swappiness\"} ") != std::string::npos);
  // The defaults leave loop devices out, not one named beside them.
  CHECK(body.find("kstat_disk_reads_completed_total{device=\"vda\"} ") != std::string::npos);
  CHECK(body.find("kstat_disk_reads_completed_total{device=\"loop0\"} ") != std::string::npos);
  // And /proc/interrupts, named, as /proc/softirqs is not.
  CHECK(body.find("kstat_interrupts_total{irq=\"LOC\"} ") != std::string::npos);
  CHECK(body.find("kstat_softirqs_functions_total") == std::string::npos);
  CHECK(body.find("kstat_intr_total ") != std::string::npos);
  // The defaults skip net.snmp6 here; named, it is still an error.
  auto named = run({tool("kstat"), "--proc-root", root.path(), "serve", "--listen", "127.0.0.1:0",
                    "--defaults", "net.snmp6"});
  CHECK(named.exit_status == 1);
  CHECK(named.err.starts_with("kstat: error: unknown name 'net.snmp6'"));
}

TEST_CASE("kstat serve: a FIFO where a file should be is a scrape error, not a hang",
          "[kstat][serve]") {
  TempDir root;
  std::filesystem::copy(k_data, root.path(), std::filesystem::copy_options::recursive);
  std::filesystem::create_directory(root / "4242");
  std::ofstream(root / "4242/stat") << "4242 (stuck) S 1 4242 4242 0 -1 4194560 90 0 0 0 1 2 0 0 "
                                       "20 0 1 0 100 1000000 200 18446744073709551615\n";
  std::ofstream(root / "4242/status") << "Name:\tstuck\nThreads:\t1\n";
  REQUIRE(::mkfifo((root / "4242/io").c_str(), 0644) == 0);
  KstatServe serve({"--proc-root", root.path(), "proc.4242", "kern.loadavg"});
  auto reply = http_get(serve.url());
  CHECK(reply.status == 200);
  CHECK(reply.body.find("kstat_scrape_error{source=\"" + root.path() + "/4242/io\"} 1\n") !=
        std::string::npos);
  CHECK(reply.body.find("kstat_process_stat_ppid{pid=\"4242\"} 1\n") != std::string::npos);
  CHECK(reply.body.find("kstat_load1 0.81\n") != std::string::npos);
  CHECK(reply.body.find("io_rchar") == std::string::npos);
}

TEST_CASE("kstat serve: a bad --listen or name is one error line, and no server",
          "[kstat][serve]") {
  auto bad = run({tool("kstat"), "serve", "--listen", "localhost"});
  CHECK(bad.exit_status == 2);
  CHECK(bad.err == "kstat: error: --listen 'localhost': expected HOST:PORT\n");
  auto far = run({tool("kstat"), "serve", "--listen", "127.0.0.1:99999"});
  CHECK(far.exit_status == 2);
  CHECK(far.err == "kstat: error: --listen '127.0.0.1:99999': port 99999 is out of range (0 to "
                   "65535)\n");
  auto unknown = run({tool("kstat"), "serve", "--listen", "127.0.0.1:0", "vm.stat"});
  CHECK(unknown.exit_status == 1);
  CHECK(unknown.err == "kstat: error: unknown name 'vm.stat': did you mean vm.stats?\n");
  auto nothing =
      run({tool("kstat"), "serve", "--listen", "127.0.0.1:0", "--exclude", "cpu.*", "cpu"});
  CHECK(nothing.exit_status == 1);
  CHECK(nothing.err == "kstat: error: nothing to serve: the exclusions leave out every name\n");
}

TEST_CASE("kstat serve --exclude: globs leave names out, as the defaults do the statistics files",
          "[kstat][serve]") {
  // The defaults read /proc/net/dev for the interfaces, and none of their statistics files.
  KstatServe defaults({});
  auto body = http_get(defaults.url()).body;
  CHECK(body.find("kstat_network_receive_drop_total{device=\"lo\"} ") != std::string::npos);
  CHECK(body.find("kstat_network_rx_dropped_total") == std::string::npos);
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(defaults.pid()) + "/fd")) {
    std::error_code ec;
    auto target = std::filesystem::read_symlink(entry.path(), ec).string();
    CHECK_FALSE(target.starts_with("/sys/class/net/"));
  }
  // Named, net.dev has them; an exclusion of the user's leaves out what it matches, and the
  // defaults' exclusions then apply to the defaults alone.
  KstatServe named(
      {"--exclude", "net.dev.*.rx_packets", "--exclude", "*.tx_*", "net.dev", "vm.stats.pgfault"});
  auto some = http_get(named.url()).body;
  CHECK(some.find("kstat_network_rx_dropped_total{device=\"lo\"} ") != std::string::npos);
  CHECK(some.find("kstat_network_receive_bytes_total{device=\"lo\"} ") != std::string::npos);
  CHECK(some.find("kstat_network_receive_packets_total") == std::string::npos);
  CHECK(some.find("kstat_network_transmit_bytes_total") == std::string::npos);
  CHECK(some.find("kstat_vmstat_pgfault_total ") != std::string::npos);
}

TEST_CASE("kstat serve: an interface's first ARP entry is served from the next scrape on, and "
          "its last one's going takes the series away",
          "[kstat][serve]") {
  TempDir root;
  std::filesystem::copy(k_data, root.path(), std::filesystem::copy_options::recursive);
  const std::string header =
      "IP address       HW type     Flags       HW address            Mask     Device\n";
  auto entry = [](const std::string& ip, const std::string& device) {
    return ip + "        0x1         0x2         02:fc:00:00:00:05     *        " + device + "\n";
  };
  std::ofstream(root / "net/arp") << header << entry("192.0.2.1", "eth0");
  KstatServe serve({"--proc-root", root.path(), "net.arp"});
  CHECK(http_get(serve.url()).body.find("kstat_arp_entries{device=\"eth0\"} 1\n") !=
        std::string::npos);
  // The kernel lists entries in its hash's order: a new one may come first.
  std::ofstream(root / "net/arp") << header << entry("192.0.2.2", "eth1")
                                  << entry("192.0.2.1", "eth0") << entry("192.0.2.3", "eth1");
  auto body = http_get(serve.url()).body;
  CHECK(body.find("kstat_arp_entries{device=\"eth0\"} 1\n") != std::string::npos);
  CHECK(body.find("kstat_arp_entries{device=\"eth1\"} 2\n") != std::string::npos);
  std::ofstream(root / "net/arp") << header << entry("192.0.2.2", "eth1");
  body = http_get(serve.url()).body;
  CHECK(body.find("device=\"eth0\"") == std::string::npos);
  CHECK(body.find("kstat_arp_entries{device=\"eth1\"} 1\n") != std::string::npos);
  CHECK(body.find("kstat_scrape_error") == std::string::npos);
}

TEST_CASE("kstat serve: a bond made after the start is served from the next scrape, and an "
          "interface's link coming up is counted",
          "[kstat][serve]") {
  TempDir sys;
  std::filesystem::copy(std::string(OPSKIT_TEST_DATA) + "/sys-basic", sys.path(),
                        std::filesystem::copy_options::recursive);
  std::ofstream(sys / "class/net/bonding_masters") << "bond0\n";
  KstatServe serve({"--sys-root", sys.path(), "net.bonding"});
  auto body = http_get(serve.url()).body;
  CHECK(body.find("kstat_bonding_active{master=\"bond0\"} 1\n") != std::string::npos);
  CHECK(body.find("bond1") == std::string::npos);
  std::ofstream(sys / "class/net/bonding_masters") << "bond0 bond1\n";
  std::ofstream(sys / "class/net/bond0/lower_eth2/bonding_slave/mii_status") << "up\n";
  body = http_get(serve.url()).body;
  CHECK(body.find("kstat_bonding_active{master=\"bond0\"} 2\n") != std::string::npos);
  CHECK(body.find("kstat_bonding_slaves{master=\"bond1\"} 1\n") != std::string::npos);
  CHECK(body.find("kstat_scrape_error") == std::string::npos);
}

TEST_CASE("kstat serve: a name given with nothing under it yet (no md arrays) is a warning, and "
          "is served from the scrape after it comes",
          "[kstat][serve]") {
  TempDir root;
  std::filesystem::copy(k_data, root.path(), std::filesystem::copy_options::recursive);
  auto arrays = opskit::read_file(root / "mdstat");
  REQUIRE(arrays);
  std::ofstream(root / "mdstat") << "Personalities : \nunused devices: <none>\n";
  KstatServe serve({"--proc-root", root.path(), "md", "kern.loadavg"});
  CHECK(serve.err() == "kstat: warning: nothing under 'md' now: served when it comes\n");
  auto before = http_get(serve.url());
  CHECK(before.status == 200);
  CHECK(before.body.find("kstat_load1 ") != std::string::npos);
  CHECK(before.body.find("kstat_md_") == std::string::npos);
  // The arrays are assembled.
  std::ofstream(root / "mdstat") << *arrays;
  CHECK(http_get(serve.url()).body.find("kstat_md_disks_required{device=\"md1\"} 4\n") !=
        std::string::npos);
  // A typo is still an error, at the start.
  auto typo = run({tool("kstat"), "serve", "--listen", "127.0.0.1:0", "mdd"});
  CHECK(typo.exit_status == 1);
  CHECK(typo.err.starts_with("kstat: error: unknown name 'mdd'"));
}

TEST_CASE("kstat serve --textfile-directory: a file's name that HELP is made of is escaped, in "
          "UTF-8, in both formats",
          "[kstat][serve]") {
  TempDir dir;
  std::ofstream(dir / "a\nb.prom") << "newline 1\n";
  std::ofstream(dir / "latin\xff.prom") << "latin 1\n";
  std::ofstream(dir / "back\\slash \"quoted\".prom") << "backslash 1\n";
  KstatServe serve({"kern.loadavg.1", "--textfile-directory", dir.path()});
  auto text = http_get(serve.url()).body;
  auto check = promtool_check(text);
  CHECK(check.out + check.err == "");
  CHECK(check.exit_status == 0);
  const std::string from = "Metric read from " + dir.path();
  CHECK(text.find("# HELP newline " + from + "/a\\nb.prom\n") != std::string::npos);
  CHECK(text.find("# HELP latin " + from + "/latin\u00ff.prom\n") != std::string::npos);
  CHECK(text.find("# HELP backslash " + from + "/back\\\\slash \"quoted\".prom\n") !=
        std::string::npos);
  auto om = http_get(serve.url(), {"Accept: application/openmetrics-text;version=1.0.0"}).body;
  CHECK(om.find("# HELP backslash " + from + "/back\\\\slash \\\"quoted\\\".prom\n") !=
        std::string::npos);
  CHECK(om.find("# HELP newline " + from + "/a\\nb.prom\n") != std::string::npos);
  CHECK(om.find("kstat_textfile_scrape_error 0\n") != std::string::npos);
}

TEST_CASE("kstat serve --textfile-directory: a file that breaks the format is left out whole, "
          "and said why, once",
          "[kstat][serve]") {
  TempDir dir;
  std::ofstream(dir / "a_good.prom") << "# TYPE backup_runs_total counter\nbackup_runs_total 42\n"
                                        "not_a_number NaN\ninfinite +Inf\n";
  const std::pair<const char*, const char*> k_bad[] = {
      {"clash.prom", "# TYPE backup_runs_total gauge\nbackup_runs_total 1\n"},
      {"late.prom", "late_type 1\n# TYPE late_type gauge\n"},
      {"own.prom", "kstat_cpu_seconds_total 1\n"},
      {"stamped.prom", "stamped 1 1700000000000\n"},
      {"twice.prom", "# TYPE twice gauge\n# TYPE twice gauge\ntwice 1\n"},
      {"bucket.prom", "# TYPE no_le histogram\nno_le_bucket 1\n"},
      {"value.prom", "not_numeric{a=\"b\"} one\n"},
      {"nan.prom", "not_go_nan nan(1)\n"},
      {"signed_nan.prom", "signed_nan -nan\n"}, // NaN has no sign to Go's ParseFloat
      {"range.prom", "past_double 1e400\n"},    // a range error to it
      {"le.prom", "# TYPE bad_le histogram\nbad_le_bucket{le=\"abc\"} 1\n"},
      {"reordered.prom", "reordered{a=\"1\",b=\"2\"} 1\nreordered{b=\"2\",a=\"1\"} 2\n"},
      {"latin1.prom", "latin1{city=\"K\xf6ln\"} 1\n"},
      {"same.prom",
       "# TYPE backup_runs gauge\nbackup_runs 1\n"},       // backup_runs_total's, to OpenMetrics
      {"total.prom", "# TYPE _total counter\n_total 1\n"}, // no name left in OpenMetrics
      {"empty_label.prom", "empty_label{a=\"\"} 1\nempty_label 2\n"}, // one series
  };
  for (auto [file, text] : k_bad)
    std::ofstream(dir / file) << text;
  KstatServe serve({"kern.loadavg.1", "--textfile-directory", dir.path()});
  auto body = http_get(serve.url()).body;
  http_get(serve.url()); // a second scrape tells nothing new
  CHECK(body.find("# TYPE backup_runs_total counter\nbackup_runs_total 42\n") != std::string::npos);
  CHECK(body.find("\nnot_a_number NaN\n") != std::string::npos);
  CHECK(body.find("\ninfinite +Inf\n") != std::string::npos);
  for (const char* left_out :
       {"late_type", "stamped", "twice", "no_le", "not_numeric", "not_go_nan", "latin1",
        "signed_nan", "past_double", "bad_le", "reordered", "\n_total", "empty_label"})
    CHECK(body.find(left_out) == std::string::npos);
  CHECK(body.find("kstat_textfile_scrape_error 1\n") != std::string::npos);
  auto err = serve.err();
  for (auto [file, text] : k_bad) {
    std::string told = "kstat: warning: textfile " + dir.path() + "/" + file + ": ";
    INFO(err);
    CHECK(err.find(told) != std::string::npos);
    CHECK(err.find(told) == err.rfind(told)); // once
  }
  // Put right, it is served from the next scrape, and the error goes.
  for (auto [file, text] : k_bad)
    std::filesystem::remove(dir / file);
  body = http_get(serve.url()).body;
  CHECK(body.find("kstat_textfile_scrape_error 0\n") != std::string::npos);
  // A file removed is forgotten: written broken again, it is told again.
  std::ofstream(dir / "late.prom") << "late_type 1\n# TYPE late_type gauge\n";
  http_get(serve.url());
  err = serve.err();
  std::string late = "kstat: warning: textfile " + dir.path() + "/late.prom: ";
  INFO(err);
  CHECK(err.find(late) != err.rfind(late));
}
