// SPDX-License-Identifier: MIT
// The owner a publish lock names, and when a publisher on this machine may prove it dead.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include "publish/lock_owner.hpp"

using namespace opskit::repo::publish;

namespace {

// This process's owner, but with the pid of a process that has exited and been reaped.
LockOwner gone_owner() {
  pid_t child = ::fork();
  if (child == 0)
    ::_exit(0);
  ::waitpid(child, nullptr, 0);
  LockOwner gone = this_process();
  gone.pid = child;
  return gone;
}

} // namespace

TEST_CASE("publish lock owner: this process is named by boot id, pid namespace, pid and start "
          "time, and is alive",
          "[publish]") {
  LockOwner self = this_process();
  CHECK(self.boot_id.size() == 36);
  CHECK(self.pid_namespace.starts_with("pid:["));
  CHECK(self.pid == ::getpid());
  CHECK(self.started > 0);
  CHECK_FALSE(provably_dead(self));
}

TEST_CASE("publish lock owner: a pid gone, or reused by a process started at another time, is "
          "dead on this machine only",
          "[publish]") {
  LockOwner gone = gone_owner();
  CHECK(provably_dead(gone));
  LockOwner reused = this_process();
  reused.started += 1;
  CHECK(provably_dead(reused));

  LockOwner other_boot = gone;
  other_boot.boot_id = "00000000-0000-0000-0000-000000000000";
  CHECK_FALSE(provably_dead(other_boot));
  LockOwner other_container = gone;
  other_container.pid_namespace = "pid:[1]";
  CHECK_FALSE(provably_dead(other_container));
  LockOwner unknown_start = gone;
  unknown_start.started = 0;
  CHECK_FALSE(provably_dead(unknown_start));
}

TEST_CASE("publish lock owner: read back from the lock object, and a lock of another publisher "
          "version names no owner that can be proved dead",
          "[publish]") {
  LockOwner gone = gone_owner();
  nlohmann::json lock = {{"owner", "builder pid 1"}, {"token", "t"}, {"expires", 1}};
  add_to(lock, gone);
  LockOwner read = owner_of(nlohmann::json::parse(lock.dump()));
  CHECK(read.boot_id == gone.boot_id);
  CHECK(read.pid_namespace == gone.pid_namespace);
  CHECK(read.pid == gone.pid);
  CHECK(read.started == gone.started);
  CHECK(provably_dead(read));

  auto old = owner_of(nlohmann::json{{"owner", "builder-7 pid 42"}, {"expires", 1}});
  CHECK(old.boot_id.empty());
  CHECK_FALSE(provably_dead(old));
  auto mistyped = owner_of(nlohmann::json{{"boot_id", 7}, {"pid", "42"}});
  CHECK(mistyped.boot_id.empty());
  CHECK(mistyped.pid == 0);
  CHECK_FALSE(provably_dead(owner_of(nlohmann::json("not an object"))));
}
