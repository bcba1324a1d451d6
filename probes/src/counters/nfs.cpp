// SPDX-License-Identifier: MIT
//
// The NFS client's and server's RPC statistics, /proc/net/rpc/nfs and /proc/net/rpc/nfsd
// (net/sunrpc/stats.c, fs/nfsd/stats.c; what `nfsstat -c` and `nfsstat -s` show), a line each:
//
//   net <packets> <udp> <tcp> <tcp connections>   net.rpc.nfs.net.{packets,udp,tcp,tcp_connections}
//   rpc <calls> <retransmissions> <auth refreshes> net.rpc.nfs.rpc.{calls,retransmissions,...}
//   proc3 <N> <count> ...                          net.rpc.nfs.v3.<procedure>
//
// A procN line counts the calls of each procedure of NFS version N, its first number how many
// procedures follow, in the order of the protocol's procedure numbers. The procedures are named
// as node_exporter's nfs collector names them (its method label); a kernel's procedures past
// those named are left out, as there.
//
// The server's file adds its reply cache (rc), stale file handles (fh), the bytes it read and
// wrote (io), its threads (th), the read-ahead cache of kernels before 5.4 (ra), and the RPCs it
// found bad; its rpc line is "<calls> <bad> <bad format> <bad auth> <bad client>". proc4 counts
// NFSv4's two procedures, NULL and COMPOUND, and proc4ops the operations inside the compounds,
// by operation number (RFC 7530, 8881, 7862): net.rpc.nfsd.v4ops.<Operation>.

#include <array>
#include <span>

#include <fmt/format.h>

#include "emitter.hpp"

