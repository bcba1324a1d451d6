// SPDX-License-Identifier: MIT
#pragma once

// A /proc and /sys of the fuzz targets' own, made once in /dev/shm (or the temporary
// directory): the kstat targets write their input into its files and read the namespace from
// it, the way `kstat --proc-root` reads a copy of another machine's /proc.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

#include "fuzz_input.hpp"

namespace opskit::fuzz {

// The /proc files of the kstat_proc and kstat_namespace targets, in the order the first byte
// of their input chooses them (tests/fuzz/make-seeds writes the seeds in this order), each with
// a short text that kstat lists names from.
struct ProcFile {
  std::string_view path; // below the proc root
  std::string_view sample;
};
inline constexpr ProcFile k_proc_files[] = {
    {"vmstat", "pgfault 1\n"},
    {"meminfo", "MemTotal: 1 kB\n"},
    {"stat", "cpu 1 2 3 4\nctxt 1\n"},
    {"loadavg", "0.1 0.2 0.3 1/2 3\n"},
    {"pressure/cpu", "some avg10=1 total=2\n"},
    {"pressure/io", "some avg10=1 total=2\n"},
    {"softirqs", "CPU0\nTIMER: 1\n"},
    {"interrupts", "CPU0\n0: 1 IO-APIC\n"},
    {"sys/fs/file-nr", "1 0 2\n"},
    {"net/snmp", "Ip: Forwarding\nIp: 1\n"},
    {"net/netstat", "TcpExt: SyncookiesSent\nTcpExt: 0\n"},
    {"net/snmp6", "Ip6InReceives 1\n"},
    {"net/dev", "h\nh\nlo: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"},
    {"diskstats", "8 0 sda 1 2\n"},
    {"self/stat", "1 (x) S 0\n"},
    {"self/status", "Name: x\nVmRSS: 1 kB\n"},
    {"self/io", "rchar: 1\n"},
    {"self/mountinfo", "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"},
    {"net/sockstat", "TCP: inuse 1 mem 2\n"},
    {"net/sockstat6", "TCP6: inuse 1\n"},
    {"net/softnet_stat", "00000001 00000000 00000000 00000000 00000000 00000000 00000000 "
                         "00000000 00000000 00000000 00000000 00000000 00000000\n"},
    {"mdstat", "md0 : active raid1 sdb1[1] sda1[0]\n      1024 blocks [2/2] [UU]\n"},
    {"net/stat/nf_conntrack", "entries found drop\n00000001 00000002 00000003\n"},
    {"net/arp", "IP address HW type Flags HW address Mask Device\n"
                "192.0.2.1 0x1 0x2 02:fc:00:00:00:05 * eth0\n"},
    {"net/udp", "sl local_address rem_address st tx_queue rx_queue tr\n"
                "1: 0100007F:0035 00000000:0000 07 00000000:00000A00 00:00000000\n"},
    {"schedstat", "version 15\ncpu0 0 0 0 0 0 0 1 2 3\n"},
    {"net/rpc/nfs", "net 1 0 1 1\nrpc 2 0 2\nproc3 22 0 1\n"},
    {"net/ip_vs", "TCP  0A000001:0050 rr\n  -> 0A000002:0050      Masq    1      3          1\n"},
    {"net/ip_vs_stats", "Conns\nPackets\n     2F1   1A2B3C        0          7D4E2F1         0\n"},
    {"net/rpc/nfsd", "rc 0 1 2\nth 8 0 0.000\nrpc 1 0 0 0 0\nproc4ops 4 0 0 0 1\n"},
    {"spl/kstat/zfs/arcstats", "12 1 0x01 1 40 1 2\nname type data\nhits 4 1\n"},
    {"spl/kstat/zfs/tank/state", "ONLINE\n"},
    {"spl/kstat/zfs/tank/io", "1 3 0x00 1 80 1 2\nnread nwritten\n1 2\n"}};

class KstatTree {
public:
  KstatTree() {
    auto base = base_directory() / ("opskit-fuzz-kstat-" + std::to_string(::getpid()));
    proc_ = (base / "proc").string();
    sys_ = (base / "sys").string();
    std::filesystem::create_directories(proc_);
    std::filesystem::create_directories(sys_);
  }
  ~KstatTree() {
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(proc_).parent_path(), ec);
  }
  KstatTree(const KstatTree&) = delete;
  KstatTree& operator=(const KstatTree&) = delete;

  // Writes `text` to `relative` below the proc root, its directories made as needed.
  void write(std::string_view relative, std::string_view text) const {
    auto path = std::filesystem::path(proc_) / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    check(out.good(), "cannot write the fuzz tree");
  }
  // Removes `relative` below the proc root, if it is there.
  void remove(std::string_view relative) const {
    std::error_code ec;
    std::filesystem::remove(std::filesystem::path(proc_) / relative, ec);
  }

  const std::string& proc() const noexcept { return proc_; }
  const std::string& sys() const noexcept { return sys_; }

private:
  // /dev/shm where there is one: ext4 writes a file truncated and rewritten out to the disk when
  // it is closed, and that was most of kstat_sysctl's time.
  static std::filesystem::path base_directory() {
    std::error_code ec;
    if (std::filesystem::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0)
      return "/dev/shm";
    return std::filesystem::temp_directory_path();
  }

  std::string proc_, sys_;
};

} // namespace opskit::fuzz
