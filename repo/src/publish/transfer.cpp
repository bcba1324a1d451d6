// SPDX-License-Identifier: MIT
#include "publish/transfer.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <random>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "opskit/handle.hpp"
#include "opskit/text.hpp"
#include "publish/answers.hpp"
#include "publish/curl_api.hpp"

namespace opskit::repo::publish {

using Clock = std::chrono::steady_clock;

// One request in flight.
struct Transfer::Slot {
  const CurlApi* api = nullptr;
  const Request* request = nullptr;
  std::size_t index = 0;
  unsigned attempt = 0;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  UniqueFd fd;
  std::uint64_t offset = 0;
  Response response;
  std::string etag;
  // S3 encrypted the object with a KMS key or the client's own (SSE-KMS, SSE-C): its ETag
  // is then no MD5 of the bytes.
  bool encrypted = false;
  char error[CURL_ERROR_SIZE] = {};

  Slot() = default;
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
  ~Slot() {
    if (easy)
      api->easy_cleanup(easy);
    if (headers)
      api->slist_free_all(headers);
  }
};

namespace {

constexpr std::size_t k_error_body = 4096;   // of an error's body, kept for its message
constexpr std::size_t k_max_get = 256 << 20; // a manifest or lock larger is refused

std::size_t read_body(char* buffer, std::size_t size, std::size_t count, void* p) {
  auto* slot = static_cast<Transfer::Slot*>(p);
  const Request& r = *slot->request;
  std::size_t want = std::min<std::uint64_t>(size * count, r.size - slot->offset);
  if (want == 0)
    return 0;
  if (slot->fd) {
    ssize_t n = ::pread(slot->fd.get(), buffer, want, static_cast<off_t>(r.from + slot->offset));
    if (n <= 0)
      return CURL_READFUNC_ABORT; // the file shrank or cannot be read: this attempt fails
    want = static_cast<std::size_t>(n);
  } else {
    std::memcpy(buffer, r.data.data() + slot->offset, want);
  }
  slot->offset += want;
  return want;
}

int seek_body(void* p, curl_off_t offset, int origin) {
  auto* slot = static_cast<Transfer::Slot*>(p);
  if (origin != SEEK_SET || offset < 0)
    return CURL_SEEKFUNC_CANTSEEK;
  slot->offset = static_cast<std::uint64_t>(offset);
  return CURL_SEEKFUNC_OK;
}

std::size_t write_body(char* data, std::size_t size, std::size_t count, void* p) {
  auto* slot = static_cast<Transfer::Slot*>(p);
  std::size_t n = size * count;
  const std::string& method = slot->request->method;
  // The body is what was asked for: a manifest, a listing, an upload's id or its outcome.
  bool answer = method == "GET" || method == "PROPFIND" || method == "POST";
  std::size_t limit = answer ? k_max_get : k_error_body;
  if (slot->response.body.size() + n > limit) {
    if (answer)
      return 0; // ends the transfer with CURLE_WRITE_ERROR
    n = limit - slot->response.body.size();
  }
  slot->response.body.append(data, n);
  return size * count;
}

std::size_t read_header(char* data, std::size_t size, std::size_t count, void* p) {
  auto* slot = static_cast<Transfer::Slot*>(p);
  std::string_view line(data, size * count);
  while (line.ends_with('\n') || line.ends_with('\r')) // a header line ends with CRLF
    line.remove_suffix(1);
  std::size_t colon = line.find(':');
  if (colon == std::string_view::npos)
    return size * count;
  std::string_view name = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
  if (iequals(name, "ETag")) {
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    slot->etag = std::string(value);
  } else if ((iequals(name, "x-amz-server-side-encryption") && value.starts_with("aws:kms")) ||
             iequals(name, "x-amz-server-side-encryption-customer-algorithm")) {
    slot->encrypted = true;
  }
  return size * count;
}

// Whether a failure of libcurl may pass on another attempt.
bool transient(CURLcode code) {
  switch (code) {
  case CURLE_COULDNT_CONNECT:
  case CURLE_OPERATION_TIMEDOUT:
  case CURLE_SEND_ERROR:
  case CURLE_RECV_ERROR:
  case CURLE_GOT_NOTHING:
  case CURLE_PARTIAL_FILE:
  case CURLE_HTTP2:
  case CURLE_HTTP2_STREAM:
  case CURLE_ABORTED_BY_CALLBACK:
  case CURLE_READ_ERROR:
    return true;
  default:
    return false;
  }
}

bool transient(long status) {
  return status >= 500 || status == 429 || status == 408;
}

// S3's errors that another attempt may get past, whatever their status: a request that went
// idle too long (400), a body that arrived other than sent (400 BadDigest), and those of 5xx,
// which CompleteMultipartUpload sends with a 200.
bool transient(const S3Error& error) {
  for (std::string_view code :
       {"RequestTimeout", "BadDigest", "InternalError", "SlowDown", "ServiceUnavailable"})
    if (error.code == code)
      return true;
  return false;
}

// What the server said of an error: S3's <Message>, else its first line.
std::string server_message(std::string_view body) {
  std::string_view said = body;
  if (auto at = body.find("<Message>"); at != std::string_view::npos) {
    said = body.substr(at + 9);
    said = said.substr(0, said.find("</Message>"));
  } else if (body.find('<') != std::string_view::npos) {
    return ""; // an HTML page: its status says as much
  }
  said = trim(said.substr(0, said.find('\n')));
  if (said.size() > 200)
    said = said.substr(0, 200);
  return printable(said);
}

bool hex_md5(std::string_view s) {
  return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

} // namespace

Result<void> Remote::put_all(Transfer& transfer, std::vector<Request> puts,
                             const std::function<void()>& step) {
  OPSKIT_TRY(transfer.run(puts, step));
  return {};
}

Result<Response> Remote::put_at_root(Transfer& transfer, const Request& put) {
  OPSKIT_TRY_ASSIGN(auto answer, transfer.run({&put, 1}));
  return std::move(answer[0]);
}

Transfer::Transfer(const Remote& remote, TransferOptions options)
    : remote_(remote), options_(std::move(options)), multi_(nullptr) {
  options_.jobs = std::max(1u, options_.jobs);
  options_.attempts = std::max(1u, options_.attempts);
}

Transfer::~Transfer() {
  if (multi_)
    (*curl_api())->multi_cleanup(multi_);
}

Result<void> Transfer::start(Slot& slot) {
  OPSKIT_TRY_ASSIGN(slot.api, curl_api());
  const CurlApi& c = *slot.api;
  const Request& r = *slot.request;
  slot.easy = c.easy_init();
  if (!slot.easy)
    return fail("libcurl: out of memory");
  CURL* e = slot.easy;
  c.easy_setopt(e, CURLOPT_PRIVATE, &slot);
  c.easy_setopt(e, CURLOPT_ERRORBUFFER, slot.error);
  c.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  c.easy_setopt(e, CURLOPT_CONNECTTIMEOUT, 15L);
  c.easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
  c.easy_setopt(e, CURLOPT_LOW_SPEED_TIME, static_cast<long>(options_.stall.count()));
  if (!options_.ca_file.empty())
    c.easy_setopt(e, CURLOPT_CAINFO, options_.ca_file.c_str());
  c.easy_setopt(e, CURLOPT_WRITEFUNCTION, write_body);
  c.easy_setopt(e, CURLOPT_WRITEDATA, &slot);
  c.easy_setopt(e, CURLOPT_HEADERFUNCTION, read_header);
  c.easy_setopt(e, CURLOPT_HEADERDATA, &slot);
  if (r.method == "PUT") {
    if (!r.file.empty()) {
      slot.fd = UniqueFd(::open(r.file.c_str(), O_RDONLY | O_CLOEXEC));
      if (!slot.fd)
        return fail(Error::from_errno("open", r.file));
    }
    c.easy_setopt(e, CURLOPT_UPLOAD, 1L);
    c.easy_setopt(e, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(r.size));
    c.easy_setopt(e, CURLOPT_READFUNCTION, read_body);
    c.easy_setopt(e, CURLOPT_READDATA, &slot);
    c.easy_setopt(e, CURLOPT_SEEKFUNCTION, seek_body);
    c.easy_setopt(e, CURLOPT_SEEKDATA, &slot);
    // The body follows the headers without waiting for a 100 Continue. Not by removing the
    // Expect header with "Expect:": libcurl before 8.3 signs a removed header into SigV4's
    // SignedHeaders (curl issue 11664), and a store that checks them refuses the request.
    c.easy_setopt(e, CURLOPT_EXPECT_100_TIMEOUT_MS, 0L);
  } else if (r.method == "POST") {
    c.easy_setopt(e, CURLOPT_POST, 1L);
    c.easy_setopt(e, CURLOPT_POSTFIELDS, r.data.c_str());
    c.easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.data.size()));
  } else if (r.method != "GET") {
    c.easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  }
  for (const auto& h : r.headers)
    slot.headers = c.slist_append(slot.headers, h.c_str());
  remote_.prepare(e, r, slot.headers);
  c.easy_setopt(e, CURLOPT_HTTPHEADER, slot.headers);
  if (c.multi_add_handle(multi_, e) != CURLM_OK)
    return fail("libcurl: cannot add a transfer");
  return {};
}

