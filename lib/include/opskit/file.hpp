// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/handle.hpp"

namespace opskit {

// open(2) with O_CLOEXEC added; the error names the path.
Result<UniqueFd> open_file(const std::string& path, int flags);

// Reads a whole file from offset 0 into `buffer` and returns the bytes read: with one pread,
// but where a seq_file of many records gives a page a read however large the buffer
// (/proc/net/dev of a hundred interfaces, diskstats of forty disks): a read that may have
// stopped there goes on from where it ended (see may_go_on() in file.cpp). When a read fills the
// buffer it grows 4x and the file is read again from offset 0, and the grown size is kept for
// the next call. This is the only correct way to read /proc/sys (a read at a non-zero offset
// returns EOF) and the cheapest for seq_files such as /proc/vmstat (a read at offset 0
// restarts the generator). `buffer` must be non-empty; its size is the read size. `name` is for
// errors.
Result<std::string_view> pread_whole(int fd, std::string& buffer, std::string_view name);

// pread_whole() for a file whose records are of several lines without a blank one between
// (/proc/schedstat: a CPU's line, then its scheduling domains'), where no read short of a page
// shows its end: read until a read gives nothing.
Result<std::string_view> pread_to_end(int fd, std::string& buffer, std::string_view name);

// pread_whole() for a file the kernel writes as one record however long (its single_open()
// files: /proc/meminfo, /proc/stat, /proc/net/netstat), which a read with the room for it gives
// whole: a read short of the room is the end, with no guess and no second read (4,069 bytes of
// /proc/net/netstat in lines of up to 2,195 may, by their lengths, have filled a page).
Result<std::string_view> pread_one_record(int fd, std::string& buffer, std::string_view name);

// Raises this process's soft limit of open files (RLIMIT_NOFILE) to its hard limit, for a
// process that keeps a descriptor open for each file it reads again (and never calls select(2),
// which cannot take a descriptor past 1023).
void raise_open_file_limit() noexcept;

// Writes all of `data` to `fd`, again after a short write or EINTR; the error names `name`.
Result<void> write_all(int fd, std::string_view data, std::string_view name);

// The names of the entries of the directory `path`, "." and ".." left out, in the order the
// file system lists them; the error names the path.
Result<std::vector<std::string>> list_directory(const std::string& path);

// Opens, reads whole (as above, starting with a 4 KiB buffer, or one a byte larger than a
// regular file's size; a file that says no size, as /proc's, until a read gives nothing) and
// closes.
Result<std::string> read_file(const std::string& path);

} // namespace opskit
