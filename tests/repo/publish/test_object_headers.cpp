// SPDX-License-Identifier: MIT
// The Content-Type and Cache-Control an object store serves each file of a publication with.
#include <catch2/catch.hpp>

#include "publish/object_headers.hpp"

using opskit::repo::publish::object_headers;

namespace {

using Headers = std::vector<std::string>;

Headers kept_for_good(const std::string& type) {
  return {"Content-Type: " + type, "Cache-Control: public, max-age=31536000, immutable"};
}

Headers asked_again(const std::string& type) {
  return {"Content-Type: " + type, "Cache-Control: no-cache"};
}

} // namespace

TEST_CASE("publish object headers: a CDN keeps what is named by its digest, and asks again for "
          "what a publish changes under the same name",
          "[publish]") {
  CHECK(object_headers("deb/debian/dists/bookworm/InRelease") ==
        asked_again("text/plain; charset=utf-8"));
  CHECK(object_headers("deb/debian/dists/bookworm/Release.gpg") ==
        asked_again("application/pgp-signature"));
  CHECK(object_headers("deb/debian/dists/bookworm/main/binary-amd64/Packages.xz") ==
        asked_again("application/x-xz"));
  CHECK(object_headers("deb/debian/dists/bookworm/main/binary-amd64/by-hash/SHA256/"
                       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") ==
        kept_for_good("application/octet-stream"));
  // A package may be replaced with other bytes under its name (push --replace).
  CHECK(object_headers("deb/debian/pool/main/h/hello/hello_1.0_amd64.deb") ==
        asked_again("application/vnd.debian.binary-package"));
  CHECK(object_headers("rpm/el/9/x86_64/Packages/hello-1.0-1.x86_64.rpm") ==
        asked_again("application/x-rpm"));
  CHECK(object_headers("rpm/el/9/x86_64/repodata/repomd.xml") == asked_again("application/xml"));
  CHECK(object_headers("rpm/el/9/x86_64/repodata/repomd.xml.asc") ==
        asked_again("application/pgp-signature"));
  CHECK(object_headers("rpm/el/9/x86_64/repodata/"
                       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855-"
                       "primary.xml.gz") == kept_for_good("application/gzip"));
  CHECK(object_headers("gpg.key") == asked_again("application/pgp-keys"));
}