// One call of run(): what is queued, waiting to be tried again, and in flight.
struct Transfer::Batch {
  struct Retry {
    Clock::time_point at;
    std::size_t index;
    unsigned attempt;
  };
  std::span<const Request> requests;
  std::vector<Response> responses;
  std::deque<std::size_t> queue;
  std::vector<Retry> retries;
  std::vector<std::unique_ptr<Slot>> active;
  std::mt19937 random{std::random_device{}()};
};

// Starts requests, retries first once their time has come, until `jobs` are in flight.
Result<void> Transfer::fill(Batch& b) {
  auto now = Clock::now();
  while (b.active.size() < options_.jobs) {
    auto slot = std::make_unique<Slot>();
    auto ready = std::find_if(b.retries.begin(), b.retries.end(),
                              [&](const Batch::Retry& r) { return r.at <= now; });
    if (ready != b.retries.end()) {
      slot->index = ready->index;
      slot->attempt = ready->attempt;
      b.retries.erase(ready);
    } else if (!b.queue.empty()) {
      slot->index = b.queue.front();
      b.queue.pop_front();
    } else {
      return {};
    }
    slot->request = &b.requests[slot->index];
    OPSKIT_TRY(start(*slot));
    b.active.push_back(std::move(slot));
  }
  return {};
}

