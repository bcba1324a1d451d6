// SPDX-License-Identifier: MIT
#include "publish/publisher.hpp"

#include <algorithm>
#include <ctime>
#include <future>
#include <random>
#include <thread>

#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "opskit/repo/codec/digest.hpp"
#include "publish/lock_owner.hpp"

namespace opskit::repo::publish {

namespace {

using namespace std::chrono_literals;

// A lock expires this long after it was last written, so that one whose publisher died does
// not stop every later publish; a live publisher writes it again well before.
constexpr auto k_lock_lifetime = 10min;

Request put_bytes(std::string path, std::string data) {
  Request r;
  r.method = "PUT";
  r.path = std::move(path);
  Digests d = digest_all(data, Hash::md5 | Hash::sha256);
  r.size = data.size();
  r.sha256 = std::move(d.sha256);
  r.md5 = std::move(d.md5);
  r.data = std::move(data);
  return r;
}

Request get(std::string path) {
  Request r;
  r.method = "GET";
  r.path = std::move(path);
  r.also_ok = {404};
  return r;
}

std::string random_token() {
  std::random_device random;
  return fmt::format("{:08x}{:08x}{:08x}", random(), random(), random());
}

std::string host_name() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

} // namespace

Publisher::Publisher(Remote& remote, TransferOptions options,
                     std::function<void(std::size_t, std::size_t)> progress,
                     std::chrono::seconds lock_refresh)
    : remote_(remote), transfer_(remote, options), renewals_(remote, options),
      progress_(std::move(progress)), lock_refresh_(lock_refresh) {}

TransferStats Publisher::stats() const {
  TransferStats all = transfer_.stats();
  for (const auto& [method, n] : renewals_.stats().requests)
    all.requests[method] += n;
  all.retries += renewals_.stats().retries;
  return all;
}

Result<std::optional<Manifest>>
Publisher::read_manifest(const std::function<void(std::string_view)>& notice) {
  Request r = get(k_manifest);
  OPSKIT_TRY_ASSIGN(auto responses, transfer_.run({&r, 1}));
  if (responses[0].status == 404)
    return std::optional<Manifest>();
  auto manifest = parse_manifest(responses[0].body);
  if (!manifest) {
    if (notice)
      notice(fmt::format("{}{}: {}; sending every file", remote_.name(), k_manifest,
                         manifest.error().message()));
    return std::optional<Manifest>();
  }
  std::vector<std::string> held;
  for (const auto& [path, entry] : *manifest)
    held.push_back(path);
  remote_.holds(held);
  return std::optional<Manifest>(std::move(*manifest));
}

Result<long> Publisher::put_lock(std::string condition, Transfer& transfer) {
  std::time_t expires = std::time(nullptr) +
                        std::chrono::duration_cast<std::chrono::seconds>(k_lock_lifetime).count();
  nlohmann::json body = {{"owner", fmt::format("{} pid {}", host_name(), ::getpid())},
                         {"token", token_},
                         {"expires", expires}};
  add_to(body, this_process());
  Request r = put_bytes(k_lock, body.dump() + "\n");
  if (!condition.empty()) {
    r.headers.push_back(std::move(condition));
    // 412: another publisher's write came first; 400, 501: a store that does not take the
    // condition, written again without it.
    r.also_ok = {412, 400, 501};
  }
  // The first PUT of a publish: on WebDAV it makes the target's collection where it is missing.
  OPSKIT_TRY_ASSIGN(auto answer, remote_.put_at_root(transfer, r));
  if (answer.status == 400 || answer.status == 501) {
    r.headers.clear();
    r.also_ok.clear();
    OPSKIT_TRY_ASSIGN(answer, remote_.put_at_root(transfer, r));
  }
  return answer.status;
}

namespace {

// The condition of a write over the lock `read`: that it is still that one.
std::string if_match(const Response& read) {
  return read.etag.empty() ? "" : fmt::format("If-Match: \"{}\"", read.etag);
}

} // namespace

namespace {

// The target's lock as read: held when there and not expired, unless its owner ran on this
// machine and is provably dead (then `dead` names it).
struct HeldLock {
  bool held = false;
  std::string token, owner, dead;
  std::time_t expires = 0;
};

HeldLock held_lock(const Response& read) {
  HeldLock lock;
  auto body = nlohmann::json::parse(read.body, nullptr, false);
  if (read.status == 404 || !body.is_object() || !body.contains("expires") ||
      !body["expires"].is_number_integer())
    return lock;
  lock.expires = body["expires"].get<std::time_t>();
  lock.owner = body.contains("owner") && body["owner"].is_string()
                   ? body["owner"].get<std::string>()
                   : "another publisher";
  if (lock.expires <= std::time(nullptr))
    return lock;
  if (provably_dead(owner_of(body))) {
    lock.dead = lock.owner;
    return lock;
  }
  lock.held = true;
  if (body.contains("token") && body["token"].is_string())
    lock.token = body["token"].get<std::string>();
  return lock;
}

} // namespace

Result<void> Publisher::lock(std::chrono::seconds wait,
                             const std::function<void(std::string_view)>& notice) {
  auto deadline = std::chrono::steady_clock::now() + wait;
  std::string mine = random_token();
  bool wrote = false;
  int unseen = 0; // writes of ours read back, one after the other, as no lock at all
  for (;;) {
    Request r = get(k_lock);
    OPSKIT_TRY_ASSIGN(auto read, transfer_.run({&r, 1}));
    HeldLock held = held_lock(read[0]);
    if (held.held && held.token == mine) { // ours: no other publisher wrote after us
      token_ = mine;
      transfer_.every(lock_refresh_, [this] { return renew_lock(); });
      return {};
    }
    if (held.held) {
      wrote = false; // another's: what it lets go is not ours gone missing
      unseen = 0;
      if (std::chrono::steady_clock::now() >= deadline) {
        char when[32] = {};
        std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&held.expires));
        return fail(fmt::format("{}: being published by {} (its lock {}{} expires at {}); "
                                "--wait SECONDS waits for it",
                                remote_.name(), held.owner, remote_.name(), k_lock, when));
      }
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
          1s, deadline - std::chrono::steady_clock::now()));
      continue;
    }
    if (wrote) {
      // Written, then read back as no lock: another publish may have come and gone between,
      // but again and again is a store that does not give back what is put there.
      if (++unseen == 3)
        return fail(fmt::format("{}{}: written, then read back as {}, three times: the target "
                                "does not serve what is put there (a cache, or a rewrite of "
                                "missing files, in front of it?)",
                                remote_.name(), k_lock,
                                read[0].status == 404 ? "missing" : "something else"));
      std::this_thread::sleep_for(1s);
    }
    if (!held.dead.empty() && notice)
      notice(fmt::format("{}{}: taking over the lock of {}, which is no longer running",
                         remote_.name(), k_lock, held.dead));
    // Free, or left by a publisher that died: write ours only if it is still so where the
    // store can tell (S3's conditional writes: If-None-Match, or If-Match of the lock seen),
    // then read it back, for where it cannot, two that wrote at once see the same last writer.
    token_ = mine;
    auto written =
        put_lock(read[0].status == 404 ? "If-None-Match: *" : if_match(read[0]), transfer_);
    token_.clear();
    OPSKIT_TRY(written);
    wrote = *written != 412; // 412: another's write came first
  }
}

