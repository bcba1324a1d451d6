// SPDX-License-Identifier: MIT
#pragma once

// A WebDAV collection (nginx's dav module, Apache's mod_dav, ...): PUT, MKCOL and DELETE
// below its URL, with basic authentication from a password file or ~/.netrc. Not installed.
//
// Collections. A server that makes the collections a PUT goes in (nginx's dav module with
// create_full_put_path) needs no MKCOL; one that follows RFC 4918 (9.7.1) to the letter,
// as Apache's mod_dav does, answers such a PUT 409 Conflict and needs each made first,
// parents first. The first PUT into a collection not known to be there goes alone and tells
// which the server is; on the first kind, a PUT that still finds no collection (one removed
// behind publish's back) is sent again once its collections are made. The target's own
// collection is made when the first PUT there, the lock's, finds it missing.

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
  Result<void> put_all(Transfer& transfer, std::vector<Request> puts,
                       const std::function<void()>& step) override;
  Result<Response> put_at_root(Transfer& transfer, const Request& put) override;

private:
  enum class Collections { unknown, made_by_put, need_mkcol };
  // The MKCOLs of the collections `puts` go in that are not made yet, a batch a level.
  std::vector<std::vector<Request>> mkcols(std::span<const Request> puts);
  // Sends the first of `puts` that goes in a collection not known to be there, alone, and
  // learns from its answer whether the server makes collections; drops it from `puts` if sent.
  Result<void> probe(Transfer& transfer, std::vector<Request>& puts,
                     const std::function<void()>& step);

  Endpoint endpoint_;
  WebDavLogin login_;
  Collections collections_ = Collections::unknown;
  std::set<std::string> made_; // collections made or found by this run
};

// The login for `target`: its user and the first line of its password file, or ~/.netrc
// (under `home`); the error names the password file when it cannot be read.
Result<WebDavLogin> webdav_login(const PublishTarget& target, const std::string& home);

} // namespace opskit::repo::publish