// What a finished attempt of `s` comes to; `why` says what went wrong when it did not answer.
Transfer::Verdict Transfer::judge(const Slot& s, CURLcode code, std::string& why) const {
  const Request& r = *s.request;
  long status = s.response.status;
  bool answered = code == CURLE_OK &&
                  ((status >= 200 && status < 300) ||
                   std::find(r.also_ok.begin(), r.also_ok.end(), status) != r.also_ok.end());
  std::optional<S3Error> refused;
  if (code == CURLE_OK && (!answered || r.error_in_ok))
    refused = s3_error(s.response.body);
  answered = answered && !(r.error_in_ok && refused);
  bool again = false;
  if (answered && r.method == "PUT" && !r.md5.empty() && !s.encrypted && hex_md5(s.etag) &&
      s.etag != r.md5) {
    why = fmt::format("the server stored other bytes (ETag {}, sent MD5 {})", s.etag, r.md5);
    again = true;
  } else if (answered) {
    return Verdict::answered;
  } else if (code != CURLE_OK) {
    why = s.error[0] ? std::string(trim(s.error)) : (*curl_api())->easy_strerror(code);
    again = transient(code);
  } else {
    std::string said = server_message(s.response.body);
    why = said.empty() ? fmt::format("HTTP {}", status) : fmt::format("HTTP {}: {}", status, said);
    if (refused && !refused->code.empty())
      why += fmt::format(" ({})", refused->code);
    again = transient(status) || (refused && transient(*refused));
  }
  return again && s.attempt + 1 < options_.attempts ? Verdict::retry : Verdict::failed;
}

