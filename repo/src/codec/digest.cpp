// SPDX-License-Identifier: MIT
#include "opskit/repo/codec/digest.hpp"

#include <algorithm>
#include <array>
#include <future>
#include <stdexcept>

#include <openssl/evp.h>

#include "opskit/handle.hpp"
#if OPSKIT_SHA_NI
#include "codec/sha256_ni.hpp"
#endif

namespace opskit::repo {

std::string hex(std::string_view bytes) {
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out(2 * bytes.size(), '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    auto b = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = k_digits[b >> 4];
    out[2 * i + 1] = k_digits[b & 0xf];
  }
  return out;
}

std::string hex(const Sha256& digest) {
  return hex(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

namespace {

using MdCtx = CPtr<EVP_MD_CTX, EVP_MD_CTX_free>;

// Failures of EVP_* with built-in digests mean a broken OpenSSL: a bug, not an input error.
MdCtx start(const EVP_MD* md) {
  MdCtx ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1)
    throw std::runtime_error("OpenSSL: cannot initialise a digest");
  return ctx;
}

std::string finish_raw(EVP_MD_CTX* ctx) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned size = 0;
  if (EVP_DigestFinal_ex(ctx, md.data(), &size) != 1)
    throw std::runtime_error("OpenSSL: cannot finish a digest");
  return std::string(reinterpret_cast<const char*>(md.data()), size);
}

std::string finish(EVP_MD_CTX* ctx) {
  return hex(finish_raw(ctx));
}

// One message at a time, with OpenSSL.
void sha256_each_openssl(const std::function<std::optional<Sha256Job>()>& next,
                         const std::function<void(std::size_t, const Sha256&)>& done) {
  while (auto job = next()) {
    Sha256 digest{};
    if (EVP_Digest(job->bytes.data(), job->bytes.size(), digest.data(), nullptr, EVP_sha256(),
                   nullptr) != 1)
      throw std::runtime_error("OpenSSL: cannot compute a digest");
    done(job->id, digest);
  }
}

} // namespace

Digests digest_all(std::string_view data, Hash which) {
  // A large index's digests take longer than its writing: the weak ones on another CPU.
  constexpr std::size_t k_split_from = 1 << 20;
  Hash weak = which & (Hash::md5 | Hash::sha1), strong = which & (Hash::sha256 | Hash::sha512);
  if (weak != Hash{} && strong != Hash{} && data.size() >= k_split_from) {
    auto other = std::async(std::launch::async, [data, weak] { return digest_all(data, weak); });
    Digests d = digest_all(data, strong);
    Digests w = other.get();
    d.md5 = std::move(w.md5);
    d.sha1 = std::move(w.sha1);
    return d;
  }
  const EVP_MD* kinds[4] = {EVP_md5(), EVP_sha1(), EVP_sha256(), EVP_sha512()};
  std::array<MdCtx, 4> ctx;
  for (unsigned i = 0; i < 4; ++i)
    if (static_cast<unsigned>(which) & (1u << i))
      ctx[i] = start(kinds[i]);
  // Chunks that stay in cache while the digests pass over them.
  constexpr std::size_t k_chunk = 64 * 1024;
  for (std::size_t at = 0; at < data.size(); at += k_chunk) {
    auto chunk = data.substr(at, k_chunk);
    for (auto& c : ctx)
      if (c)
        EVP_DigestUpdate(c.get(), chunk.data(), chunk.size());
  }
  Digests d;
  d.size = data.size();
  std::string* out[4] = {&d.md5, &d.sha1, &d.sha256, &d.sha512};
  for (unsigned i = 0; i < 4; ++i)
    if (ctx[i])
      *out[i] = finish(ctx[i].get());
  return d;
}

std::string sha256_hex(std::string_view data) {
  auto ctx = start(EVP_sha256());
  EVP_DigestUpdate(ctx.get(), data.data(), data.size());
  return finish(ctx.get());
}

void sha256_each(const std::function<std::optional<Sha256Job>()>& next,
                 const std::function<void(std::size_t, const Sha256&)>& done) {
#if !OPSKIT_SHA_NI
  sha256_each_openssl(next, done);
#else
  if (!detail::sha_extensions()) {
    sha256_each_openssl(next, done);
    return;
  }
  // Two lanes, each holding a message until its whole blocks are hashed; a lane that runs out
  // is finished and takes the next message, so that both stay busy while messages remain.
  struct Lane {
    detail::ShaNiLane sha;
    std::size_t id = 0;
    bool busy = false;
  };
  std::array<Lane, 2> lanes;
  bool drained = false;
  auto take = [&](Lane& lane) {
    std::optional<Sha256Job> job;
    if (!drained && !(job = next()))
      drained = true;
    lane.busy = job.has_value();
    if (job) {
      lane.sha = detail::sha_ni_start(job->bytes);
      lane.id = job->id;
    }
  };
  for (auto& lane : lanes)
    take(lane);
  auto& [a, b] = lanes;
  while (a.busy || b.busy) {
    if (a.busy && b.busy) {
      detail::sha_ni_run2(a.sha, b.sha,
                          std::min(detail::sha_ni_blocks(a.sha), detail::sha_ni_blocks(b.sha)));
    } else {
      auto& lane = a.busy ? a : b;
      detail::sha_ni_run(lane.sha, detail::sha_ni_blocks(lane.sha));
    }
    for (auto& lane : lanes)
      if (lane.busy && detail::sha_ni_blocks(lane.sha) == 0) {
        done(lane.id, detail::sha_ni_finish(lane.sha));
        take(lane);
      }
  }
#endif
}

struct Sha256Stream::Context {
  MdCtx md = start(EVP_sha256());
};

Sha256Stream::Sha256Stream() : ctx_(std::make_unique<Context>()) {}
Sha256Stream::Sha256Stream(Sha256Stream&&) noexcept = default;
Sha256Stream& Sha256Stream::operator=(Sha256Stream&&) noexcept = default;
Sha256Stream::~Sha256Stream() = default;

Sha256Stream& Sha256Stream::update(std::string_view data) {
  EVP_DigestUpdate(ctx_->md.get(), data.data(), data.size());
  return *this;
}

std::string Sha256Stream::hex() {
  return finish(ctx_->md.get());
}

std::string Sha256Stream::raw() {
  return finish_raw(ctx_->md.get());
}

} // namespace opskit::repo
