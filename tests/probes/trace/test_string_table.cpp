// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <string>

#include "opskit/probes/trace/string_table.hpp"

using opskit::trace::StringTable;

TEST_CASE("string table: finds what it stored across growth", "[probes][trace]") {
  StringTable<int> table;
  for (int i = 0; i < 20'000; ++i)
    *table.find_or_insert("/some/dir/file" + std::to_string(i), 1'000'000) = i;
  CHECK(table.size() == 20'000);
  for (int i = 0; i < 20'000; i += 997) {
    auto* value = table.find("/some/dir/file" + std::to_string(i));
    REQUIRE(value != nullptr);
    CHECK(*value == i);
  }
  CHECK(table.find("/some/dir/file20000") == nullptr);
  CHECK(table.entries()[5].key_view() == "/some/dir/file5");
}

TEST_CASE("string table: a full table refuses new keys but serves known ones", "[probes][trace]") {
  StringTable<int> table;
  REQUIRE(table.find_or_insert("a", 2) != nullptr);
  REQUIRE(table.find_or_insert("b", 2) != nullptr);
  CHECK(table.find_or_insert("c", 2) == nullptr);
  CHECK(table.find_or_insert("a", 2) != nullptr);
  CHECK(table.size() == 2);
}

TEST_CASE("string table: long and empty keys are stored whole", "[probes][trace]") {
  StringTable<int> table;
  std::string long_key(100'000, 'x');
  long_key.back() = 'y';
  *table.find_or_insert(long_key, 10) = 1;
  *table.find_or_insert("", 10) = 2;
  *table.find_or_insert("short", 10) = 3;
  CHECK(*table.find(long_key) == 1);
  CHECK(*table.find("") == 2);
  CHECK(*table.find("short") == 3);
  CHECK(table.entries()[0].key_view() == long_key);
}