Result<void> Publisher::renew_lock() {
  Request r = get(k_lock);
  OPSKIT_TRY_ASSIGN(auto read, renewals_.run({&r, 1}));
  HeldLock held = held_lock(read[0]);
  if (held.held && held.token == token_) {
    // Only over the lock just read, where the store takes the condition: another publisher's
    // written since is not overwritten.
    OPSKIT_TRY_ASSIGN(long status, put_lock(if_match(read[0]), renewals_));
    if (status != 412)
      return {};
    // Another publisher's write came first, or this one's own, retried after its answer was
    // lost: the lock tells which.
    OPSKIT_TRY_ASSIGN(read, renewals_.run({&r, 1}));
    held = held_lock(read[0]);
    if (held.held && held.token == token_)
      return {};
  }
  token_.clear(); // not ours to delete
  transfer_.every({}, {});
  return fail(fmt::format("{}{}: the lock of this publish is {} now (another publisher took it, "
                          "or it went unwritten past its expiry); publish again",
                          remote_.name(), k_lock, held.held ? "held by " + held.owner : "gone"));
}

Result<void> Publisher::unlock() {
  if (token_.empty())
    return {};
  transfer_.every({}, {});
  Request r;
  r.method = "DELETE";
  r.path = k_lock;
  r.also_ok = {404};
  OPSKIT_TRY(transfer_.run({&r, 1}));
  token_.clear();
  return {};
}

// Large files in parts, one file at a time with its parts at once, the next file's parts read
// and hashed while these are sent; then every upload completed at once. A store assembles the
// object when its upload completes (s3rver rewrites the whole file then): one after the other,
// those waits added up, where together they overlap. A failure abandons every upload begun.
Result<void> Publisher::send_in_parts(std::span<const Request> files,
                                      const std::function<void()>& step) {
  auto read_parts = [this](const Request& r) {
    return std::async(std::launch::async, [this, &r] { return remote_.parts_of(r); });
  };
  std::vector<SentParts> pending;
  auto abandon = [&](Error error) -> Result<void> {
    std::vector<Request> aborts;
    for (const auto& p : pending)
      aborts.push_back(p.abort);
    (void)transfer_.run(aborts); // best effort: the error to report is the first
    return fail(std::move(error));
  };
  std::future<Result<std::vector<Request>>> next;
  if (!files.empty())
    next = read_parts(files[0]);
  for (std::size_t i = 0; i < files.size(); ++i) {
    auto parts = next.get();
    if (i + 1 < files.size())
      next = read_parts(files[i + 1]);
    auto sent = parts ? remote_.put_parts(transfer_, files[i], std::move(*parts))
                      : Result<SentParts>(std::unexpected(parts.error()));
    if (!sent) {
      if (next.valid())
        next.wait(); // it reads files[i + 1], which must outlive it
      return abandon(sent.error());
    }
    pending.push_back(std::move(*sent));
  }
  std::vector<Request> completes;
  for (const auto& p : pending)
    completes.push_back(p.complete);
  auto answers = transfer_.run(completes, step);
  if (!answers)
    return abandon(answers.error());
  return {};
}

