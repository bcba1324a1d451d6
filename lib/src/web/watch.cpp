// SPDX-License-Identifier: MIT
#include "opskit/web/watch.hpp"

#include <cerrno>
#include <utility>

#include <sys/stat.h>

namespace opskit::web {

ConfigWatch::ConfigWatch(std::string path, const WebConfig& loaded, Clock::duration every)
    : path_(std::move(path)), files_(loaded.files), every_(every), looked_(Clock::now()) {
  if (files_.empty() || files_.front() != path_)
    files_.insert(files_.begin(), path_);
  stamps_ = stamps(files_);
}

std::vector<ConfigWatch::Stamp> ConfigWatch::stamps(const std::vector<std::string>& files) {
  std::vector<Stamp> out;
  out.reserve(files.size());
  for (const auto& file : files) {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) {
      out.push_back({.error = errno});
      continue;
    }
    auto ns = [](const timespec& t) { return t.tv_sec * 1'000'000'000LL + t.tv_nsec; };
    out.push_back({0, st.st_dev, st.st_ino, st.st_size, ns(st.st_mtim), ns(st.st_ctim)});
  }
  return out;
}

std::optional<Result<WebConfig>> ConfigWatch::poll(Clock::time_point now) {
  if (now - looked_ < every_)
    return std::nullopt;
  looked_ = now;
  auto seen = stamps(files_);
  if (seen == stamps_ && !failure_)
    return std::nullopt;
  // The stamps taken before the read: a change made while it reads is seen at the next look.
  // After a failure the files stay those of the last good load, the configuration among them,
  // so that putting any of them right is seen; and a file the configuration names that is not
  // there yet (a certificate copied in after the configuration naming it was written) is among
  // none of them: while it fails, the configuration is read again at each look, and what it
  // says told when it loads, or fails otherwise.
  auto loaded = load_web_config(path_);
  bool unchanged = seen == stamps_;
  stamps_ = std::move(seen);
  if (!loaded) {
    bool told = unchanged && failure_ == loaded.error().message();
    failure_ = loaded.error().message();
    return told ? std::nullopt : std::optional(std::move(loaded));
  }
  failure_.reset();
  if (loaded->files != files_) {
    files_ = loaded->files;
    stamps_ = stamps(files_);
  }
  return loaded;
}

} // namespace opskit::web
