// SPDX-License-Identifier: MIT
#include "driver_reads.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <mutex>
#include <ranges>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "opskit/file.hpp"
#include "opskit/handle.hpp"
#include "reader.hpp"

namespace opskit::counters::detail {

// One file's read on a worker's thread: which, and what came of it.
struct DriverRead {
  int fd = -1;
  // The source's descriptor, once its read has missed the deadline: closed with the read, after
  // the thread's call has returned, not under it.
  UniqueFd left;
  std::string path;
  std::string bytes;          // the file, when it read
  std::optional<Error> error; // why it did not
};

// A thread and its batch of reads. The batch is the reader's while `posted` is false and the
// thread's from then until `done` counts it all: the thread takes it (posted false again), sets
// `next` to k + 1, reads batch[k] unless `abandoned`, and counts it in `done`, without a lock.
// At the deadline the reader sets `abandoned` and, holding the lock, marks the path of the read
// `next` says is running hung and leaves it its descriptor; the thread, seeing `abandoned` before
// or after a read, takes the lock before it unmarks that read's path, and leaves. `leave` sends
// an idle thread away.
struct DriverReader::Worker {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::shared_ptr<DriverRead>> batch;
  bool posted = false, leave = false; // under the lock
  std::atomic<std::size_t> next{0}, done{0};
  std::atomic<bool> abandoned{false};
};

namespace {

// Settled as the thread's reads are: unlike Source::skip(), it fails anew where the read before
// was good.
void not_read(Source& source) {
  source.settle(fail(source.not_read_late()));
}

} // namespace

DriverReader::DriverReader() = default;

DriverReader::~DriverReader() {
  if (!worker_)
    return;
  std::lock_guard lock(worker_->mutex);
  worker_->leave = true;
  worker_->cv.notify_all();
}

void DriverReader::start(std::span<const std::unique_ptr<Source>> sources,
                         Clock::time_point deadline) {
  posted_.clear();
  deadline_ = deadline;
  auto drivers = sources | std::views::filter(
                               [](const auto& source) { return source->reader == Reader::driver; });
  if (drivers.empty())
    return;
  if (Clock::now() >= deadline) { // none would be waited for
    for (const auto& source : drivers)
      not_read(*source);
    return;
  }
  if (!worker_) {
    auto worker = std::make_shared<Worker>();
    try {
      std::thread([worker] { serve(worker); }).detach();
    } catch (const std::system_error&) { // no thread to be had: read them here
      for (const auto& source : drivers)
        source->read();
      return;
    }
    worker_ = std::move(worker);
  }
  std::unique_lock lock(worker_->mutex);
  worker_->batch.clear();
  for (const auto& source : drivers) {
    if (hung(source->path)) {
      source->settle(
          fail(fmt::format("read {}: still no answer to an earlier read; skipped until it returns",
                           source->path),
               ETIMEDOUT));
    } else if (!source->open()) {
      source->settle(fail(*source->open_error));
    } else {
      if (!source->driver_read) {
        source->driver_read = std::make_shared<DriverRead>();
        source->driver_read->fd = source->fd.get();
        source->driver_read->path = source->path;
      }
      worker_->batch.push_back(source->driver_read);
      posted_.push_back(source.get());
    }
  }
  if (posted_.empty())
    return;
  worker_->next = 0;
  worker_->done = 0;
  worker_->posted = true;
  lock.unlock();
  worker_->cv.notify_all();
}

void DriverReader::finish() {
  if (posted_.empty())
    return;
  std::size_t size = posted_.size();
  auto all_done = [&] { return worker_->done == size; };
  bool all = all_done();
  std::size_t done = size;
  bool in_read = false;
  if (!all) {
    std::unique_lock lock(worker_->mutex);
    all = worker_->cv.wait_until(lock, deadline_, all_done);
    if (!all) {
      worker_->abandoned = true;
      done = worker_->done;
      in_read = worker_->next > done;
      if (in_read) { // under the lock, which the thread takes before it unmarks the path
        Source& late = *posted_[done];
        set_hung(late.path, true);
        late.driver_read->left = std::move(late.fd);
      }
    }
  }
  for (std::size_t k = 0; k < done; ++k) {
    const DriverRead& read = *posted_[k]->driver_read;
    posted_[k]->settle(read.error ? Result<std::string_view>(fail(*read.error))
                                  : Result<std::string_view>(read.bytes));
  }
  if (all)
    return;
  worker_.reset(); // the thread stays with its read
  // What the thread has not done may still be written by it: the next reads are others'.
  for (std::size_t k = done; k < size; ++k)
    posted_[k]->driver_read.reset();
  std::size_t next = done;
  if (in_read) {
    Source& late = *posted_[next++];
    late.settle(
        fail(fmt::format("read {}: no answer by the deadline; skipped until it returns", late.path),
             ETIMEDOUT));
  }
  for (; next < size; ++next)
    not_read(*posted_[next]);
}

void DriverReader::serve(const std::shared_ptr<Worker>& worker) {
  thread_local std::string page(4096, '\0');
  std::unique_lock lock(worker->mutex);
  for (;;) {
    worker->cv.wait(lock, [&] { return worker->leave || worker->posted; });
    if (worker->leave)
      return;
    worker->posted = false;
    std::size_t size = worker->batch.size(); // the batch is the reader's again once all is done
    lock.unlock();
    // The reader has given up: it may have counted batch[k] as running, and marked it.
    auto left = [&](std::size_t k) {
      lock.lock(); // after the reader has marked it
      lock.unlock();
      set_hung(worker->batch[k]->path, false);
    };
    for (std::size_t k = 0; k < size; ++k) {
      DriverRead& read = *worker->batch[k];
      worker->next = k + 1;
      if (worker->abandoned)
        return left(k);
      auto got = pread_whole(read.fd, page, read.path);
      if (got) {
        read.bytes.assign(*got);
        read.error.reset();
      } else {
        read.error = got.error();
      }
      worker->done = k + 1;
      if (worker->abandoned)
        return left(k);
    }
    lock.lock(); // a reader waiting has looked at `done` and waits, or will see it
    lock.unlock();
    worker->cv.notify_all();
    lock.lock();
  }
}

namespace {

thread_local ProbeDeadline* t_probes = nullptr;
thread_local const std::vector<std::string>* t_read_just_now = nullptr;

} // namespace

ReadJustNow::ReadJustNow(const std::vector<std::string>& paths) : outer_(t_read_just_now) {
  t_read_just_now = &paths;
}

ReadJustNow::~ReadJustNow() {
  t_read_just_now = outer_;
}

ProbeDeadline::ProbeDeadline(DriverReader::Clock::time_point deadline)
    : outer_(t_probes), deadline_(deadline) {
  if (deadline != DriverReader::Clock::time_point::max()) // none: the outer one's, if any
    t_probes = this;
}

ProbeDeadline::~ProbeDeadline() {
  t_probes = outer_;
}

bool reads_now(const std::string& path) {
  if (t_read_just_now != nullptr && std::ranges::binary_search(*t_read_just_now, path))
    return true;
  if (t_probes == nullptr)
    return read_file(path).has_value();
  if (!t_probes->reader_)
    t_probes->reader_ = std::make_unique<DriverReader>();
  std::unique_ptr<Source> probe[] = {std::make_unique<Source>()};
  probe[0]->path = path;
  probe[0]->reader = Reader::driver;
  t_probes->reader_->start(probe, t_probes->deadline_);
  t_probes->reader_->finish();
  // One that does not answer in time is kept, to be read at each scrape: it is there, and slow.
  const auto& error = probe[0]->read_error;
  return !probe[0]->open_error && (!error || error->errno_value() == ETIMEDOUT);
}

} // namespace opskit::counters::detail
