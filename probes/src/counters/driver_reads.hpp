// SPDX-License-Identifier: MIT
#pragma once

// Reads of sysfs files that ask a driver, which may sleep on its hardware: a sensor on a slow
// bus (hwmon over I2C or IPMI), a thermal zone or battery behind ACPI and the embedded
// controller, a CPU's frequency. With a deadline they are made on a thread of their own and
// waited for until then, so that a scrape never waits on one for longer; a read that misses it
// keeps that thread, and its file is skipped, by every reader in the process (hung()), until it
// returns.

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace opskit::counters::detail {

struct Source;

class DriverReader {
public:
  using Clock = std::chrono::steady_clock;

  DriverReader();
  ~DriverReader(); // its thread leaves once idle, or once the read it is stuck in returns
  DriverReader(const DriverReader&) = delete;
  DriverReader& operator=(const DriverReader&) = delete;

  // Starts reading `sources`' Reader::driver ones on the thread (each opened by Source::open()),
  // in turn, until `deadline`.
  void start(std::span<const std::unique_ptr<Source>> sources, Clock::time_point deadline);
  // Waits for them until the deadline, and settles each with its bytes or why there are none:
  // its read's error; "no answer by the deadline" for the one the thread is still in, which is
  // then left to it; "not read" for those after it, which the next start() reads on a new thread.
  void finish();

private:
  struct Worker;
  static void serve(const std::shared_ptr<Worker>& worker); // the thread
  std::shared_ptr<Worker> worker_; // started at the first read, replaced once stuck
  std::vector<Source*> posted_;    // what start() gave the thread
  Clock::time_point deadline_;
};

// Whether the file at `path` reads now, as the resolve of hardware names probes a sensor's
// (one that fails is left out): yes without a read where a ReadJustNow alive on this thread
// holds it; else on a DriverReader until the deadline of the ProbeDeadline alive on this
// thread, where one that does not answer by then is taken to read (it is there, and slow: its
// scrapes say so); in place, as long as it takes, where there is none (kstat read).
bool reads_now(const std::string& path);

// While it lives, reads_now() on this thread takes the files of `paths` (sorted) to read
// without reading them: the hardware's files the scrape that resolves again has just read well
// (Snapshot::answered_by_drivers()), which a probe would ask their slow drivers for again.
class ReadJustNow {
public:
  explicit ReadJustNow(const std::vector<std::string>& paths);
  ~ReadJustNow();
  ReadJustNow(const ReadJustNow&) = delete;
  ReadJustNow& operator=(const ReadJustNow&) = delete;

private:
  const std::vector<std::string>* outer_;
};

// While it lives, the deadline of this thread's reads_now(): Namespace::snapshot()'s, a scrape's
// or a watch's sample's. time_point::max() is none, and leaves the one around it, if any.
class ProbeDeadline {
public:
  explicit ProbeDeadline(DriverReader::Clock::time_point deadline);
  ~ProbeDeadline();
  ProbeDeadline(const ProbeDeadline&) = delete;
  ProbeDeadline& operator=(const ProbeDeadline&) = delete;

private:
  ProbeDeadline* outer_;
  DriverReader::Clock::time_point deadline_;
  std::unique_ptr<DriverReader> reader_; // the probes', started at the first
  friend bool reads_now(const std::string& path);
};

} // namespace opskit::counters::detail
