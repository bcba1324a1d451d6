// SPDX-License-Identifier: MIT
#include "opskit/prometheus.hpp"

namespace opskit {

std::string prometheus_name(std::string_view prefix, std::string_view name) {
  std::string out;
  out.reserve(prefix.size() + 1 + name.size());
  out.append(prefix);
  out.push_back('_');
  for (char c : name) {
    bool legal =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out.push_back(legal ? c : '_');
  }
  return out;
}

void append_prometheus_metric(std::string& out, std::string_view metric, std::string_view help,
                              MetricType type, std::string_view value) {
  if (!help.empty()) {
    out.append("# HELP ").append(metric).push_back(' ');
    for (char c : help) {
      if (c == '\\')
        out.append("\\\\");
      else if (c == '\n')
        out.append("\\n");
      else
        out.push_back(c);
    }
    out.push_back('\n');
  }
  out.append("# TYPE ").append(metric).append(type == MetricType::counter ? " counter\n"
                                                                          : " gauge\n");
  out.append(metric).push_back(' ');
  out.append(value).push_back('\n');
}

} // namespace opskit
