// SPDX-License-Identifier: MIT
// S3's multipart upload of a large file: its parts' digests read from the file, the upload
// begun and the parts sent at once (each retried alone); the caller then completes it, with
// the other large files' uploads, or aborts it so that no orphaned part is left to pay for. The
// object appears only when the upload completes, whole.
#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "codec/file_bytes.hpp"
#include "opskit/parallel.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "publish/object_headers.hpp"
#include "publish/s3.hpp"

namespace opskit::repo::publish {

namespace {

constexpr std::uint64_t k_part = 16ull << 20, k_mib = 1ull << 20, k_max_parts = 10000;

} // namespace

std::uint64_t part_size(std::uint64_t size) {
  std::uint64_t least = (size + k_max_parts - 1) / k_max_parts;
  return std::max(k_part, (least + k_mib - 1) / k_mib * k_mib);
}

// The parts of `whole`, each with its range and digests, read on every CPU.
Result<std::vector<Request>> S3Remote::parts_of(const Request& whole) const {
  OPSKIT_TRY_ASSIGN(auto opened, detail::open_regular(whole.file));
  const std::uint64_t part = part_size(whole.size);
  std::size_t count = (whole.size + part - 1) / part;
  std::vector<Request> parts(count);
  std::vector<std::string> errors(count);
  parallel_for(count, std::max(1u, std::thread::hardware_concurrency()), [&](std::size_t i) {
    Request& p = parts[i];
    p.method = "PUT";
    p.path = fmt::format("{} (part {} of {})", whole.path, i + 1, count);
    p.file = whole.file;
    p.from = i * part;
    p.size = std::min(part, whole.size - p.from);
    auto digests = detail::md5_and_sha256(opened.first, p.from, p.size, whole.file);
    if (!digests)
      errors[i] = digests.error().message();
    else
      std::tie(p.md5, p.sha256) = std::move(*digests);
  });
  for (const auto& e : errors)
    if (!e.empty())
      return fail(e);
  return parts;
}

bool S3Remote::in_parts(const Request& r) const {
  return r.method == "PUT" && !r.file.empty() && r.size > multipart_threshold_;
}

Request S3Remote::abort_request(const Request& whole, const std::string& id) const {
  Request abort;
  abort.method = "DELETE";
  abort.path = whole.path + " (abort)";
  abort.url =
      fmt::format("{}{}?uploadId={}", endpoint_.base, escape_path(whole.path), escape_query(id));
  abort.also_ok = {404}; // completed, or abandoned already
  return abort;
}

Result<SentParts> S3Remote::put_parts(Transfer& transfer, const Request& whole,
                                      std::vector<Request> parts) const {
  std::string object = endpoint_.base + escape_path(whole.path);
  Request begin;
  begin.method = "POST";
  begin.path = whole.path;
  begin.url = object + "?uploads="; // "=": SigV4's canonical form, which libcurl signs as given
  begin.headers = object_headers(whole.path); // kept with the object the upload makes
  OPSKIT_TRY_ASSIGN(auto begun, transfer.run({&begin, 1}));
  OPSKIT_TRY_ASSIGN(auto id, parse_upload_id(begun[0].body));
  for (std::size_t i = 0; i < parts.size(); ++i)
    parts[i].url = fmt::format("{}?partNumber={}&uploadId={}", object, i + 1, escape_query(id));
  SentParts sent;
  sent.abort = abort_request(whole, id);
  auto answers = transfer.run(parts);
  if (!answers) {
    (void)transfer.run({&sent.abort, 1}); // best effort: the error to report is the first
    return fail(answers.error());
  }
  Request& end = sent.complete;
  end.method = "POST";
  end.path = whole.path;
  end.url = fmt::format("{}?uploadId={}", object, escape_query(id));
  end.error_in_ok = true; // retried when its error is one to retry (InternalError)
  end.data = "<CompleteMultipartUpload>";
  for (std::size_t i = 0; i < parts.size(); ++i)
    end.data += fmt::format("<Part><PartNumber>{}</PartNumber><ETag>\"{}\"</ETag></Part>", i + 1,
                            (*answers)[i].etag);
  end.data += "</CompleteMultipartUpload>";
  end.sha256 = sha256_hex(end.data);
  end.md5 = digest_all(end.data, Hash::md5).md5;
  return sent;
}

} // namespace opskit::repo::publish
