// SPDX-License-Identifier: MIT
#pragma once

#include <catch2/catch.hpp>

#include <sched.h>
#include <sys/mount.h>

namespace opskit::test {

// Moves the test's process into a mount namespace of its own, every mount private: what it
// mounts, and what the programs it starts then see, no other process sees. Needs root.
inline void enter_own_mount_namespace() {
  REQUIRE(::unshare(CLONE_NEWNS) == 0);
  REQUIRE(::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0);
}

} // namespace opskit::test
