// SPDX-License-Identifier: MIT
#pragma once

// What kstat's subcommands print besides their tables: values as JSON, and the entries that could
// not be read, as "kstat: error: ..." lines on stderr.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "json_text.hpp"
#include "opskit/error.hpp"
#include "opskit/probes/counters.hpp"

namespace opskit::cmd::kstat {

// "kstat: error: MESSAGE" on stderr.
void error(std::string_view message);

// `text` on stdout, as it is.
void write_out(std::string_view text);

// A value as JSON: a number or a string.
nlohmann::ordered_json to_json(const counters::Value& value);

// The members of a JSON object, in order, their keys unique (a snapshot's names).
using JsonMembers = std::vector<std::pair<std::string, nlohmann::ordered_json>>;
// The object of `members` in their order, made whole: an ordered_json's operator[] looks
// through every key before it at each one set, seconds at a snapshot of 31,000 names.
nlohmann::ordered_json json_object(JsonMembers members);

// One line per entry of `errors` that is set (entry i's failure, or null: nothing to tell);
// entries that failed alike (one unreadable file) share a line:
// "kstat: error: proc.1.io.*: open /proc/1/io: Permission denied".
void tell_errors(const counters::Snapshot& snapshot, const std::vector<const Error*>& errors);

// Tells every failure of the snapshot's last read; returns how many entries failed.
std::size_t report_errors(const counters::Snapshot& snapshot);

} // namespace opskit::cmd::kstat
