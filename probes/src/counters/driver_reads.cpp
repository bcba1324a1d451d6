// SPDX-License-Identifier: MIT
#include "driver_reads.hpp"

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
#include "reader.hpp"

namespace opskit::counters::detail {

// One file's read on a worker's thread: which, and what came of it.
struct DriverRead {
  int fd = -1;
  std::string path;
  std::string bytes;          // the file, when it read
  std::optional<Error> error; // why it did not
};

// A thread and its batch of reads. The thread reads batch[next] onwards, one at a time, and
// counts them in `done`; `leave` sends it away once the read it is in returns.
struct DriverReader::Worker {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::shared_ptr<DriverRead>> batch;
  std::size_t next = 0, done = 0;
  bool leave = false;
};

namespace {

void not_read(Source& source) {
  source.settle(fail(fmt::format("{}: not read: the deadline passed", source.path), ETIMEDOUT));
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
  std::lock_guard lock(worker_->mutex);
  worker_->batch.clear();
  worker_->next = worker_->done = 0;
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
  worker_->cv.notify_all();
}

void DriverReader::finish() {
  if (posted_.empty())
    return;
  std::unique_lock lock(worker_->mutex);
  bool all = worker_->cv.wait_until(lock, deadline_,
                                    [&] { return worker_->done == worker_->batch.size(); });
  std::size_t done = worker_->done;
  bool in_read = worker_->next > done;
  if (!all) {
    // Marked under the worker's lock, which the thread takes before it unmarks the file on the
    // read's return: the mark comes first.
    if (in_read)
      set_hung(posted_[done]->path, true);
    worker_->leave = true;
  }
  lock.unlock();
  for (std::size_t k = 0; k < done; ++k) {
    const DriverRead& read = *posted_[k]->driver_read;
    posted_[k]->settle(read.error ? Result<std::string_view>(fail(*read.error))
                                  : Result<std::string_view>(read.bytes));
  }
  if (all)
    return;
  worker_.reset(); // the thread stays with its read
  std::size_t next = done;
  if (in_read) {
    Source& late = *posted_[next++];
    late.driver_read.reset(); // the thread's still: the next read is another's
    late.settle(
        fail(fmt::format("read {}: no answer by the deadline; skipped until it returns", late.path),
             ETIMEDOUT));
  }
  for (; next < posted_.size(); ++next)
    not_read(*posted_[next]);
}

void DriverReader::serve(const std::shared_ptr<Worker>& worker) {
  thread_local std::string page(4096, '\0');
  std::unique_lock lock(worker->mutex);
  for (;;) {
    worker->cv.wait(lock, [&] { return worker->leave || worker->next < worker->batch.size(); });
    if (worker->leave)
      return;
    std::shared_ptr<DriverRead> read = worker->batch[worker->next++];
    lock.unlock();
    auto got = pread_whole(read->fd, page, read->path);
    lock.lock();
    if (got) {
      read->bytes.assign(*got);
      read->error.reset();
    } else {
      read->error = got.error();
    }
    ++worker->done;
    if (worker->leave) { // the read missed its deadline, and was left to this thread
      lock.unlock();
      set_hung(read->path, false);
      return;
    }
    if (worker->done == worker->batch.size())
      worker->cv.notify_all();
  }
}

namespace {

thread_local ProbeDeadline* t_probes = nullptr;

} // namespace

ProbeDeadline::ProbeDeadline(DriverReader::Clock::time_point deadline)
    : outer_(t_probes), deadline_(deadline) {
  t_probes = this;
}

ProbeDeadline::~ProbeDeadline() {
  t_probes = outer_;
}

bool reads_now(const std::string& path) {
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
