// SPDX-License-Identifier: MIT
//
// The NFS client's RPC statistics, /proc/net/rpc/nfs (net/sunrpc/stats.c; what `nfsstat -c`
// shows), a line each:
//
//   net <packets> <udp> <tcp> <tcp connections>   net.rpc.nfs.net.{packets,udp,tcp,tcp_connections}
//   rpc <calls> <retransmissions> <auth refreshes> net.rpc.nfs.rpc.{calls,retransmissions,...}
//   proc3 <N> <count> ...                          net.rpc.nfs.v3.<procedure>
//
// A procN line counts the calls of each procedure of NFS version N, its first number how many
// procedures follow, in the order of the protocol's procedure numbers. The procedures are named
// as node_exporter's nfs collector names them (its method label); a kernel's procedures past
// those named are left out, as there.

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

void emit_counts(const Record& r, std::string_view base, std::span<const Column> columns,
                 Emitter& e) {
  for (std::size_t i = 0; i < columns.size() && i < r.tokens.size(); ++i) {
    std::string name = fmt::format("{}.{}", base, columns[i].name);
    if (Info* info = e.emit(name, name, Kind::counter, columns[i].unit,
                            {std::string(r.key), static_cast<int>(i), r.offset}))
      info->description = columns[i].description;
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
  // The first number is how many counts follow.
  for (std::size_t i = 0; i < procedures.size() && i + 1 < r.tokens.size(); ++i) {
    std::string name = fmt::format("{}.v{}.{}", base, version, procedures[i]);
    if (Info* info = e.emit(name, fmt::format("net.rpc.nfs.v{}.*", version), Kind::counter, "calls",
                            {std::string(r.key), static_cast<int>(i + 1), r.offset}))
      info->description = fmt::format("NFSv{} {} calls the client made", version, procedures[i]);
  }
}

} // namespace opskit::counters
