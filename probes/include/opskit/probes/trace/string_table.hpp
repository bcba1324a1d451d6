// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace opskit::trace {

// A string-keyed hash table built for many keys and small values: keys are copied once into
// 64 KiB arena chunks that never move, entries live in one vector, and the index is an
// open-addressed array of 32-bit slots. A lookup of a known key allocates nothing; per key it
// costs the key's bytes plus about 16 bytes and sizeof(Value). Keys are never removed.
template <class Value>
class StringTable {
public:
  struct Entry {
    const char* key;
    std::uint32_t size;
    std::uint32_t hash;
    Value value;
    std::string_view key_view() const noexcept { return {key, size}; }
  };

  // The value stored under `key`, or nullptr.
  Value* find(std::string_view key) noexcept {
    if (slots_.empty())
      return nullptr;
    auto h = hash_of(key);
    std::size_t slot = locate(key, h);
    return slots_[slot] == 0 ? nullptr : &entries_[slots_[slot] - 1].value;
  }

  // The value stored under `key`, inserting a value-initialised one first when the key is new
  // and the table holds fewer than `limit` keys; nullptr when it is new and the table is full.
  Value* find_or_insert(std::string_view key, std::size_t limit) {
    if (slots_.empty())
      rehash(64);
    auto h = hash_of(key);
    std::size_t slot = locate(key, h);
    if (slots_[slot] != 0)
      return &entries_[slots_[slot] - 1].value;
    if (entries_.size() >= limit)
      return nullptr;
    entries_.push_back(Entry{store(key), static_cast<std::uint32_t>(key.size()), h, Value{}});
    slots_[slot] = static_cast<std::uint32_t>(entries_.size());
    if (entries_.size() * 2 > slots_.size())
      rehash(slots_.size() * 2);
    return &entries_.back().value;
  }

  std::size_t size() const noexcept { return entries_.size(); }
  // Every entry, in insertion order.
  const std::vector<Entry>& entries() const noexcept { return entries_; }

private:
  static constexpr std::size_t k_chunk = 64 * 1024;

  static std::uint32_t hash_of(std::string_view key) noexcept {
    auto h = std::hash<std::string_view>{}(key);
    return static_cast<std::uint32_t>(h ^ (h >> 32));
  }

  // The slot holding `key`, or the empty slot where it would go.
  std::size_t locate(std::string_view key, std::uint32_t h) const noexcept {
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      std::uint32_t s = slots_[i];
      if (s == 0)
        return i;
      const Entry& e = entries_[s - 1];
      if (e.hash == h && e.key_view() == key)
        return i;
    }
  }

  void rehash(std::size_t size) {
    std::vector<std::uint32_t> fresh(size, 0);
    std::size_t mask = size - 1;
    for (std::size_t n = 0; n < entries_.size(); ++n) {
      std::size_t i = entries_[n].hash & mask;
      while (fresh[i] != 0)
        i = (i + 1) & mask;
      fresh[i] = static_cast<std::uint32_t>(n + 1);
    }
    slots_ = std::move(fresh);
  }

  const char* store(std::string_view key) {
    if (key.size() > k_chunk / 4) { // a long key gets an allocation of its own
      long_keys_.push_back(std::make_unique_for_overwrite<char[]>(key.size()));
      std::memcpy(long_keys_.back().get(), key.data(), key.size());
      return long_keys_.back().get();
    }
    if (chunks_.empty() || used_ + key.size() > k_chunk) {
      chunks_.push_back(std::make_unique_for_overwrite<char[]>(k_chunk));
      used_ = 0;
    }
    char* at = chunks_.back().get() + used_;
    if (!key.empty())
      std::memcpy(at, key.data(), key.size());
    used_ += key.size();
    return at;
  }

  std::vector<Entry> entries_;
  std::vector<std::uint32_t> slots_;
  std::vector<std::unique_ptr<char[]>> chunks_;    // the last one is the one being filled
  std::vector<std::unique_ptr<char[]>> long_keys_; // one per key longer than k_chunk / 4
  std::size_t used_ = 0;                           // bytes used in the last chunk
};

} // namespace opskit::trace
