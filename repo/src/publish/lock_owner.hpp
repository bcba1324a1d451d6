// SPDX-License-Identifier: MIT
#pragma once

// Who holds a target's lock, told well enough that a publisher on the same machine can prove
// the holder dead and take the lock at once, where any other must wait for it to expire: the
// kernel's boot id (random at each boot, so a pid of another boot or another machine never
// passes for one of this), the pid namespace (containers on one kernel share the boot id, not
// their pids), the pid, and the process's start time (field 22 of /proc/<pid>/stat, in clock
// ticks since boot), which tells a reused pid apart. Not installed.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace opskit::repo::publish {

struct LockOwner {
  std::string boot_id, pid_namespace;
  long pid = 0;
  std::uint64_t started = 0;
};

// This process; what cannot be read is left empty, and such an owner is never proved dead.
LockOwner this_process();
// True only when `owner` ran on this kernel, in this pid namespace, and its process is gone:
// no such pid, or one that started at another time. Another machine, another container, or a
// field missing or unreadable: false.
bool provably_dead(const LockOwner& owner);

// The owner's fields, as the lock object holds them beside its token and expiry.
void add_to(nlohmann::json& lock, const LockOwner& owner);
// The owner a lock object names; fields missing or of another type read as empty.
LockOwner owner_of(const nlohmann::json& lock);

} // namespace opskit::repo::publish
