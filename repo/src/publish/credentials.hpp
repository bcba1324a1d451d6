// SPDX-License-Identifier: MIT
#pragma once

// Where publish finds what signs its S3 requests, as the AWS CLI does: the environment, then
// a profile of the shared credentials and config files. Not installed.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "opskit/error.hpp"
#include "opskit/repo/publish.hpp"

namespace opskit::repo::publish {

// A variable of the process environment, or nothing.
using Variables = std::function<std::optional<std::string>(std::string_view)>;

struct S3Credentials {
  std::string access_key, secret_key, session_token;
  std::string region;
};

// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, unless target.profile names
// a profile; without them that profile, else AWS_PROFILE's, else "default", whose keys come
// from the shared credentials file
// (AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials); the region from target.region,
// AWS_REGION, AWS_DEFAULT_REGION, the profile's in the config file (AWS_CONFIG_FILE, else
// ~/.aws/config), else us-east-1. The error names the file or variable missing, never a key.
Result<S3Credentials> s3_credentials(const PublishTarget& target, const Variables& variables);

// The value of `key` in section `section` of INI text (the AWS files' format); nothing when
// either is missing.
std::optional<std::string> ini_value(std::string_view text, std::string_view section,
                                     std::string_view key);

} // namespace opskit::repo::publish
