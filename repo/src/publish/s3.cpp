// SPDX-License-Identifier: MIT
#include "publish/s3.hpp"

#include <iterator>

#include <openssl/evp.h>

#include <fmt/format.h>

#include "publish/curl_api.hpp"
#include "publish/object_headers.hpp"

namespace opskit::repo::publish {

namespace {

// The SHA-256 of no bytes: the payload hash of a GET or DELETE.
constexpr const char* k_empty_sha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// The base64 of the bytes that hex digest `hex` spells, as Content-MD5 wants them.
std::string base64_of_hex(std::string_view hex) {
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()),
                          static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

} // namespace

S3Remote::S3Remote(Endpoint endpoint, S3Credentials credentials, std::uint64_t multipart_threshold)
    : endpoint_(std::move(endpoint)), credentials_(std::move(credentials)),
      multipart_threshold_(multipart_threshold != 0 ? multipart_threshold
                                                    : k_multipart_threshold_default),
      sigv4_(fmt::format("aws:amz:{}:s3", endpoint_.region)) {}

void S3Remote::prepare(CURL* easy, const Request& r, curl_slist*& headers) const {
  const CurlApi& c = **curl_api();
  std::string url = r.url.empty() ? endpoint_.base + escape_path(r.path) : r.url;
  c.easy_setopt(easy, CURLOPT_URL, url.c_str());
  c.easy_setopt(easy, CURLOPT_AWS_SIGV4, sigv4_.c_str());
  c.easy_setopt(easy, CURLOPT_USERNAME, credentials_.access_key.c_str());
  c.easy_setopt(easy, CURLOPT_PASSWORD, credentials_.secret_key.c_str());
  // libcurl signs the headers given here with its own, and takes the payload's hash from
  // x-amz-content-sha256: the store refuses a body that does not match what was signed.
  std::string sha = r.sha256.empty() ? k_empty_sha256 : r.sha256;
  headers = c.slist_append(headers, fmt::format("x-amz-content-sha256: {}", sha).c_str());
  if (!r.md5.empty())
    headers = c.slist_append(headers, fmt::format("Content-MD5: {}", base64_of_hex(r.md5)).c_str());
  if (!credentials_.session_token.empty())
    headers = c.slist_append(
        headers, fmt::format("x-amz-security-token: {}", credentials_.session_token).c_str());
  if (r.method == "PUT" && r.url.empty()) // a whole object; a part's are its upload's
    for (const auto& header : object_headers(r.path))
      headers = c.slist_append(headers, header.c_str());
}

std::string S3Remote::name() const {
  return fmt::format("s3://{}/{}", endpoint_.bucket, endpoint_.prefix);
}

Result<std::vector<Listed>> S3Remote::list(Transfer& transfer) const {
  std::vector<Listed> all;
  std::string token;
  do {
    // The query's parameters in SigV4's canonical order.
    Request r;
    r.method = "GET";
    r.url = fmt::format("{}?{}list-type=2&prefix={}", endpoint_.bucket_url,
                        token.empty() ? "" : "continuation-token=" + escape_query(token) + "&",
                        escape_query(endpoint_.prefix));
    OPSKIT_TRY_ASSIGN(auto answer, transfer.run({&r, 1}));
    OPSKIT_TRY_ASSIGN(auto page, parse_s3_listing(answer[0].body, endpoint_.prefix));
    std::move(page.objects.begin(), page.objects.end(), std::back_inserter(all));
    token = std::move(page.next);
  } while (!token.empty());
  return all;
}

} // namespace opskit::repo::publish
