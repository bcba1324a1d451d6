// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "opskit/repo/codec/digest.hpp"

using namespace opskit::repo;

namespace {

// Runs sha256_each over `messages` in order; each digest as hex, by message.
std::vector<std::string> sha256_each_hex(const std::vector<std::string>& messages) {
  std::vector<std::string> out(messages.size());
  std::size_t given = 0;
  std::map<std::size_t, int> done_count;
  sha256_each(
      [&]() -> std::optional<Sha256Job> {
        if (given == messages.size())
          return std::nullopt;
        std::size_t id = given++;
        return Sha256Job{id, messages[id]};
      },
      [&](std::size_t id, const Sha256& digest) {
        ++done_count[id];
        out.at(id) = hex(digest);
      });
  REQUIRE(done_count.size() == messages.size());
  for (auto [id, count] : done_count)
    REQUIRE(count == 1);
  return out;
}

std::string random_bytes(std::size_t size, std::mt19937& gen) {
  std::string out(size, '\0');
  for (auto& c : out)
    c = static_cast<char>(gen());
  return out;
}

} // namespace

TEST_CASE("sha256_each: the FIPS 180-2 examples", "[repo][digest]") {
  auto got = sha256_each_hex({"", "abc", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                              std::string(1000000, 'a')});
  CHECK(got[0] == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(got[1] == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(got[2] == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(got[3] == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256_each: every length around the block and padding edges", "[repo][digest]") {
  // Each length from 0 to 300 covers one and two padding blocks and messages that end in the
  // same block as their neighbour or not.
  std::mt19937 gen(1);
  std::vector<std::string> messages;
  for (std::size_t size = 0; size <= 300; ++size)
    messages.push_back(random_bytes(size, gen));
  auto got = sha256_each_hex(messages);
  for (std::size_t i = 0; i < messages.size(); ++i) {
    INFO("length " << messages[i].size());
    CHECK(got[i] == sha256_hex(messages[i]));
  }
}

TEST_CASE("sha256_each: long and short messages mixed, as a pool is", "[repo][digest]") {
  std::mt19937 gen(2);
  std::vector<std::string> messages;
  for (std::size_t size : {std::size_t{2} << 20, std::size_t{3}, std::size_t{70001},
                           std::size_t{1} << 20, std::size_t{64}, std::size_t{(2 << 20) + 1},
                           std::size_t{5000}, std::size_t{0}, std::size_t{1} << 16})
    messages.push_back(random_bytes(size, gen));
  auto got = sha256_each_hex(messages);
  for (std::size_t i = 0; i < messages.size(); ++i) {
    INFO("length " << messages[i].size());
    CHECK(got[i] == sha256_hex(messages[i]));
  }
  CHECK(sha256_each_hex({}).empty());
}
