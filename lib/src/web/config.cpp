// SPDX-License-Identifier: MIT
//
// The exporter toolkit's web configuration file
// (https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md), the
// YAML that node_exporter, Prometheus and most exporters take with --web.config.file:
//
//   tls_server_config:       cert_file, key_file (or cert, key inline), client_ca_file (or
//                            client_ca), client_auth_type, client_allowed_sans, min_version,
//                            max_version, prefer_server_cipher_suites
//   http_server_config:      http2, headers (Content-Security-Policy, X-Frame-Options,
//                            X-Content-Type-Options, X-XSS-Protection, Strict-Transport-Security)
//   basic_auth_users:        user: bcrypt hash
//   rate_limit:              interval (a Go duration: "1s", "250ms"), burst
//
// What is subtle. A tls_server_config with no certificate, key or client settings at all means
// plain HTTP, as in the toolkit; one with a certificate and no key (or the reverse) is an error.
// Relative file names are read from the configuration file's directory. cipher_suites and
// curve_preferences name Go's constants, which have no faithful GnuTLS spelling: they are
// refused rather than quietly ignored, so that nobody believes a cipher was turned off. http2
// is accepted and has no effect (the server speaks HTTP/1.1). A key this reader does not know is
// an error, as a typo in a security setting must not pass unnoticed. The configuration records
// the files it was read from, so that a server can read it again when one changes (ConfigWatch,
// web/watch.hpp), as the toolkit picks up changes without a restart.
#include "opskit/web/config.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <set>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "opskit/file.hpp"
#include "opskit/text.hpp"

namespace opskit::web {

namespace {

// Errors carry "web config <path>: <where>: <what>".
class Reader {
public:
  explicit Reader(const std::string& path) : path_(path) {
    std::size_t slash = path.rfind('/');
    dir_ = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  }

  std::unexpected<Error> error(std::string_view where, std::string_view what) const {
    if (where.empty())
      return fail(fmt::format("web config {}: {}", path_, what), EINVAL);
    return fail(fmt::format("web config {}: {}: {}", path_, where, what), EINVAL);
  }

  Result<void> only_keys(const YAML::Node& map, std::string_view where,
                         std::initializer_list<std::string_view> known) const {
    if (!map.IsMap())
      return error(where, "expected a mapping of keys to values");
    for (const auto& item : map) {
      auto key = item.first.as<std::string>();
      bool found = false;
      for (auto k : known)
        found = found || k == key;
      if (!found)
        return error(where, fmt::format("unknown key '{}'", key));
    }
    return {};
  }

  Result<std::string> string_of(const YAML::Node& node, std::string_view where) const {
    if (node.IsNull())
      return std::string();
    if (!node.IsScalar())
      return error(where, "expected a string");
    return node.as<std::string>();
  }

  Result<bool> bool_of(const YAML::Node& node, std::string_view where) const {
    bool value = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value))
      return error(where, "expected true or false");
    return value;
  }

  Result<std::vector<std::string>> strings_of(const YAML::Node& node,
                                              std::string_view where) const {
    std::vector<std::string> out;
    if (node.IsNull())
      return out;
    if (!node.IsSequence())
      return error(where, "expected a list of strings");
    for (const auto& item : node) {
      OPSKIT_TRY_ASSIGN(auto text, string_of(item, where));
      out.push_back(std::move(text));
    }
    return out;
  }

  // A PEM given inline under `inline_key` or as a file under `file_key`, not both; "" if neither.
  Result<std::string> pem(const YAML::Node& tls, std::string_view inline_key,
                          std::string_view file_key, std::string& from) const {
    auto given = tls[std::string(inline_key)];
    auto file = tls[std::string(file_key)];
    OPSKIT_TRY_ASSIGN(auto text, given ? string_of(given, scoped(inline_key)) : std::string());
    OPSKIT_TRY_ASSIGN(auto name, file ? string_of(file, scoped(file_key)) : std::string());
    if (!text.empty() && !name.empty())
      return error("tls_server_config",
                   fmt::format("{} and {} are both set: give one", inline_key, file_key));
    if (name.empty()) {
      from = scoped(inline_key);
      return text;
    }
    std::string full = name.starts_with('/') ? name : dir_ + name;
    from = fmt::format("{} {}", scoped(file_key), full);
    files_.push_back(full);
    auto read = read_file(full);
    if (!read)
      return error(scoped(file_key), read.error().message());
    // Taken for "not set", an empty file would serve plain HTTP where TLS was asked for.
    if (read->find_first_not_of(" \t\r\n") == std::string::npos)
      return error(scoped(file_key), fmt::format("{}: empty", full));
    return std::move(*read);
  }

