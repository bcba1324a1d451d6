// SPDX-License-Identifier: MIT
#pragma once

// Publishing a repository's publication to S3-compatible storage or a WebDAV server
// (pkgcloud(1), PUBLISHING): what to publish to, how, and what was done.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opskit::repo {

// PublishTarget::multipart_threshold's default, and its bounds: S3's smallest part and its
// largest PUT.
inline constexpr std::uint64_t k_multipart_threshold_default = 64ull << 20;
inline constexpr std::uint64_t k_multipart_threshold_min = 5ull << 20;
inline constexpr std::uint64_t k_multipart_threshold_max = 5ull << 30;

// What is wrong with a multipart threshold of `bytes` ("N bytes: S3 takes from 5 MiB ... to
// 5 GiB ..."), or nothing when it is within the bounds.
std::optional<std::string> multipart_threshold_problem(std::uint64_t bytes);

// Where a publication goes and how to reach it: "s3://BUCKET/PREFIX" or an http(s) URL of a
// WebDAV collection. It holds no secret: credentials are read when publishing, from the
// environment and the files named here or in pkgcloud(1), and a saved target keeps only this.
struct PublishTarget {
  std::string url;
  std::string endpoint;    // S3: the service's URL; empty: AWS's for the region
  std::string region;      // S3: empty: AWS_REGION, else the profile's, else us-east-1
  std::string profile;     // S3: of ~/.aws/credentials; empty: AWS_PROFILE, else default
  bool path_style = false; // S3: the bucket in the path, not in the host name
  // S3: a file larger than this goes as a multipart upload; 0: the default.
  std::uint64_t multipart_threshold = 0;
  std::string user;          // WebDAV: basic authentication's user
  std::string password_file; // WebDAV: its password, first line; empty: ~/.netrc
  std::string ca_file;       // certificate authorities to trust; empty: AWS_CA_BUNDLE (S3), else
                             // the system's
  bool operator==(const PublishTarget&) const = default;
};

enum class DeleteStale { no, yes };

struct PublishOptions {
  PublishTarget target;
  unsigned jobs = 8;    // requests at once
  bool dry_run = false; // report what would be sent and deleted, send nothing
  DeleteStale delete_stale = DeleteStale::no;
  std::chrono::seconds wait{0};           // for another publisher to finish
  unsigned attempts = 5;                  // of each request, before a publish fails
  std::chrono::milliseconds backoff{250}; // before the first retry; doubled, with jitter
  std::chrono::seconds stall{30};         // a transfer moving no byte this long is retried
  // How often the target's lock, which expires 10 minutes after it was written, is checked
  // and written again while requests are in flight.
  std::chrono::seconds lock_refresh{120};
};

struct PublishedFile {
  std::string path; // relative to the publication and the target's root
  std::uint64_t size = 0;
};

// What a publish did, or with dry_run would do: files sent (in the order they were put in
// place), deleted, left as they were; whether the target had a manifest to compare against;
// the requests made by method and how many were retries.
struct PublishReport {
  std::string target; // the URL, no credentials
  std::vector<PublishedFile> uploaded;
  std::vector<std::string> deleted;
  std::size_t unchanged = 0;
  bool had_manifest = false;
  bool dry_run = false;
  std::uint64_t bytes = 0;
  std::map<std::string, std::size_t> requests;
  std::size_t retries = 0;
  double seconds = 0;
};

// `url` as a message shows it: without the user and password it may carry.
std::string shown_url(std::string_view url);

} // namespace opskit::repo