// Takes what libcurl finished: answers are kept, transient failures queued again after a
// backoff that doubles each attempt, with jitter; the first lasting failure is the error.
Result<void> Transfer::collect(Batch& b, const std::function<void()>& done) {
  const CurlApi& c = **curl_api();
  int left = 0;
  while (CURLMsg* msg = c.multi_info_read(multi_, &left)) {
    if (msg->msg != CURLMSG_DONE)
      continue;
    auto it = std::find_if(b.active.begin(), b.active.end(),
                           [&](const auto& s) { return s->easy == msg->easy_handle; });
    Slot& s = **it;
    const Request& r = *s.request;
    c.easy_getinfo(s.easy, CURLINFO_RESPONSE_CODE, &s.response.status);
    c.multi_remove_handle(multi_, s.easy);
    ++stats_.requests[r.method];
    std::string why;
    switch (judge(s, msg->data.result, why)) {
    case Verdict::answered:
      s.response.etag = std::move(s.etag);
      b.responses[s.index] = std::move(s.response);
      if (done)
        done();
      break;
    case Verdict::retry: {
      ++stats_.retries;
      double jitter = std::uniform_real_distribution<double>(0.5, 1.5)(b.random);
      auto wait = std::chrono::duration_cast<Clock::duration>(options_.backoff * (1u << s.attempt) *
                                                              jitter);
      b.retries.push_back({Clock::now() + wait, s.index, s.attempt + 1});
      break;
    }
    case Verdict::failed:
      return fail(
          fmt::format("{} {}{}: {}{}", r.method, remote_.name(), r.path, why,
                      s.attempt > 0 ? fmt::format(" (after {} attempts)", s.attempt + 1) : ""));
    }
    b.active.erase(it);
  }
  return {};
}

void Transfer::every(std::chrono::steady_clock::duration period,
                     std::function<Result<void>()> call) {
  period_ = period;
  call_ = std::move(call);
  called_at_ = std::chrono::steady_clock::now();
}

Result<std::vector<Response>> Transfer::run(std::span<const Request> requests,
                                            const std::function<void()>& done) {
  OPSKIT_TRY_ASSIGN(const CurlApi* c, curl_api());
  if (!multi_) {
    multi_ = c->multi_init();
    if (!multi_)
      return fail("libcurl: out of memory");
    c->multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(options_.jobs));
    c->multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(options_.jobs));
  }
  Batch b;
  b.requests = requests;
  b.responses.resize(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i)
    b.queue.push_back(i);
  Result<void> going;
  while (going && (!b.queue.empty() || !b.retries.empty() || !b.active.empty())) {
    going = fill(b);
    int running = 0;
    if (going)
      c->multi_perform(multi_, &running);
    if (going)
      going = collect(b, done);
    if (going && call_ && std::chrono::steady_clock::now() - called_at_ >= period_) {
      called_at_ = std::chrono::steady_clock::now();
      going = call_();
    }
    if (going && b.active.empty() && !b.retries.empty()) {
      auto next = std::min_element(
          b.retries.begin(), b.retries.end(),
          [](const Batch::Retry& x, const Batch::Retry& y) { return x.at < y.at; });
      std::this_thread::sleep_until(next->at);
    } else if (going && !b.active.empty()) {
      c->multi_poll(multi_, nullptr, 0, 100, nullptr);
    }
  }
  for (auto& s : b.active) // what was still in flight when a request failed for good
    c->multi_remove_handle(multi_, s->easy);
  if (!going)
    return fail(going.error());
  return std::move(b.responses);
}

} // namespace opskit::repo::publish