  static std::string scoped(std::string_view key) {
    return fmt::format("tls_server_config.{}", key);
  }

  // The PEM files named so far, read or not.
  const std::vector<std::string>& files() const noexcept { return files_; }
  const std::string& path() const noexcept { return path_; }

private:
  std::string path_;
  std::string dir_;
  mutable std::vector<std::string> files_;
};

// The value `name` spells in `table`, or an error at `where` listing the names it knows.
template <class T, std::size_t N>
Result<T> one_of(const Reader& r, std::string_view where,
                 const std::pair<std::string_view, T> (&table)[N], std::string_view name) {
  std::string known;
  for (const auto& [text, value] : table) {
    if (text == name)
      return value;
    if (!text.empty())
      known += known.empty() ? std::string(text) : fmt::format(", {}", text);
  }
  return r.error(where, fmt::format("'{}' is not one of {}", name, known));
}

constexpr std::pair<std::string_view, ClientAuth> k_client_auths[] = {
    {"", ClientAuth::none},
    {"NoClientCert", ClientAuth::none},
    {"RequestClientCert", ClientAuth::request},
    {"RequireAnyClientCert", ClientAuth::require_any},
    {"RequireClientCert", ClientAuth::require_any}, // the exporter toolkit's older name
    {"VerifyClientCertIfGiven", ClientAuth::verify_if_given},
    {"RequireAndVerifyClientCert", ClientAuth::require_and_verify},
};

constexpr std::pair<std::string_view, TlsVersion> k_versions[] = {
    {"TLS10", TlsVersion::tls10},
    {"TLS11", TlsVersion::tls11},
    {"TLS12", TlsVersion::tls12},
    {"TLS13", TlsVersion::tls13},
};

// Client certificates: the policy, and the CAs it needs.
Result<void> read_client_auth(const Reader& r, const YAML::Node& tls, TlsConfig& out) {
  if (auto node = tls["client_auth_type"]) {
    OPSKIT_TRY_ASSIGN(auto name, r.string_of(node, "tls_server_config.client_auth_type"));
    OPSKIT_TRY_ASSIGN(out.client_auth,
                      one_of(r, "tls_server_config.client_auth_type", k_client_auths, name));
  }
  OPSKIT_TRY_ASSIGN(out.client_ca_pem,
                    r.pem(tls, "client_ca", "client_ca_file", out.client_ca_from));
  if (auto node = tls["client_allowed_sans"]) {
    OPSKIT_TRY_ASSIGN(out.client_allowed_sans,
                      r.strings_of(node, "tls_server_config.client_allowed_sans"));
  }
  if (!out.client_ca_pem.empty() && out.client_auth == ClientAuth::none)
    return r.error("tls_server_config",
                   "client_ca_file is set and client_auth_type is not: set "
                   "client_auth_type (RequireAndVerifyClientCert, to check clients)");
  if (out.client_ca_pem.empty() && out.client_auth != ClientAuth::none)
    return r.error("tls_server_config",
                   "client_auth_type needs client_ca_file: the CAs that client certificates "
                   "are asked for and checked against");
  // Names are checked only on a certificate the CAs signed: anyone can make one that names them.
  if (!out.client_allowed_sans.empty() && out.client_auth != ClientAuth::verify_if_given &&
      out.client_auth != ClientAuth::require_and_verify)
    return r.error("tls_server_config",
                   "client_allowed_sans needs client_auth_type VerifyClientCertIfGiven or "
                   "RequireAndVerifyClientCert: only a verified certificate's names can be "
                   "trusted");
  return {};
}

Result<void> read_versions(const Reader& r, const YAML::Node& tls, TlsConfig& out) {
  for (auto [key, field] :
       {std::pair{"min_version", &out.min_version}, std::pair{"max_version", &out.max_version}}) {
    if (auto node = tls[key]) {
      std::string where = Reader::scoped(key);
      OPSKIT_TRY_ASSIGN(auto name, r.string_of(node, where));
      OPSKIT_TRY_ASSIGN(*field, one_of(r, where, k_versions, name));
    }
  }
  if (out.min_version > out.max_version)
    return r.error("tls_server_config", "min_version is above max_version");
  return {};
}

