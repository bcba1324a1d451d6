// SPDX-License-Identifier: MIT
//
// kstat against /proc files as large as a busy host's, read as the kernel gives a seq_file: a
// page of whole records a read (paged_proc.cpp, a FUSE file system mounted as the --proc-root).
// A short read is then the end of a page, not of the file: what comes after it must be read.

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include <fmt/format.h>

#include "mount_namespace.hpp"
#include "process.hpp"
#include "serve.hpp"
#include "skip.hpp"
#include "temp_dir.hpp"

using namespace opskit::test;

namespace {

// The files of `source` served paged at `proc` until destroyed, then unmounted and stopped by
// its pid; mounted in a mount namespace of the test's own, which the programs it starts share.
class PagedProc {
public:
  PagedProc(const std::filesystem::path& source, const std::filesystem::path& proc) : proc_(proc) {
    enter_own_mount_namespace();
    std::filesystem::create_directories(proc);
    pid_ = spawn_quiet({PAGED_PROC, source, proc});
    for (int i = 0; i < 400 && std::filesystem::is_empty(proc); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    REQUIRE_FALSE(std::filesystem::is_empty(proc));
  }
  PagedProc(const PagedProc&) = delete;
  PagedProc& operator=(const PagedProc&) = delete;
  ~PagedProc() {
    ::umount2(proc_.c_str(), MNT_DETACH);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }

private:
  std::filesystem::path proc_;
  int pid_ = -1;
};

// 60 arrays of 12 disks without a bitmap, each ending in the kernel's line of six blanks: 12
// KiB, in records of 201 bytes that fill a page but for 52 bytes.
std::string many_arrays() {
  std::string text = "Personalities : [raid6]\n";
  for (int i = 0; i < 60; ++i) {
    text += fmt::format("md{:02} : active raid6", i);
    for (int d = 0; d < 12; ++d)
      text += fmt::format(" sd{:03}[{:02}]", i * 12 + d, d);
    text += "\n      1046535 blocks super 1.2 [12/12] [UUUUUUUUUUUU]\n      \n";
  }
  return text + "unused devices: <none>\n";
}

// 40 virtual servers of 8 real servers each, as kube-proxy's IPVS mode makes them: 20 KiB.
std::string many_services() {
  std::string text = "IP Virtual Server version 1.2.1 (size=4096)\n"
                     "Prot LocalAddress:Port Scheduler Flags\n"
                     "  -> RemoteAddress:Port Forward Weight ActiveConn InActConn\n";
  for (int s = 0; s < 40; ++s) {
    text += fmt::format("TCP  0A60{:04X}:01BB rr \n", s);
    for (int r = 0; r < 8; ++r)
      text += fmt::format("  -> 0A01{:02X}{:02X}:20FB      Masq    1      {}          3         \n",
                          s, r, r);
  }
  return text;
}

} // namespace

TEST_CASE("kstat: /proc/mdstat and /proc/net/ip_vs read a page at a time are read to their end",
          "[kstat][md][ipvs]") {
  if (!std::filesystem::exists("/dev/fuse") || ::geteuid() != 0)
    OPSKIT_SKIP("needs /dev/fuse and root to mount a FUSE file system");
  TempDir dir;
  std::filesystem::create_directories(dir / "source");
  std::ofstream(dir / "source/mdstat") << many_arrays();
  std::ofstream(dir / "source/ip_vs") << many_services();
  PagedProc paged(dir / "source", dir / "paged");
  // --proc-root's net/ip_vs: the paged files' directory seen as <proc>/net too.
  std::filesystem::create_directories(dir / "proc");
  std::filesystem::create_directory_symlink(dir / "paged", dir / "proc/net");
  std::filesystem::create_symlink(dir / "paged/mdstat", dir / "proc/mdstat");

  auto md = run({tool("kstat"), "--proc-root", dir / "proc", "read", "--prometheus", "md"});
  REQUIRE(md.exit_status == 0);
  std::size_t arrays = 0;
  for (const auto& [series, value] : samples(md.out))
    arrays += series.starts_with("kstat_md_disks_required{") && value == 12;
  CHECK(arrays == 60);
  CHECK(md.out.find("kstat_md_blocks{device=\"md59\"} 1046535\n") != std::string::npos);

  auto ipvs = run({tool("kstat"), "--proc-root", dir / "proc", "read", "--prometheus", "net.ipvs"});
  REQUIRE(ipvs.exit_status == 0);
  std::size_t backends = 0;
  for (const auto& [series, value] : samples(ipvs.out))
    backends += series.starts_with("kstat_ipvs_backend_weight{");
  CHECK(backends == 40 * 8);
  CHECK(
      ipvs.out.find(R"(local_address="10.96.0.39",local_port="443",remote_address="10.1.39.7")") !=
      std::string::npos);
}
