// SPDX-License-Identifier: MIT
#pragma once

// The baseline of kstat's scrape ratios, shared by kstat_bench (in process) and
// kstat_serve_floor (in a server): one pread at offset 0 of each file a snapshot reads. A
// /proc/sys value is asked for with kstat's 256 bytes (for it the kernel allocates and zeroes as
// much as is asked), any other file with room for all of it. A mount point (fs.mount) is one
// statvfs(3) of its path, as kstat reads it, kern.timex one adjtimex(2), and net.link one
// rtnetlink dump of the links, received whole (RTM_GETLINK, as kstat asks for it).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/timex.h>
#include <unistd.h>

#include "opskit/handle.hpp"
#include "opskit/probes/counters.hpp"

namespace opskit::bench {

inline constexpr std::size_t k_read_room = 65536;

struct SourceFile {
  UniqueFd fd;
  std::size_t size;   // what a read asks for
  std::string mount;  // a mount point's path, for its statvfs; else empty
  bool timex = false; // adjtimex(2), no file
  bool links = false; // a dump over the netlink socket `fd`
};

// One dump of the links on `fd`: the request, then receives until the kernel says it is done.
inline void dump_links(int fd, std::span<char> buffer) {
  struct {
    nlmsghdr header;
    ifinfomsg info;
    rtattr mask_attribute;
    std::uint32_t mask;
  } ask{};
  ask.header.nlmsg_len = sizeof ask;
  ask.header.nlmsg_type = RTM_GETLINK;
  ask.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  ask.mask_attribute.rta_len = sizeof ask.mask_attribute + sizeof ask.mask;
  ask.mask_attribute.rta_type = IFLA_EXT_MASK;
  ask.mask = RTEXT_FILTER_SKIP_STATS;
  if (::send(fd, &ask, sizeof ask, 0) < 0)
    std::perror("send");
  for (bool done = false; !done;) {
    ssize_t n = ::recv(fd, buffer.data(), buffer.size(), 0);
    if (n <= 0) {
      std::perror("recv");
      return;
    }
    for (auto at = static_cast<std::size_t>(0);
         at + sizeof(nlmsghdr) <= static_cast<std::size_t>(n);) {
      nlmsghdr header;
      std::memcpy(&header, buffer.data() + at, sizeof header);
      done = done || header.nlmsg_type == NLMSG_DONE || header.nlmsg_type == NLMSG_ERROR;
      at += (header.nlmsg_len + 3u) & ~3u;
      if (header.nlmsg_len < sizeof header)
        break;
    }
  }
}

inline std::vector<SourceFile> open_sources(const counters::Snapshot& snapshot) {
  std::vector<SourceFile> files;
  for (const auto& path : snapshot.source_paths()) {
    if (path == counters::k_timex_source) {
      files.push_back({UniqueFd(), 0, std::string(), true});
      continue;
    }
    if (path == counters::k_links_source) {
      UniqueFd netlink(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
      files.push_back({std::move(netlink), 0, std::string(), false, true});
      continue;
    }
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st {};
    bool mount = fd && ::fstat(fd.get(), &st) == 0 && S_ISDIR(st.st_mode);
    files.push_back({std::move(fd), path.starts_with("/proc/sys/") ? std::size_t{256} : k_read_room,
                     mount ? path : std::string()});
  }
  return files;
}

// One pread of each file into `buffer` (k_read_room bytes at least); the bytes read, in all.
inline std::size_t read_sources(const std::vector<SourceFile>& files, std::span<char> buffer) {
  std::size_t total = 0;
  for (const auto& file : files) {
    if (file.links) {
      dump_links(file.fd.get(), buffer);
      continue;
    }
    if (file.timex) {
      struct timex tx {};
      if (::adjtimex(&tx) < 0)
        std::perror("adjtimex");
      continue;
    }
    if (!file.mount.empty()) {
      struct statvfs st {};
      if (::statvfs(file.mount.c_str(), &st) != 0)
        std::perror("statvfs");
      continue;
    }
    ssize_t n = ::pread(file.fd.get(), buffer.data(), file.size, 0);
    if (n < 0)
      std::perror("pread");
    else
      total += static_cast<std::size_t>(n);
  }
  return total;
}

} // namespace opskit::bench