Result<std::optional<TlsConfig>> read_tls(const Reader& r, const YAML::Node& tls) {
  if (!tls || tls.IsNull())
    return std::nullopt;
  OPSKIT_TRY(r.only_keys(tls, "tls_server_config",
                         {"cert", "key", "client_ca", "cert_file", "key_file", "client_auth_type",
                          "client_ca_file", "client_allowed_sans", "min_version", "max_version",
                          "cipher_suites", "prefer_server_cipher_suites", "curve_preferences"}));
  for (const char* key : {"cipher_suites", "curve_preferences"})
    if (tls[key] && !(tls[key].IsSequence() && tls[key].size() == 0) && !tls[key].IsNull())
      return r.error(Reader::scoped(key),
                     "not supported: kstat's TLS (GnuTLS) has no spelling of Go's names; remove "
                     "it, or limit the versions with min_version");
  TlsConfig out;
  out.config_path = r.path();
  OPSKIT_TRY_ASSIGN(out.cert_pem, r.pem(tls, "cert", "cert_file", out.cert_from));
  OPSKIT_TRY_ASSIGN(out.key_pem, r.pem(tls, "key", "key_file", out.key_from));
  OPSKIT_TRY(read_client_auth(r, tls, out));
  OPSKIT_TRY(read_versions(r, tls, out));
  if (auto node = tls["prefer_server_cipher_suites"]) {
    OPSKIT_TRY_ASSIGN(out.prefer_server_cipher_suites,
                      r.bool_of(node, "tls_server_config.prefer_server_cipher_suites"));
  }
  if (out.cert_pem.empty() && out.key_pem.empty() && out.client_auth == ClientAuth::none)
    return std::nullopt; // nothing set: plain HTTP, as the toolkit does
  if (out.cert_pem.empty() && out.key_pem.empty())
    return r.error("tls_server_config",
                   "client_auth_type is set and cert_file and key_file are not");
  if (out.cert_pem.empty())
    return r.error("tls_server_config", "key_file is set and cert_file is not");
  if (out.key_pem.empty())
    return r.error("tls_server_config", "cert_file is set and key_file is not");
  return out;
}

Result<void> read_headers(const Reader& r, const YAML::Node& http, WebConfig& out) {
  if (!http || http.IsNull())
    return {};
  OPSKIT_TRY(r.only_keys(http, "http_server_config", {"http2", "headers"}));
  if (auto http2 = http["http2"])
    OPSKIT_TRY(r.bool_of(http2, "http_server_config.http2")); // HTTP/1.1 is served either way
  auto headers = http["headers"];
  if (!headers || headers.IsNull())
    return {};
  OPSKIT_TRY(r.only_keys(headers, "http_server_config.headers",
                         {"Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options",
                          "X-XSS-Protection", "Strict-Transport-Security"}));
  for (const auto& item : headers) {
    auto name = item.first.as<std::string>();
    std::string where = fmt::format("http_server_config.headers.{}", name);
    OPSKIT_TRY_ASSIGN(auto value, r.string_of(item.second, where));
    value = std::string(trim(value)); // a block scalar's line break, spaces around the value
    if (value.empty())
      continue; // unset
    if (std::any_of(value.begin(), value.end(),
                    [](unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7f; }))
      return r.error(where, "a header's value is one line, without control characters");
    if (name == "X-Frame-Options" && value != "deny" && value != "sameorigin")
      return r.error(where, fmt::format("'{}' is not deny or sameorigin", value));
    if (name == "X-Content-Type-Options" && value != "nosniff")
      return r.error(where, fmt::format("'{}' is not nosniff", value));
    out.headers.emplace_back(name, value);
  }
  return {};
}

Result<void> read_users(const Reader& r, const YAML::Node& users, WebConfig& out) {
  if (!users || users.IsNull())
    return {};
  if (!users.IsMap())
    return r.error("basic_auth_users", "expected a mapping of users to bcrypt hashes");
  for (const auto& item : users) {
    auto user = item.first.as<std::string>();
    std::string where = fmt::format("basic_auth_users.{}", user);
    OPSKIT_TRY_ASSIGN(auto hash, r.string_of(item.second, where));
    bool bcrypt = hash.size() == 60 && (hash.starts_with("$2a$") || hash.starts_with("$2b$") ||
                                        hash.starts_with("$2y$"));
    if (!bcrypt)
      return r.error(where, "not a bcrypt hash (htpasswd -nBC 10 \"\" makes one)");
    if (user.find(':') != std::string::npos)
      return r.error(where, "a user name cannot hold ':' in basic authentication");
    out.basic_auth_users.emplace(std::move(user), std::move(hash));
  }
  return {};
}

} // namespace

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text) {
  static constexpr std::pair<std::string_view, double> k_units[] = {
      {"ns", 1},  {"us", 1e3}, {"\xc2\xb5s", 1e3}, {"ms", 1e6},
      {"s", 1e9}, {"m", 60e9}, {"h", 3600e9},
  };
  if (text == "0")
    return std::chrono::nanoseconds(0);
  double total = 0;
  bool any = false;
  while (!text.empty()) {
    double number = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (ec != std::errc{} || number < 0)
      return std::nullopt;
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    std::size_t unit_len = 0;
    double scale = 0;
    for (const auto& [unit, factor] : k_units)
      if (text.starts_with(unit) && unit.size() > unit_len) {
        unit_len = unit.size();
        scale = factor;
      }
    if (unit_len == 0)
      return std::nullopt;
    text.remove_prefix(unit_len);
    total += number * scale;
    any = true;
  }
  if (!any || total > 9.2e18)
    return std::nullopt;
  return std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(total)));
}

