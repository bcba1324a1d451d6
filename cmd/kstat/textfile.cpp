// SPDX-License-Identifier: MIT
#include "textfile.hpp"

#include <algorithm>
#include <vector>

#include <sys/stat.h>

#include <fmt/format.h>

#include "exit.hpp"
#include "opskit/file.hpp"
#include "opskit/text_exposition.hpp"

namespace opskit::cmd::kstat {

namespace {

// The directory's *.prom files, by name.
Result<std::vector<std::string>> prom_files(const std::string& directory) {
  OPSKIT_TRY_ASSIGN(auto files, list_directory(directory));
  std::erase_if(files, [](const std::string& file) { return !file.ends_with(".prom"); });
  std::ranges::sort(files);
  return files;
}

// The first of `families` named as kstat serve's own are (kstat_*, and the process_* families
// every exporter serves of itself), which a file may not add to.
std::optional<std::string> served_by_kstat(const TextFamilies& families) {
  for (const auto& [name, family] : families.families())
    if (name.starts_with("kstat_") || name.starts_with("process_"))
      return name;
  return std::nullopt;
}

} // namespace

void Textfiles::tell(const std::string& path, const std::optional<std::string>& failure) const {
  auto told = told_.find(path);
  if (!failure) {
    if (told != told_.end())
      told_.erase(told);
    return;
  }
  if (told != told_.end() && told->second == *failure)
    return;
  print_stderr("kstat: warning: textfile {}: {}; left out\n", path, *failure);
  told_[path] = *failure;
}

void Textfiles::append(std::string& out, TextFormat format) const {
  TextFamilies all;
  std::vector<std::pair<std::string, double>> mtimes;
  auto files = prom_files(directory_);
  bool failed = !files;
  tell(directory_, files ? std::nullopt : std::optional(files.error().message()));
  for (const auto& file : files.value_or(std::vector<std::string>())) {
    std::string path = fmt::format("{}/{}", directory_, file);
    struct stat st {};
    Result<void> added;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      added = fail("not a file that can be read");
    else if (auto text = read_file(path); !text)
      added = std::unexpected(text.error());
    else if (auto parsed = TextFamilies::parse(*text); !parsed)
      added = std::unexpected(parsed.error());
    else if (auto own = served_by_kstat(*parsed))
      added = fail(fmt::format("{}: a name of kstat serve's own families", *own));
    else
      added = all.merge(std::move(*parsed), path);
    tell(path, added ? std::nullopt : std::optional(added.error().message()));
    if (!added) {
      failed = true;
      continue;
    }
    mtimes.emplace_back(path, static_cast<double>(st.st_mtim.tv_sec) +
                                  static_cast<double>(st.st_mtim.tv_nsec) / 1e9);
  }
  // A failing file that is gone is forgotten: written again as broken, it is told again, and
  // files named anew each time (a job's run) are not remembered without end.
  std::erase_if(told_, [&](const auto& told) {
    const std::string& path = told.first;
    if (path == directory_)
      return false;
    std::string_view file = std::string_view(path).substr(directory_.size() + 1);
    return !files || !std::ranges::binary_search(*files, file);
  });
  all.append(out, format);
  if (!mtimes.empty()) {
    append_family(out, "kstat_textfile_mtime_seconds",
                  "Time each *.prom file of the textfile directory was last written, in seconds "
                  "since the epoch",
                  MetricType::gauge, format);
    for (const auto& [file, mtime] : mtimes) {
      std::string labels;
      append_label(labels, "file", file);
      append_sample(out, "kstat_textfile_mtime_seconds", labels, fmt::format("{}", mtime));
    }
  }
  append_family(out, "kstat_textfile_scrape_error",
                "1 when the textfile directory or a file in it could not be read or parsed",
                MetricType::gauge, format);
  append_sample(out, "kstat_textfile_scrape_error", "", failed ? "1" : "0");
}

} // namespace opskit::cmd::kstat
