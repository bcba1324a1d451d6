// SPDX-License-Identifier: MIT
#pragma once

#include <catch2/catch.hpp>

#include <sched.h>
#include <sys/mount.h>

namespace opskit::test {

// Moves the test's process into a mount namespace of its own, every mount private: what it
// mounts, and what the programs it starts then see, no other process sees. False where it may
// not (not root).
inline bool try_own_mount_namespace() {
  return ::unshare(CLONE_NEWNS) == 0 &&
         ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
}

// The same, which the test needs: it fails where it cannot be done.
inline void enter_own_mount_namespace() {
  REQUIRE(try_own_mount_namespace());
}

} // namespace opskit::test
