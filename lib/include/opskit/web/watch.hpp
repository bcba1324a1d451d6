// SPDX-License-Identifier: MIT
#pragma once

// Reading a web configuration again when it changes, as the exporter toolkit's servers do: a
// new password, a renewed certificate or a tighter rate limit takes effect without a restart.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/web/config.hpp"

namespace opskit::web {

// Watches the files a configuration was read from (WebConfig::files): the configuration file and
// the PEM files it names. A look is a stat(2) of each, at most once every `every`; when one has
// changed (another inode, size, modification or status-change time; gone or back), the
// configuration is read again. Not thread-safe: its owner serializes poll().
class ConfigWatch {
public:
  using Clock = std::chrono::steady_clock;

  ConfigWatch(std::string path, const WebConfig& loaded,
              Clock::duration every = std::chrono::seconds(1));

  // The configuration read again when a file changed since the last look, or at each look while
  // it fails to load: what it now says, or why it does not load. Nothing when no file changed
  // (or it fails as at the last look), or the last look is under `every` ago.
  std::optional<Result<WebConfig>> poll(Clock::time_point now = Clock::now());

private:
  struct Stamp {
    int error = 0; // errno of the stat, 0 when it succeeded
    unsigned long device = 0, inode = 0;
    long long size = 0;
    long long modified_ns = 0, changed_ns = 0;
    friend bool operator==(const Stamp&, const Stamp&) = default;
  };
  static std::vector<Stamp> stamps(const std::vector<std::string>& files);

  std::string path_;
  std::vector<std::string> files_; // the last good load's, the configuration's first
  std::vector<Stamp> stamps_;
  std::optional<std::string> failure_; // why the last read failed, while it does
  Clock::duration every_;
  Clock::time_point looked_;
};

} // namespace opskit::web
