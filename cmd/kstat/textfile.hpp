// SPDX-License-Identifier: MIT
#pragma once

// kstat serve --textfile-directory: the metrics that cron jobs and scripts write into *.prom
// files, in Prometheus' text format, served with each scrape, as node_exporter's textfile
// collector serves them (a backup's last success, a RAID controller's state, a package count).
//
// Each scrape reads the directory's *.prom files again, in name order. A file is parsed whole
// and checked (opskit/text_exposition.hpp), and may not add to kstat's own families (kstat_*,
// process_*). A file that fails is left out whole and counted in kstat_textfile_scrape_error;
// the others' families are merged by name (a family the files type differently, a series two
// of them hold, or a name two families would share in OpenMetrics fails the later file) and
// written after kstat's own, with kstat_textfile_mtime_seconds{file} for each file read (its
// path, as node_exporter labels it).

#include <map>
#include <optional>
#include <string>

#include "opskit/prometheus.hpp"

namespace opskit::cmd::kstat {

class Textfiles {
public:
  explicit Textfiles(std::string directory) : directory_(std::move(directory)) {}

  // Reads the directory's files now and appends their families and kstat's two about them.
  // Why a file is left out goes to standard error when it begins or changes. Not thread-safe
  // (the scraper's lock serializes scrapes).
  void append(std::string& out, TextFormat format) const;

private:
  // Tells on standard error that `path` fails, and why, unless that was told last time.
  void tell(const std::string& path, const std::optional<std::string>& failure) const;

  std::string directory_;
  mutable std::map<std::string, std::string> told_; // each failing path there now, and why
};

} // namespace opskit::cmd::kstat