namespace opskit::counters {

namespace {

constexpr std::string_view k_v2[] = {"Null", "GetAttr", "SetAttr", "Root",   "Lookup",  "ReadLink",
                                     "Read", "WrCache", "Write",   "Create", "Remove",  "Rename",
                                     "Link", "SymLink", "MkDir",   "RmDir",  "ReadDir", "FsStat"};
constexpr std::string_view k_v3[] = {
    "Null",    "GetAttr",     "SetAttr", "Lookup", "Access",   "ReadLink", "Read",   "Write",
    "Create",  "MkDir",       "SymLink", "MkNod",  "Remove",   "RmDir",    "Rename", "Link",
    "ReadDir", "ReadDirPlus", "FsStat",  "FsInfo", "PathConf", "Commit"};
constexpr std::string_view k_v4[] = {"Null",
                                     "Read",
                                     "Write",
                                     "Commit",
                                     "Open",
                                     "OpenConfirm",
                                     "OpenNoattr",
                                     "OpenDowngrade",
                                     "Close",
                                     "Setattr",
                                     "FsInfo",
                                     "Renew",
                                     "SetClientID",
                                     "SetClientIDConfirm",
                                     "Lock",
                                     "Lockt",
                                     "Locku",
                                     "Access",
                                     "Getattr",
                                     "Lookup",
                                     "LookupRoot",
                                     "Remove",
                                     "Rename",
                                     "Link",
                                     "Symlink",
                                     "Create",
                                     "Pathconf",
                                     "StatFs",
                                     "ReadLink",
                                     "ReadDir",
                                     "ServerCaps",
                                     "DelegReturn",
                                     "GetACL",
                                     "SetACL",
                                     "FsLocations",
                                     "ReleaseLockowner",
                                     "Secinfo",
                                     "FsidPresent",
                                     "ExchangeID",
                                     "CreateSession",
                                     "DestroySession",
                                     "Sequence",
                                     "GetLeaseTime",
                                     "ReclaimComplete",
                                     "LayoutGet",
                                     "GetDeviceInfo",
                                     "LayoutCommit",
                                     "LayoutReturn",
                                     "SecinfoNoName",
                                     "TestStateID",
                                     "FreeStateID",
                                     "GetDeviceList",
                                     "BindConnToSession",
                                     "DestroyClientID",
                                     "Seek",
                                     "Allocate",
                                     "DeAllocate",
                                     "LayoutStats",
                                     "Clone"};

struct Column {
  std::string_view name, unit, description;
};
constexpr Column k_net[] = {
    {"packets", "packets", "Packets the NFS client's RPC layer received"},
    {"udp", "packets", "Packets the NFS client's RPC layer received over UDP"},
    {"tcp", "packets", "Packets the NFS client's RPC layer received over TCP"},
    {"tcp_connections", "connections", "TCP connections the NFS client made"},
};
constexpr Column k_rpc[] = {
    {"calls", "calls", "RPC calls the NFS client made"},
    {"retransmissions", "calls", "RPC calls the NFS client sent again, unanswered in time"},
    {"auth_refreshes", "refreshes", "RPC credentials the NFS client refreshed"},
};

// The server's: its operations of NFSv4 by number; "" for the numbers no operation has.
constexpr std::string_view k_v4_ops[] = {"",
                                         "",
                                         "",
                                         "Access",
                                         "Close",
                                         "Commit",
                                         "Create",
                                         "DelegPurge",
                                         "DelegReturn",
                                         "GetAttr",
                                         "GetFH",
                                         "Link",
                                         "Lock",
                                         "Lockt",
                                         "Locku",
                                         "Lookup",
                                         "LookupRoot",
                                         "Nverify",
                                         "Open",
                                         "OpenAttr",
                                         "OpenConfirm",
                                         "OpenDgrd",
                                         "PutFH",
                                         "PutPubFH",
                                         "PutRootFH",
                                         "Read",
                                         "ReadDir",
                                         "ReadLink",
                                         "Remove",
                                         "Rename",
                                         "Renew",
                                         "RestoreFH",
                                         "SaveFH",
                                         "SecInfo",
                                         "SetAttr",
                                         "SetClientID",
                                         "SetClientIDConfirm",
                                         "Verify",
                                         "Write",
                                         "RelLockOwner",
                                         "BackchannelCtl",
                                         "BindConnToSession",
                                         "ExchangeID",
                                         "CreateSession",
                                         "DestroySession",
                                         "FreeStateID",
                                         "GetDirDelegation",
                                         "GetDeviceInfo",
                                         "GetDeviceList",
                                         "LayoutCommit",
                                         "LayoutGet",
                                         "LayoutReturn",
                                         "SecInfoNoName",
                                         "Sequence",
                                         "SetSSV",
                                         "TestStateID",
                                         "WantDelegation",
                                         "DestroyClientID",
                                         "ReclaimComplete",
                                         "Allocate",
                                         "Copy",
                                         "CopyNotify",
                                         "DeAllocate",
                                         "IOAdvise",
                                         "LayoutError",
                                         "LayoutStats",
                                         "OffloadCancel",
                                         "OffloadStatus",
                                         "ReadPlus",
                                         "Seek",
                                         "WriteSame",
                                         "Clone",
                                         "GetXattr",
                                         "SetXattr",
                                         "ListXattrs",
                                         "RemoveXattr"};
constexpr std::string_view k_v4_server[] = {"Null", "Compound"};

constexpr Column k_rc[] = {
    {"hits", "requests", "Requests the NFS server answered from its reply cache"},
    {"misses", "requests", "Requests the NFS server's reply cache did not hold"},
    {"nocache", "requests", "Requests the NFS server does not cache the reply of"},
};
constexpr Column k_fh[] = {
    {"stale", "requests", "Requests the NFS server answered that a file handle was stale"},
};
constexpr Column k_io[] = {
    {"read", "bytes", "Bytes the NFS server read from its disks"},
    {"write", "bytes", "Bytes the NFS server wrote to its disks"},
};
constexpr Column k_server_net[] = {
    {"packets", "packets", "Packets the NFS server's RPC layer received"},
    {"udp", "packets", "Packets the NFS server's RPC layer received over UDP"},
    {"tcp", "packets", "Packets the NFS server's RPC layer received over TCP"},
    {"tcp_connections", "connections", "TCP connections the NFS server accepted"},
};
constexpr Column k_server_rpc[] = {
    {"calls", "calls", "RPC calls the NFS server received"},
    {"bad", "calls", "RPC calls the NFS server rejected, in all"},
    {"bad_format", "calls", "RPC calls the NFS server could not decode"},
    {"bad_auth", "calls", "RPC calls the NFS server rejected for their credentials"},
    {"bad_client", "calls", "RPC calls from clients the NFS server does not serve"},
};

void emit_counts(const Record& r, std::string_view base, std::span<const Column> columns,
                 Emitter& e, Kind kind = Kind::counter) {
  for (std::size_t i = 0; i < columns.size() && i < r.tokens.size(); ++i) {
    std::string name = fmt::format("{}.{}", base, columns[i].name);
    if (Info* info = e.emit(name, name, kind, columns[i].unit,
                            {std::string(r.key), static_cast<int>(i), r.offset}))
      info->description = columns[i].description;
  }
}

// A line of a count of each of `names`, after the count of them ("proc4ops 72 0 0 ..."):
// <base>.<name>, a name "" left out.
void emit_named_counts(const Record& r, const std::string& base, std::string_view pattern,
                       std::span<const std::string_view> names, std::string_view what, Emitter& e) {
  for (std::size_t i = 0; i < names.size() && i + 1 < r.tokens.size(); ++i) {
    if (names[i].empty())
      continue;
    std::string name = fmt::format("{}.{}", base, names[i]);
    if (Info* info = e.emit(name, pattern, Kind::counter, "calls",
                            {std::string(r.key), static_cast<int>(i + 1), r.offset}))
      info->description = fmt::format(fmt::runtime(what), names[i]);
  }
}

} // namespace

void enumerate_nfs(const Record& r, std::string_view base, Emitter& e) {
  if (r.key == "net")
    return emit_counts(r, fmt::format("{}.net", base), k_net, e);
  if (r.key == "rpc")
    return emit_counts(r, fmt::format("{}.rpc", base), k_rpc, e);
  std::span<const std::string_view> procedures;
  if (r.key == "proc2")
    procedures = k_v2;
  else if (r.key == "proc3")
    procedures = k_v3;
  else if (r.key == "proc4")
    procedures = k_v4;
  else
    return;
  std::string_view version = r.key.substr(4);
  emit_named_counts(r, fmt::format("{}.v{}", base, version),
                    fmt::format("net.rpc.nfs.v{}.*", version), procedures,
                    fmt::format("NFSv{} {{}} calls the client made", version), e);
}

void enumerate_nfsd(const Record& r, std::string_view base, Emitter& e) {
  if (r.key == "rc")
    return emit_counts(r, fmt::format("{}.rc", base), k_rc, e);
  if (r.key == "fh")
    return emit_counts(r, fmt::format("{}.fh", base), k_fh, e);
  if (r.key == "io")
    return emit_counts(r, fmt::format("{}.io", base), k_io, e);
  if (r.key == "net")
    return emit_counts(r, fmt::format("{}.net", base), k_server_net, e);
  if (r.key == "rpc")
    return emit_counts(r, fmt::format("{}.rpc", base), k_server_rpc, e);
  if (r.key == "th") {
    static constexpr Column k_threads[] = {{"threads", "threads", "The NFS server's threads"}};
    return emit_counts(r, fmt::format("{}.th", base), k_threads, e, Kind::gauge);
  }
  if (r.key == "ra" && r.tokens.size() >= 12) { // kernels before 5.4
    emit_counts(r, fmt::format("{}.ra", base),
                std::array<Column, 1>{{{"size", "blocks", "Size of the read-ahead cache"}}}, e,
                Kind::gauge);
    std::string name = fmt::format("{}.ra.not_found", base);
    if (Info* info = e.emit(name, name, Kind::counter, "lookups", {"ra", 11, r.offset}))
      info->description = "Lookups the read-ahead cache did not find the file in";
    return;
  }
  if (r.key == "proc2")
    return emit_named_counts(r, fmt::format("{}.v2", base), "net.rpc.nfsd.v2.*", k_v2,
                             "NFSv2 {} calls the server answered", e);
  if (r.key == "proc3")
    return emit_named_counts(r, fmt::format("{}.v3", base), "net.rpc.nfsd.v3.*", k_v3,
                             "NFSv3 {} calls the server answered", e);
  if (r.key == "proc4")
    return emit_named_counts(r, fmt::format("{}.v4", base), "net.rpc.nfsd.v4.*", k_v4_server,
                             "NFSv4 {} calls the server answered", e);
  if (r.key == "proc4ops")
    return emit_named_counts(r, fmt::format("{}.v4ops", base), "net.rpc.nfsd.v4ops.*", k_v4_ops,
                             "NFSv4 {} operations the server ran", e);
}

} // namespace opskit::counters
