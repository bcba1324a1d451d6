// SPDX-License-Identifier: MIT
// The listings S3 and WebDAV servers answer, read as the network hands them over.
#include <catch2/catch.hpp>

#include "publish/answers.hpp"

using namespace opskit::repo::publish;

TEST_CASE("publish listing: an S3 page, its keys made relative to the prefix, the console's "
          "folder left out",
          "[publish]") {
  auto page = parse_s3_listing(
      R"(<?xml version="1.0"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
      <IsTruncated>true</IsTruncated><NextContinuationToken>t+1/=</NextContinuationToken>
      <Contents><Key>repo/</Key><Size>0</Size></Contents>
      <Contents><Key>repo/deb/</Key><Size>0</Size></Contents>
      <Contents><Key>repo/deb/a b.deb</Key><Size>12</Size><ETag>"x"</ETag></Contents>
      <Contents><Key>repo/gpg.key</Key><Size>0</Size></Contents></ListBucketResult>)",
      "repo/");
  REQUIRE(page);
  REQUIRE(page->objects.size() == 2);
  CHECK(page->objects[0].path == "deb/a b.deb");
  CHECK(page->objects[0].size == 12);
  CHECK(page->objects[1].path == "gpg.key");
  CHECK(page->next == "t+1/=");
  CHECK_FALSE(parse_s3_listing("<ListBucketResult><Contents><Key>other/x</Key><Size>1</Size>"
                               "</Contents></ListBucketResult>",
                               "repo/"));
  CHECK_FALSE(parse_s3_listing("<ListBucketResult><Contents><Key>repo/x</Key><Size>-1</Size>"
                               "</Contents></ListBucketResult>",
                               "repo/"));
  CHECK_FALSE(parse_s3_listing("<ListBucketResult><IsTruncated>true</IsTruncated>"
                               "</ListBucketResult>",
                               ""));
  CHECK_FALSE(parse_s3_listing("<Error><Code>AccessDenied</Code></Error>", ""));
  CHECK_FALSE(parse_s3_listing("not xml", ""));
}

TEST_CASE("publish answers: an S3 error document's code and message, also in a 200's body",
          "[publish]") {
  auto error = s3_error(R"(<?xml version="1.0" encoding="UTF-8"?>
<Error><Code>InternalError</Code><Message>Please try again.</Message></Error>)");
  REQUIRE(error);
  CHECK(error->code == "InternalError");
  CHECK(error->message == "Please try again.");
  CHECK_FALSE(s3_error("<CompleteMultipartUploadResult><ETag>\"x-2\"</ETag>"
                       "</CompleteMultipartUploadResult>"));
}

TEST_CASE("publish listing: a WebDAV multistatus, the collection itself left out", "[publish]") {
  auto members = parse_multistatus(
      R"(<?xml version="1.0"?><D:multistatus xmlns:D="DAV:">
      <D:response><D:href>/repo/deb/</D:href><D:propstat><D:prop>
        <D:resourcetype><D:collection/></D:resourcetype></D:prop></D:propstat></D:response>
      <D:response><D:href>http://host:8080/repo/deb/pool/</D:href><D:propstat><D:prop>
        <D:resourcetype><D:collection/></D:resourcetype></D:prop></D:propstat></D:response>
      <D:response><D:href>/repo/deb/hello%2B1.deb</D:href><D:propstat><D:prop>
        <D:getcontentlength>42</D:getcontentlength><D:resourcetype/></D:prop></D:propstat>
      </D:response></D:multistatus>)",
      "/repo/", "deb/");
  REQUIRE(members);
  REQUIRE(members->size() == 2);
  CHECK((*members)[0].path == "deb/pool/");
  CHECK((*members)[0].collection);
  CHECK((*members)[1].path == "deb/hello+1.deb");
  CHECK((*members)[1].size == 42);
  // Nothing outside the collection asked for: a server cannot send the listing elsewhere.
  CHECK_FALSE(parse_multistatus(R"(<multistatus xmlns="DAV:"><response><href>/etc/</href>
      </response></multistatus>)",
                                "/repo/", ""));
  CHECK_FALSE(parse_multistatus(R"(<multistatus xmlns="DAV:"><response><href>/repo/a/</href>
      <propstat><prop><resourcetype><collection/></resourcetype></prop></propstat>
      </response></multistatus>)",
                                "/repo/", "b/"));
  CHECK(unescape("a%20b%2fc") == "a b/c");
  CHECK_FALSE(unescape("a%2"));
  CHECK_FALSE(unescape("a%zz"));
}

TEST_CASE("publish listing: a WebDAV href with a dot segment is refused, escaped or not",
          "[publish]") {
  CHECK_FALSE(
      parse_multistatus(R"(<multistatus xmlns="DAV:"><response><href>/repo/%2e%2e/etc/</href>
      <propstat><prop><resourcetype><collection/></resourcetype></prop></propstat>
      </response></multistatus>)",
                        "/repo/", ""));
  CHECK_FALSE(parse_multistatus(R"(<multistatus xmlns="DAV:"><response><href>/repo/a/./b</href>
      </response></multistatus>)",
                                "/repo/", ""));
}