namespace {

Result<void> read_rate_limit(const Reader& r, const YAML::Node& limit, WebConfig& out) {
  if (!limit || limit.IsNull())
    return {};
  OPSKIT_TRY(r.only_keys(limit, "rate_limit", {"interval", "burst"}));
  if (auto node = limit["interval"]) {
    OPSKIT_TRY_ASSIGN(auto text, r.string_of(node, "rate_limit.interval"));
    auto interval = parse_go_duration(text);
    if (!interval)
      return r.error("rate_limit.interval",
                     fmt::format("'{}' is not a duration such as 1s or 250ms", text));
    out.rate_limit.interval = *interval;
  }
  if (auto node = limit["burst"]) {
    long long burst = -1;
    if (!node.IsScalar() || !YAML::convert<long long>::decode(node, burst) || burst < 0 ||
        burst > 1'000'000)
      return r.error("rate_limit.burst", "expected a whole number from 0 to 1000000");
    out.rate_limit.burst = static_cast<unsigned>(burst);
  }
  if (out.rate_limit.interval.count() > 0 && out.rate_limit.burst == 0)
    return r.error("rate_limit", "an interval with a burst of 0 would refuse every request");
  return {};
}

// A key given twice in one mapping anywhere in `node`: YAML forbids it, the exporter toolkit
// refuses it, and yaml-cpp would take the first silently (basic_auth_users given empty, then
// with its users, would turn authentication off).
Result<void> no_duplicate_keys(const Reader& r, const YAML::Node& node) {
  if (node.IsSequence())
    for (const auto& item : node)
      OPSKIT_TRY(no_duplicate_keys(r, item));
  if (!node.IsMap())
    return {};
  std::set<std::string, std::less<>> seen;
  for (const auto& item : node) {
    if (item.first.IsScalar() && !seen.insert(item.first.Scalar()).second)
      return r.error(fmt::format("line {}", item.first.Mark().line + 1),
                     fmt::format("'{}' is given twice", item.first.Scalar()));
    OPSKIT_TRY(no_duplicate_keys(r, item.second));
  }
  return {};
}

} // namespace

Result<WebConfig> parse_web_config(std::string_view text, const std::string& path) {
  Reader r(path);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return r.error(fmt::format("line {}, column {}", e.mark.line + 1, e.mark.column + 1), e.msg);
  }
  WebConfig out;
  if (root.IsNull())
    return out; // an empty file: plain HTTP, no authentication
  try {
    OPSKIT_TRY(no_duplicate_keys(r, root));
    OPSKIT_TRY(r.only_keys(
        root, "", {"tls_server_config", "http_server_config", "basic_auth_users", "rate_limit"}));
    OPSKIT_TRY_ASSIGN(out.tls, read_tls(r, root["tls_server_config"]));
    OPSKIT_TRY(read_headers(r, root["http_server_config"], out));
    OPSKIT_TRY(read_users(r, root["basic_auth_users"], out));
    OPSKIT_TRY(read_rate_limit(r, root["rate_limit"], out));
  } catch (const YAML::Exception& e) { // a key that is not a scalar, and the like
    return r.error(fmt::format("line {}, column {}", e.mark.line + 1, e.mark.column + 1), e.msg);
  }
  out.files = r.files();
  return out;
}

Result<WebConfig> load_web_config(const std::string& path) {
  auto text = read_file(path);
  if (!text)
    return fail(text.error().with_context("web config"));
  OPSKIT_TRY_ASSIGN(auto config, parse_web_config(*text, path));
  config.files.insert(config.files.begin(), path);
  return config;
}

} // namespace opskit::web