Result<void> Publisher::run_batch(std::vector<Request> batch) {
  if (batch.empty())
    return {};
  auto step = [this] {
    if (progress_)
      progress_(++done_, total_);
  };
  auto large = std::stable_partition(batch.begin(), batch.end(),
                                     [&](const Request& r) { return !remote_.in_parts(r); });
  OPSKIT_TRY(send_in_parts({large, batch.end()}, step));
  batch.erase(large, batch.end());
  return remote_.put_all(transfer_, std::move(batch), step);
}

Result<void> Publisher::send(const Plan& plan, const std::vector<std::string>& md5,
                             const Manifest& next) {
  // One batch a phase, in the phases' order; the dnf signatures in a batch of their own just
  // before the top-level files, so that what a client may see of a new signature beside an
  // old repomd.xml lasts one batch of requests.
  constexpr auto k_top = static_cast<std::size_t>(detail::Phase::top_level);
  constexpr std::size_t k_dnf_signatures = k_top, k_top_batch = k_top + 1;
  std::vector<std::vector<Request>> batches(k_top_batch + 1);
  for (std::size_t i = 0; i < plan.upload.size(); ++i) {
    const tree::GenerationFile& f = *plan.upload[i];
    auto phase = static_cast<std::size_t>(f.phase);
    std::size_t batch = f.path.ends_with("/repomd.xml.asc") ? k_dnf_signatures
                        : phase == k_top                    ? k_top_batch
                                                            : phase;
    Request r;
    r.method = "PUT";
    r.path = f.path;
    r.file = f.source;
    r.size = f.size;
    r.sha256 = next.find(f.path)->second.sha256;
    r.md5 = md5[i];
    batches[batch].push_back(std::move(r));
  }
  done_ = 0;
  total_ = plan.upload.size() + 1;
  for (std::size_t i = 0; i < k_dnf_signatures; ++i)
    OPSKIT_TRY(run_batch(std::move(batches[i])));
  OPSKIT_TRY_ASSIGN(auto previous, signatures_before(batches[k_dnf_signatures]));
  for (std::size_t i = k_dnf_signatures; i < batches.size(); ++i)
    if (auto sent = run_batch(std::move(batches[i])); !sent) {
      restore_signatures(previous, next);
      return sent;
    }
  return write_manifest(next);
}

Result<void> Publisher::write_manifest(const Manifest& manifest) {
  std::vector<Request> put;
  put.push_back(put_bytes(k_manifest, manifest_json(manifest)));
  return run_batch(std::move(put));
}

// The target's dnf signatures that `signatures` (PUTs of repomd.xml.asc) replace, as they are
// before; those the target does not hold are left out.
Result<std::vector<Publisher::Previous>>
Publisher::signatures_before(const std::vector<Request>& signatures) {
  std::vector<Request> reads;
  for (const auto& r : signatures)
    reads.push_back(get(r.path));
  OPSKIT_TRY_ASSIGN(auto read, transfer_.run(reads));
  std::vector<Previous> held;
  for (std::size_t i = 0; i < reads.size(); ++i)
    if (read[i].status / 100 == 2)
      held.push_back({reads[i].path, std::move(read[i].body)});
  return held;
}

// After a publish failed between the dnf signatures and their repomd.xml, puts the previous
// signature back beside each repomd.xml that is not (or not known to be) the new one, so that
// dnf does not refuse the old metadata until the next publish. Best effort: the error to report
// is the publish's.
void Publisher::restore_signatures(const std::vector<Previous>& previous, const Manifest& next) {
  std::vector<Request> puts;
  for (const auto& p : previous) {
    Request repomd = get(p.path.substr(0, p.path.size() - 4)); // repomd.xml.asc -> repomd.xml
    auto read = transfer_.run({&repomd, 1});                   // each alone: one may fail
    auto entry = next.find(repomd.path);
    bool replaced = read && (*read)[0].status / 100 == 2 && entry != next.end() &&
                    sha256_hex((*read)[0].body) == entry->second.sha256;
    if (!replaced)
      puts.push_back(put_bytes(p.path, p.bytes));
  }
  (void)transfer_.run(puts);
}

Result<void> Publisher::remove(const std::vector<std::string>& paths) {
  std::vector<Request> batch;
  for (const auto& path : paths) {
    Request r;
    r.method = "DELETE";
    r.path = path;
    r.also_ok = {404};
    batch.push_back(std::move(r));
  }
  if (batch.empty())
    return {};
  OPSKIT_TRY(transfer_.run(batch));
  return {};
}

} // namespace opskit::repo::publish
