// SPDX-License-Identifier: MIT
#pragma once

// The remote a PublishTarget names, with its credentials read, and saved targets. Not
// installed.

#include <memory>
#include <string>

#include "opskit/error.hpp"
#include "opskit/repo/publish.hpp"
#include "publish/credentials.hpp"
#include "publish/transfer.hpp"

namespace opskit::repo::publish {

struct OpenRemote {
  std::unique_ptr<Remote> remote;
  std::string ca_file; // the target's, or AWS_CA_BUNDLE for S3
};

Result<OpenRemote> open_remote(const PublishTarget& target, const Variables& variables);

// A saved target's name: [a-z0-9._-]+, as the config key "publish.<name>" holds it.
bool target_name_ok(std::string_view name);
std::string target_json(const PublishTarget& target);
Result<PublishTarget> parse_target(std::string_view json);

} // namespace opskit::repo::publish
