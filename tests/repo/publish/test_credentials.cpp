// SPDX-License-Identifier: MIT
// Where S3 credentials and the region come from, as the AWS CLI reads them.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>

#include "publish/credentials.hpp"
#include "temp_dir.hpp"

using namespace opskit::repo;
using namespace opskit::repo::publish;

namespace {

Variables of(std::map<std::string, std::string, std::less<>> values) {
  return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
    auto it = values.find(name);
    return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

} // namespace

TEST_CASE("publish credentials: from the environment, region from AWS_REGION", "[publish]") {
  auto c = s3_credentials({}, of({{"AWS_ACCESS_KEY_ID", "AKID"},
                                  {"AWS_SECRET_ACCESS_KEY", "SECRET"},
                                  {"AWS_SESSION_TOKEN", "TOKEN"},
                                  {"AWS_REGION", "eu-north-1"},
                                  {"AWS_DEFAULT_REGION", "us-west-2"}}));
  REQUIRE(c);
  CHECK(c->access_key == "AKID");
  CHECK(c->secret_key == "SECRET");
  CHECK(c->session_token == "TOKEN");
  CHECK(c->region == "eu-north-1");
}

TEST_CASE("publish credentials: a profile of the shared files, which beats the environment",
          "[publish]") {
  opskit::test::TempDir home;
  std::filesystem::create_directories(home / ".aws");
  std::ofstream(home / ".aws/credentials")
      << "# keys\n[default]\naws_access_key_id = DEFAULT\naws_secret_access_key = D\n\n"
      << "[ci]\n aws_access_key_id=CIKEY \naws_secret_access_key = CISECRET\n";
  std::ofstream(home / ".aws/config") << "[default]\nregion = us-west-1\n[profile ci]\nregion = "
                                         "ap-south-1\n";
  PublishTarget t;
  t.profile = "ci";
  auto c = s3_credentials(t, of({{"HOME", home.path()},
                                 {"AWS_ACCESS_KEY_ID", "ENVKEY"},
                                 {"AWS_SECRET_ACCESS_KEY", "ENVSECRET"}}));
  REQUIRE(c);
  CHECK(c->access_key == "CIKEY");
  CHECK(c->secret_key == "CISECRET");
  CHECK(c->region == "ap-south-1");

  auto d = s3_credentials({}, of({{"HOME", home.path()}}));
  REQUIRE(d);
  CHECK(d->access_key == "DEFAULT");
  CHECK(d->region == "us-west-1");
  t.region = "sa-east-1";
  CHECK(s3_credentials(t, of({{"HOME", home.path()}}))->region == "sa-east-1");
}

TEST_CASE("publish credentials: the environment's keys beat AWS_PROFILE, whose region stays, and "
          "a file with CR LF reads as one with LF",
          "[publish]") {
  opskit::test::TempDir home;
  std::filesystem::create_directories(home / ".aws");
  std::ofstream(home / ".aws/credentials")
      << "[ci]\r\naws_access_key_id = STALE\r\naws_secret_access_key = S\r\n";
  std::ofstream(home / ".aws/config") << "[profile ci]\r\nregion = ap-south-1\r\n";
  auto env = s3_credentials({}, of({{"HOME", home.path()},
                                    {"AWS_PROFILE", "ci"},
                                    {"AWS_ACCESS_KEY_ID", "FRESH"},
                                    {"AWS_SECRET_ACCESS_KEY", "F"}}));
  REQUIRE(env);
  CHECK(env->access_key == "FRESH");
  CHECK(env->region == "ap-south-1");
  auto profile = s3_credentials({}, of({{"HOME", home.path()}, {"AWS_PROFILE", "ci"}}));
  REQUIRE(profile);
  CHECK(profile->access_key == "STALE");
  CHECK(profile->secret_key == "S");
}

TEST_CASE("publish credentials: none found names what was looked for, never a key", "[publish]") {
  opskit::test::TempDir home;
  auto none = s3_credentials({}, of({{"HOME", home.path()}}));
  REQUIRE_FALSE(none);
  CHECK(none.error().message().starts_with(
      "no S3 credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set, and " +
      home.path() + "/.aws/credentials cannot be read"));
  std::filesystem::create_directories(home / ".aws");
  std::ofstream(home / ".aws/credentials") << "[other]\naws_secret_access_key = HIDDEN\n";
  PublishTarget t;
  t.profile = "other";
  auto partial = s3_credentials(t, of({{"HOME", home.path()}}));
  REQUIRE_FALSE(partial);
  CHECK(partial.error().message().find("profile 'other' has no aws_access_key_id") !=
        std::string::npos);
  CHECK(partial.error().message().find("HIDDEN") == std::string::npos);
  CHECK(ini_value("[a]\nk = v ; not a comment\n", "a", "k") == "v ; not a comment");
}
