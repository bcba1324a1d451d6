// SPDX-License-Identifier: MIT
#include "output.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <variant>

#include <fmt/format.h>

#include "exit.hpp"

namespace opskit::cmd::kstat {

namespace {

// The dotted prefix that `a` and `b` share ("proc.1.io.rchar", "proc.1.io.wchar" -> "proc.1.io").
std::string_view common_prefix(std::string_view a, std::string_view b) {
  std::size_t n = 0, last_dot = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) {
    if (a[n] == '.')
      last_dot = n;
    ++n;
  }
  bool a_ends_component = n == a.size() && (n == b.size() || b[n] == '.');
  return a.substr(0, a_ends_component ? n : last_dot);
}

} // namespace

void error(std::string_view message) {
  print_error("kstat", message);
}

nlohmann::ordered_json to_json(const counters::Value& value) {
  return std::visit([](const auto& v) { return nlohmann::ordered_json(v); }, value);
}

nlohmann::ordered_json json_object(JsonMembers members) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  object.get_ref<nlohmann::ordered_json::object_t&>() = nlohmann::ordered_json::object_t(
      std::make_move_iterator(members.begin()), std::make_move_iterator(members.end()));
  return object;
}

void write_out(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
}

void tell_errors(const counters::Snapshot& snapshot, const std::vector<const Error*>& errors) {
  for (std::size_t i = 0; i < errors.size();) {
    const Error* e = errors[i];
    if (e == nullptr) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    std::string_view prefix = snapshot.info(i).name;
    while (j < errors.size() && errors[j] != nullptr && errors[j]->message() == e->message()) {
      prefix = common_prefix(prefix, snapshot.info(j).name);
      ++j;
    }
    if (j - i > 1 && !prefix.empty())
      error(fmt::format("{}.*: {}", prefix, e->message()));
    else
      for (std::size_t k = i; k < j; ++k)
        error(fmt::format("{}: {}", snapshot.info(k).name, e->message()));
    i = j;
  }
}

std::size_t report_errors(const counters::Snapshot& snapshot) {
  std::vector<const Error*> errors;
  for (std::size_t i = 0; i < snapshot.size(); ++i)
    errors.push_back(snapshot.error(i));
  tell_errors(snapshot, errors);
  return static_cast<std::size_t>(std::ranges::count_if(errors, [](auto* e) { return e; }));
}

} // namespace opskit::cmd::kstat
