// SPDX-License-Identifier: MIT
#pragma once

#include <memory>
#include <utility>

#include <unistd.h>

namespace opskit {

// Stateless deleter for C handles: std::unique_ptr<archive, CDeleter<archive_read_free>>.
template <auto F>
struct CDeleter {
  template <class T>
  void operator()(T* p) const noexcept {
    F(p);
  }
};
template <class T, auto F>
using CPtr = std::unique_ptr<T, CDeleter<F>>;

// A move-only owner of a file descriptor. Moving from it leaves -1 behind; self-move is a no-op.
class UniqueFd {
public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other)
      reset(std::exchange(other.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  // Gives up ownership without closing.
  int release() noexcept { return std::exchange(fd_, -1); }
  // Closes the current descriptor (if any) and takes `fd`.
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0 && fd_ != fd)
      ::close(fd_);
    fd_ = fd;
  }

private:
  int fd_ = -1;
};

} // namespace opskit
