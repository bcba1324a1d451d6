// SPDX-License-Identifier: MIT
// pkgcloud's allocator is jemalloc, linked in (see CMakeLists.txt), and this is the
// configuration it reads when it starts: memory on transparent huge pages, for the program and
// for jemalloc's own tables. A rebuild reads packages on every CPU in waves of allocations and
// frees; on 4 KiB pages, glibc's malloc gave each wave's memory back and took it again with a
// page fault a page.
extern "C" const char* malloc_conf; // as jemalloc declares it
const char* malloc_conf = "thp:always,metadata_thp:always";
