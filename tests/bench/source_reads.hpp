// SPDX-License-Identifier: MIT
#pragma once

// The baseline of kstat's scrape ratios, shared by kstat_bench (in process) and
// kstat_serve_floor (in a server): one pread at offset 0 of each file a snapshot reads. A
// /proc/sys value is asked for with kstat's 256 bytes (for it the kernel allocates and zeroes as
// much as is asked), any other file with room for all of it. A mount point (fs.mount) is one
// statvfs(3) of its path, as kstat reads it, kern.timex one adjtimex(2), and net.link one
// rtnetlink dump of the links, received whole, and an ethtool ioctl for the speed of each
// interface that has link settings (kstat asks no more of one that answered it has none), made
// by kstat's own calls. A file that is not there is one kstat asks once whether it is
// (kern.selinux.enabled): none.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <fcntl.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/timex.h>
#include <unistd.h>

#include "opskit/handle.hpp"
#include "opskit/probes/counters.hpp"
#include "reader.hpp"

namespace opskit::bench {

inline constexpr std::size_t k_read_room = 65536;

struct SourceFile {
  UniqueFd fd;
  std::size_t size;                         // what a read asks for
  std::string mount;                        // a mount point's path, for its statvfs; else empty
  bool timex = false;                       // adjtimex(2), no file
  bool links = false;                       // a dump over the netlink socket `fd`
  std::vector<std::string> interfaces = {}; // the links with settings, each asked for its speed
};

// One dump of the links on `fd`, as kstat asks for it: the request, receives until the kernel
// says it is done, and each interface's speed.
inline void dump_links(const SourceFile& file, std::span<char> buffer) {
  if (!counters::detail::request_links(file.fd.get(), 1))
    std::perror("send");
  for (bool done = false; !done;) {
    ssize_t n = ::recv(file.fd.get(), buffer.data(), buffer.size(), 0);
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
  for (const auto& name : file.interfaces)
    counters::detail::link_settings(file.fd.get(), name);
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
      std::vector<std::string> interfaces;
      if (struct if_nameindex* names = ::if_nameindex()) {
        for (auto* at = names; at->if_index != 0; ++at)
          if (!counters::detail::link_settings(netlink.get(), at->if_name).none)
            interfaces.emplace_back(at->if_name);
        ::if_freenameindex(names);
      }
      files.push_back({std::move(netlink), 0, std::string(), false, true, std::move(interfaces)});
      continue;
    }
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd)
      continue; // a file kstat looks up once whether it is there (SELinux's enforce): no read
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
      dump_links(file, buffer);
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
