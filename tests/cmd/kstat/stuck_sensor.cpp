// SPDX-License-Identifier: MIT
//
// A hardware monitoring chip whose temperature does not answer until it is let go, as a sensor
// on a bus that hangs, or answers each read late, as one on a slow bus: a FUSE file system of
// two files, which kstat's tests mount over <sys>/class/hwmon/hwmon0.
//
//   stuck_sensor RELEASE MOUNTPOINT [SECONDS]
//
// name reads "stuck" at once; a read of temp1_input waits until the file RELEASE exists, or
// SECONDS have passed where given, then gives 42000 (millidegrees); a read at offset 0 appends
// a line to RELEASE.reads. Each read reaches the file system (direct I/O), and its other threads
// answer meanwhile. It serves in the foreground until unmounted or killed.

#define FUSE_USE_VERSION 31

#include <fuse.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

namespace {

const char* g_release = nullptr;
std::chrono::duration<double> g_late = std::chrono::duration<double>::max(); // SECONDS

struct File {
  std::string_view name, text;
  bool stuck;
};
constexpr File k_files[] = {{"name", "stuck\n", false}, {"temp1_input", "42000\n", true}};

const File* find(const char* path) {
  for (const File& file : k_files)
    if (path[0] == '/' && file.name == path + 1)
      return &file;
  return nullptr;
}

int get_attributes(const char* path, struct stat* st, fuse_file_info*) {
  *st = {};
  if (std::strcmp(path, "/") == 0) {
    st->st_mode = S_IFDIR | 0755;
    st->st_nlink = 2;
    return 0;
  }
  const File* file = find(path);
  if (file == nullptr)
    return -ENOENT;
  st->st_mode = S_IFREG | 0444;
  st->st_nlink = 1;
  st->st_size = static_cast<off_t>(file->text.size());
  return 0;
}

int read_directory(const char* path, void* out, fuse_fill_dir_t fill, off_t, fuse_file_info*,
                   fuse_readdir_flags) {
  if (std::strcmp(path, "/") != 0)
    return -ENOENT;
  fill(out, ".", nullptr, 0, fuse_fill_dir_flags{});
  fill(out, "..", nullptr, 0, fuse_fill_dir_flags{});
  for (const File& file : k_files)
    fill(out, std::string(file.name).c_str(), nullptr, 0, fuse_fill_dir_flags{});
  return 0;
}

int open_file(const char* path, fuse_file_info* info) {
  if (find(path) == nullptr)
    return -ENOENT;
  info->direct_io = 1;
  return 0;
}

int read_file(const char* path, char* out, std::size_t size, off_t offset, fuse_file_info*) {
  const File* file = find(path);
  if (file == nullptr)
    return -ENOENT;
  auto start = std::chrono::steady_clock::now();
  while (file->stuck && ::access(g_release, F_OK) != 0 &&
         std::chrono::steady_clock::now() - start < g_late)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (file->stuck && offset == 0)
    std::ofstream(std::string(g_release) + ".reads", std::ios::app) << "read\n";
  if (offset >= static_cast<off_t>(file->text.size()))
    return 0;
  std::size_t n = std::min(size, file->text.size() - static_cast<std::size_t>(offset));
  std::memcpy(out, file->text.data() + offset, n);
  return static_cast<int>(n);
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: stuck_sensor RELEASE MOUNTPOINT [SECONDS]\n");
    return 2;
  }
  g_release = argv[1];
  if (argc == 4)
    g_late = std::chrono::duration<double>(std::strtod(argv[3], nullptr));
  fuse_operations ops{};
  ops.getattr = get_attributes;
  ops.readdir = read_directory;
  ops.open = open_file;
  ops.read = read_file;
  // Every user may look at it, as at a real chip (see StuckSensor in test_stuck.cpp).
  char foreground[] = "-f", option[] = "-o", others[] = "allow_other";
  char* args[] = {argv[0], foreground, option, others, argv[2], nullptr};
  return fuse_main(5, args, &ops, nullptr);
}
