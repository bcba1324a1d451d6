// SPDX-License-Identifier: MIT
// LD_PRELOADed by a test: renameat2 fails RENAME_EXCHANGE with EINVAL, as on a file system
// that cannot exchange (NFS, some FUSE ones), so that pkgcloud's fallback path runs.
#include <cerrno>
#include <cstdio>

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

extern "C" int renameat2(int olddirfd, const char* oldpath, int newdirfd, const char* newpath,
                         unsigned int flags) {
  if (flags & RENAME_EXCHANGE) {
    errno = EINVAL;
    return -1;
  }
  return static_cast<int>(::syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags));
}
