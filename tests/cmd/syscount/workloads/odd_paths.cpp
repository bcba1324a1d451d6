// SPDX-License-Identifier: MIT
// Test workload: stat calls on paths that are hard to read from another process:
//  - a path of 5000 bytes (longer than PATH_MAX: the kernel says ENAMETOOLONG);
//  - "/nonexistent/page-edge" ending exactly at the end of a page followed by an unmapped one;
//  - fstat on a descriptor and newfstatat(fd, "", AT_EMPTY_PATH): calls without a path.
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main() {
  struct stat st;
  std::string long_path(5000, 'a');
  long_path[0] = '/';
  stat(long_path.c_str(), &st);

  long page = sysconf(_SC_PAGESIZE);
  auto* area = static_cast<char*>(mmap(nullptr, static_cast<size_t>(2 * page),
                                       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (area == MAP_FAILED || munmap(area + page, static_cast<size_t>(page)) != 0)
    return 1;
  const char edge[] = "/nonexistent/page-edge";
  char* at = area + page - sizeof edge; // the NUL is the last byte of the mapped page
  std::memcpy(at, edge, sizeof edge);
  stat(at, &st);

  int fd = open("/", O_RDONLY | O_DIRECTORY);
  fstat(fd, &st);
  fstatat(fd, "", &st, AT_EMPTY_PATH);
  close(fd);
  return 0;
}
