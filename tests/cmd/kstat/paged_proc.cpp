// SPDX-License-Identifier: MIT
//
// The files of a directory served as the kernel serves a seq_file of /proc: a read gives whole
// records, as many as fit in a page (one at least), and a short read is not the end of the file,
// only of a page. A record is a line that does not begin with a blank and the lines after it
// that do: an array of /proc/mdstat, a virtual server of /proc/net/ip_vs with its real servers.
// A FUSE file system, which kstat's tests mount as a --proc-root of their own.
//
//   paged_proc DIRECTORY MOUNTPOINT
//
// The files are read once, at start. It serves in the foreground until unmounted or killed.

#define FUSE_USE_VERSION 31

#include <fuse.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>

#include <sys/stat.h>

namespace {

constexpr std::size_t k_page = 4096;

std::map<std::string, std::string, std::less<>> g_files; // by name, without the '/'

const std::string* find(const char* path) {
  if (path[0] != '/')
    return nullptr;
  auto at = g_files.find(std::string_view(path + 1));
  return at == g_files.end() ? nullptr : &at->second;
}

// The end of the record that begins at `at`.
std::size_t record_end(std::string_view text, std::size_t at) {
  std::size_t end = text.find('\n', at);
  while (end != std::string_view::npos && end + 1 < text.size() &&
         (text[end + 1] == ' ' || text[end + 1] == '\t'))
    end = text.find('\n', end + 1);
  return end == std::string_view::npos ? text.size() : end + 1;
}

int get_attributes(const char* path, struct stat* st, fuse_file_info*) {
  *st = {};
  if (std::strcmp(path, "/") == 0) {
    st->st_mode = S_IFDIR | 0755;
    st->st_nlink = 2;
    return 0;
  }
  if (find(path) == nullptr)
    return -ENOENT;
  st->st_mode = S_IFREG | 0444; // size 0, as /proc's files
  st->st_nlink = 1;
  return 0;
}

int read_directory(const char* path, void* out, fuse_fill_dir_t fill, off_t, fuse_file_info*,
                   fuse_readdir_flags) {
  if (std::strcmp(path, "/") != 0)
    return -ENOENT;
  fill(out, ".", nullptr, 0, fuse_fill_dir_flags{});
  fill(out, "..", nullptr, 0, fuse_fill_dir_flags{});
  for (const auto& [name, text] : g_files)
    fill(out, name.c_str(), nullptr, 0, fuse_fill_dir_flags{});
  return 0;
}

int open_file(const char* path, fuse_file_info* info) {
  if (find(path) == nullptr)
    return -ENOENT;
  info->direct_io = 1; // each read reaches read_file() with the reader's size and offset
  return 0;
}

int read_file(const char* path, char* out, std::size_t size, off_t offset, fuse_file_info*) {
  const std::string* text = find(path);
  if (text == nullptr)
    return -ENOENT;
  auto at = static_cast<std::size_t>(offset);
  std::size_t room = std::min(size, k_page), end = at;
  while (end < text->size()) {
    std::size_t next = record_end(*text, end);
    if (next - at > room && end > at)
      break;
    end = next;
  }
  std::size_t n = std::min(end - std::min(at, end), size);
  std::memcpy(out, text->data() + at, n);
  return static_cast<int>(n);
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: paged_proc DIRECTORY MOUNTPOINT\n");
    return 2;
  }
  for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
    std::ostringstream text;
    text << std::ifstream(entry.path()).rdbuf();
    g_files[entry.path().filename().string()] = text.str();
  }
  fuse_operations ops{};
  ops.getattr = get_attributes;
  ops.readdir = read_directory;
  ops.open = open_file;
  ops.read = read_file;
  char foreground[] = "-f";
  char* args[] = {argv[0], foreground, argv[2], nullptr};
  return fuse_main(3, args, &ops, nullptr);
}
