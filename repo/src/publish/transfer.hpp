// SPDX-License-Identifier: MIT
#pragma once

// Requests to a publish target, many at once on one libcurl multi handle (its connections
// kept alive from one batch to the next), each retried with backoff and jitter while it fails
// for a reason that may pass: a dropped connection, a timeout, a 5xx or a 429. Not installed.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <curl/curl.h>

#include "opskit/error.hpp"
#include "publish/answers.hpp"
#include "publish/endpoint.hpp"

namespace opskit::repo::publish {

struct Request {
  std::string method; // GET, PUT, DELETE, MKCOL, PROPFIND
  std::string path;   // below the endpoint's base, not escaped
  std::string url;    // instead of the base and path, when set (an S3 listing of the bucket)
  std::vector<std::string> headers; // beside those of the remote
  // PUT and POST: the body, from `file` (a path; `size` bytes from `from`) when it is set,
  // else `data`; its size and digests.
  std::string file, data;
  std::uint64_t from = 0, size = 0;
  std::string sha256; // hex
  std::string md5;    // hex
  // Statuses besides 2xx that answer the request: 404 for a GET of what may be missing.
  std::vector<long> also_ok;
  // S3's CompleteMultipartUpload: its 200 may carry an <Error> document instead of the object.
  bool error_in_ok = false;
};

class Transfer;

struct Response {
  long status = 0;
  std::string body; // of a GET, or the start of an error's
  std::string etag; // unquoted
};

// A multipart upload whose parts are all sent, and the requests that end it.
struct SentParts {
  Request complete, abort;
};

// What one kind of server needs on each request: its URL, its authentication, its headers.
class Remote {
public:
  virtual ~Remote() = default;
  // Sets `easy` up for `r` (URL and authentication), adding headers to `headers`.
  virtual void prepare(CURL* easy, const Request& r, curl_slist*& headers) const = 0;
  // The target, for messages; never a credential.
  virtual std::string name() const = 0;
  // Every file below the target's root, with its size: page by page (S3) or collection by
  // collection (WebDAV).
  virtual Result<std::vector<Listed>> list(Transfer& transfer) const = 0;
  // Whether `r`, a PUT, goes in parts (S3's multipart upload of a large file); its parts,
  // their digests read from the file (which may run beside the sending of another); and
  // sending them, at once on `transfer`, which gives the requests that complete the upload (the
  // object appears, whole) or abandon it: the caller completes several uploads at once. A
  // failure abandons the upload itself. Whether the answer to a completion reports an error
  // (S3 may answer 200 with an error in the body).
  virtual bool in_parts(const Request&) const { return false; }
  virtual Result<std::vector<Request>> parts_of(const Request&) const { return {}; }
  virtual Result<SentParts> put_parts(Transfer&, const Request&, std::vector<Request>) const {
    return SentParts{};
  }
  // Notes files the target holds (its manifest's), whose collections need no MKCOL.
  virtual void holds(std::span<const std::string> /*paths*/) {}
  // Sends `puts` at once on `transfer`, `step` called as each is done, with what the server
  // needs before them: nothing for S3; for WebDAV, the collections they go in (webdav.cpp).
  virtual Result<void> put_all(Transfer& transfer, std::vector<Request> puts,
                               const std::function<void()>& step);
  // Sends `put`, a PUT of a file at the target's root, and its answer: for WebDAV, once more
  // after making the target's own collection where the first found it missing.
  virtual Result<Response> put_at_root(Transfer& transfer, const Request& put);
};

struct TransferOptions {
  unsigned jobs = 8;
  unsigned attempts = 5;
  std::chrono::milliseconds backoff{250};
  std::string ca_file;
  std::chrono::seconds stall{30}; // a transfer moving no byte this long is retried
};

struct TransferStats {
  std::map<std::string, std::size_t> requests; // by method, retries included
  std::size_t retries = 0;
};

class Transfer {
public:
  Transfer(const Remote& remote, TransferOptions options);
  ~Transfer();
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  // Runs `requests`, at most `jobs` at once, and returns their responses in order; `done` is
  // called as each completes. The first that still fails after its attempts ends the run:
  // the error names its method, path and why (status and the server's message, or libcurl's).
  Result<std::vector<Response>> run(std::span<const Request> requests,
                                    const std::function<void()>& done = {});
  // Calls `call` from run() every `period`, while requests are in flight (a publisher
  // writing its lock again during a long batch); an error it returns ends the run.
  void every(std::chrono::steady_clock::duration period, std::function<Result<void>()> call);
  const TransferStats& stats() const noexcept { return stats_; }

  struct Slot; // a request in flight, which libcurl's callbacks see (transfer.cpp)

private:
  struct Batch;
  enum class Verdict { answered, retry, failed };
  Result<void> start(Slot& slot);
  Result<void> fill(Batch& b);
  Verdict judge(const Slot& s, CURLcode code, std::string& why) const;
  Result<void> collect(Batch& b, const std::function<void()>& done);

  const Remote& remote_;
  TransferOptions options_;
  CURLM* multi_;
  TransferStats stats_;
  std::chrono::steady_clock::duration period_{};
  std::function<Result<void>()> call_;
  std::chrono::steady_clock::time_point called_at_;
};

} // namespace opskit::repo::publish
