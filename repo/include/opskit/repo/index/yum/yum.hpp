// SPDX-License-Identifier: MIT
#pragma once

// The dnf repository metadata writer, whole: a package's fragments, the runs of packages they
// are pasted in, the build of repodata/ from them, and repomd.xml written and read back.

#include "opskit/repo/index/yum/build.hpp"
#include "opskit/repo/index/yum/fragments.hpp"
#include "opskit/repo/index/yum/repomd.hpp"
#include "opskit/repo/index/yum/runs.hpp"
