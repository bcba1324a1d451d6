// SPDX-License-Identifier: MIT
// Publish targets' URLs read, and the paths of objects escaped.
#include <catch2/catch.hpp>

#include "publish/endpoint.hpp"
#include "publish/target.hpp"

using namespace opskit::repo;
using namespace opskit::repo::publish;

namespace {

PublishTarget target(std::string url, std::string endpoint = "", bool path_style = false) {
  PublishTarget t;
  t.url = std::move(url);
  t.endpoint = std::move(endpoint);
  t.path_style = path_style;
  return t;
}

} // namespace

TEST_CASE("publish endpoint: S3 in the host name by default, in the path when asked or when a "
          "bucket with dots goes over https",
          "[publish]") {
  auto aws = endpoint_of(target("s3://packages/repo/"), "eu-west-1");
  REQUIRE(aws);
  CHECK(aws->kind == Kind::s3);
  CHECK(aws->bucket == "packages");
  CHECK(aws->prefix == "repo/");
  CHECK(aws->base == "https://packages.s3.eu-west-1.amazonaws.com/repo/");

  auto minio = endpoint_of(target("s3://packages", "http://127.0.0.1:9000/", true), "us-east-1");
  REQUIRE(minio);
  CHECK(minio->prefix.empty());
  CHECK(minio->base == "http://127.0.0.1:9000/packages/");
  auto nested = endpoint_of(target("s3://b.example.com//a/b//", "https://s3.example.com"), "r");
  REQUIRE(nested);
  CHECK(nested->prefix == "a/b/");
  CHECK(nested->base == "https://s3.example.com/b.example.com/a/b/"); // no wildcard covers it
  auto plain = endpoint_of(target("s3://b.example.com", "http://s3.example.com"), "r");
  REQUIRE(plain);
  CHECK(plain->base == "http://b.example.com.s3.example.com/");
}

TEST_CASE("publish endpoint: a bad URL is one message naming it", "[publish]") {
  auto bucket = endpoint_of(target("s3://Bad_Bucket/x"), "us-east-1");
  REQUIRE_FALSE(bucket);
  CHECK(bucket.error().message() ==
        "s3://Bad_Bucket/x: 'Bad_Bucket' is not an S3 bucket name (3 to 63 of a-z, 0-9, '.', '-')");
  auto scheme = endpoint_of(target("ftp://host/x"), "");
  REQUIRE_FALSE(scheme);
  CHECK(scheme.error().message().starts_with("ftp://host/x: not a publish target"));
  CHECK_FALSE(endpoint_of(target("https:///x"), ""));
  CHECK_FALSE(endpoint_of(target("s3://bucket", "127.0.0.1:9000"), "r"));
}

TEST_CASE("publish endpoint: a password in a URL is refused, and the message leaves it out",
          "[publish]") {
  auto dav = endpoint_of(target("https://alice:s3cret@dav.example.com/repo"), "");
  REQUIRE_FALSE(dav);
  CHECK(dav.error().message().starts_with("publish target https://dav.example.com/repo: a user "
                                          "name or password in the URL"));
  auto s3 = endpoint_of(target("s3://bucket", "http://key:s3cret@127.0.0.1:9000"), "r");
  REQUIRE_FALSE(s3);
  CHECK(s3.error().message().starts_with("--endpoint http://127.0.0.1:9000: a user name"));
  // An '@' anywhere may end a password that holds '/' unescaped: a path's is written %40.
  auto path = endpoint_of(target("https://alice:12/cret@dav.example.com/a/"), "");
  REQUIRE_FALSE(path);
  CHECK(path.error().message().starts_with("publish target https://dav.example.com/a/: a user"));
  CHECK(endpoint_of(target("https://dav.example.com/a%40b/"), ""));
  auto keys = endpoint_of(target("s3://AKIA:s3cret@bucket/repo"), "r");
  REQUIRE_FALSE(keys);
  CHECK(keys.error().message() ==
        "publish target s3://bucket/repo: a user name or password in the URL would be printed and "
        "saved; S3 keys go in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or ~/.aws/credentials");
}

TEST_CASE("publish endpoint: WebDAV URLs end in a slash, and paths are escaped but for '/'",
          "[publish]") {
  auto dav = endpoint_of(target("https://dav.example.com/repo"), "");
  REQUIRE(dav);
  CHECK(dav->kind == Kind::webdav);
  CHECK(dav->base == "https://dav.example.com/repo/");
  CHECK(escape_path("pool/main/h/hello/hello_1.0+dfsg~rc1 x.deb") ==
        "pool/main/h/hello/hello_1.0%2Bdfsg~rc1%20x.deb");
}

TEST_CASE("publish targets: saved as JSON without secrets, read back the same", "[publish]") {
  PublishTarget t = target("s3://packages/repo", "http://127.0.0.1:9000", true);
  t.region = "eu-west-1";
  t.profile = "ci";
  t.multipart_threshold = 256ull << 20;
  auto back = parse_target(target_json(t));
  REQUIRE(back);
  CHECK(*back == t);
  CHECK_FALSE(parse_target("{}"));
  CHECK(target_name_ok("cdn-eu.1"));
  CHECK_FALSE(target_name_ok("CDN"));
  CHECK_FALSE(target_name_ok(".."));
  CHECK_FALSE(target_name_ok(""));
}
