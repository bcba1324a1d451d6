/* SPDX-License-Identifier: MIT */
/* Built at test time as a static 32-bit program (gcc -m32 -static): looks up PATH N times with
 * each of stat, lstat and access through libc, with the raw stat64 and fstatat64 calls (a path
 * in the first and in the second argument), and calls fstat64 N times on its stdout. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 3)
    return 2;
  int n = atoi(argv[1]);
  const char* path = argv[2];
  struct stat st;
  char raw[256]; /* struct stat64 as the kernel writes it, with room to spare */
  for (int i = 0; i < n; ++i)
    stat(path, &st);
  for (int i = 0; i < n; ++i)
    lstat(path, &st);
  for (int i = 0; i < n; ++i)
    access(path, F_OK);
#if defined(SYS_stat64) && defined(SYS_fstatat64) && defined(SYS_fstat64)
  for (int i = 0; i < n; ++i)
    syscall(SYS_stat64, path, raw);
  for (int i = 0; i < n; ++i)
    syscall(SYS_fstatat64, AT_FDCWD, path, raw, 0);
  for (int i = 0; i < n; ++i)
    syscall(SYS_fstat64, 1, raw);
#else
#error "built for i386 only"
#endif
  return 0;
}
