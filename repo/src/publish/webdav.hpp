// SPDX-License-Identifier: MIT
#pragma once

// A WebDAV collection (nginx's dav module, Apache's mod_dav, ...): PUT, MKCOL and DELETE
// below its URL, with basic authentication from a password file or ~/.netrc. Not installed.

#include <set>

#include "publish/transfer.hpp"

namespace opskit::repo::publish {

struct WebDavLogin {
  std::string user, password; // none: ~/.netrc's entry for the host, if any
  std::string netrc;          // the netrc file to read
};

class WebDavRemote final : public Remote {
public:
  WebDavRemote(Endpoint endpoint, WebDavLogin login);
  void prepare(CURL* easy, const Request& r, curl_slist*& headers) const override;
  std::string name() const override { return endpoint_.base; }
  Result<std::vector<Listed>> list(Transfer& transfer) const override;
  void holds(std::span<const std::string> paths) override;
  std::vector<std::vector<Request>> before_puts(std::span<const std::string> paths) override;

private:
  Endpoint endpoint_;
  WebDavLogin login_;
  std::set<std::string> made_; // collections made or found by this run
};

// The login for `target`: its user and the first line of its password file, or ~/.netrc
// (under `home`); the error names the password file when it cannot be read.
Result<WebDavLogin> webdav_login(const PublishTarget& target, const std::string& home);

} // namespace opskit::repo::publish
