// SPDX-License-Identifier: MIT
#include "publish/answers.hpp"

#include <charconv>
#include <optional>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <fmt/format.h>

#include "opskit/handle.hpp"
#include "publish/endpoint.hpp"

namespace opskit::repo::publish {

namespace {

using Doc = CPtr<xmlDoc, xmlFreeDoc>;

Result<Doc> parse(std::string_view text, const char* what) {
  if (text.size() > (1u << 30))
    return fail(fmt::format("{}: larger than 1 GiB", what));
  Doc doc(xmlReadMemory(text.data(), static_cast<int>(text.size()), what, nullptr,
                        XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING));
  if (!doc || !xmlDocGetRootElement(doc.get()))
    return fail(fmt::format("{}: not well-formed XML", what));
  return doc;
}

// Whether `n` is an element of local name `name`, whatever its namespace (WebDAV servers
// differ in their prefixes).
bool is(const xmlNode* n, const char* name) {
  return n && n->type == XML_ELEMENT_NODE &&
         std::string_view(reinterpret_cast<const char*>(n->name)) == name;
}

const xmlNode* child(const xmlNode* n, const char* name) {
  for (const xmlNode* c = n ? n->children : nullptr; c; c = c->next)
    if (is(c, name))
      return c;
  return nullptr;
}

std::string text(const xmlNode* n) {
  std::string out;
  for (const xmlNode* c = n ? n->children : nullptr; c; c = c->next)
    if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE)
      out += reinterpret_cast<const char*>(c->content);
  return out;
}

std::optional<std::uint64_t> number(const std::string& s) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty())
    return std::nullopt;
  return v;
}

} // namespace

std::optional<std::string> unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    unsigned v = 0;
    if (i + 2 >= s.size())
      return std::nullopt;
    auto [end, ec] = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
    if (ec != std::errc() || end != s.data() + i + 3)
      return std::nullopt;
    out += static_cast<char>(v);
    i += 2;
  }
  return out;
}

Result<S3Page> parse_s3_listing(std::string_view xml, std::string_view prefix) {
  OPSKIT_TRY_ASSIGN(auto doc, parse(xml, "the bucket's listing"));
  const xmlNode* root = xmlDocGetRootElement(doc.get());
  if (!is(root, "ListBucketResult"))
    return fail("the bucket's listing: not a ListBucketResult");
  S3Page page;
  for (const xmlNode* c = root->children; c; c = c->next) {
    if (!is(c, "Contents"))
      continue;
    std::string key = text(child(c, "Key"));
    auto size = number(text(child(c, "Size")));
    if (!size || !key.starts_with(prefix))
      return fail(fmt::format("the bucket's listing: an entry without a key under '{}' and a "
                              "size",
                              prefix));
    if (key.ends_with('/') && *size == 0)
      continue; // a "folder" the S3 console makes: an empty object named as its prefix
    page.objects.push_back({key.substr(prefix.size()), *size, false});
  }
  if (text(child(root, "IsTruncated")) == "true") {
    page.next = text(child(root, "NextContinuationToken"));
    if (page.next.empty())
      return fail("the bucket's listing: truncated without a continuation token");
  }
  return page;
}

Result<std::string> parse_upload_id(std::string_view xml) {
  OPSKIT_TRY_ASSIGN(auto doc, parse(xml, "the multipart upload's answer"));
  const xmlNode* root = xmlDocGetRootElement(doc.get());
  std::string id = text(child(root, "UploadId"));
  if (!is(root, "InitiateMultipartUploadResult") || id.empty())
    return fail("the multipart upload's answer: no UploadId");
  return id;
}

std::optional<S3Error> s3_error(std::string_view xml) {
  if (xml.find("<Error") == std::string_view::npos)
    return std::nullopt;
  auto doc = parse(xml, "an S3 answer");
  if (!doc)
    return std::nullopt;
  const xmlNode* root = xmlDocGetRootElement(doc->get());
  if (!is(root, "Error"))
    return std::nullopt;
  return S3Error{text(child(root, "Code")), text(child(root, "Message"))};
}

Result<std::vector<Listed>> parse_multistatus(std::string_view xml, std::string_view root,
                                              std::string_view collection) {
  OPSKIT_TRY_ASSIGN(auto doc, parse(xml, "the server's PROPFIND answer"));
  const xmlNode* top = xmlDocGetRootElement(doc.get());
  if (!is(top, "multistatus"))
    return fail("the server's PROPFIND answer: not a multistatus");
  std::vector<Listed> members;
  for (const xmlNode* r = top->children; r; r = r->next) {
    if (!is(r, "response"))
      continue;
    std::string href = text(child(r, "href"));
    if (auto scheme = href.find("://"); scheme != std::string::npos)
      href = href.substr(std::min(href.find('/', scheme + 3), href.size()));
    auto path = unescape(href);
    if (!path || !path->starts_with(root) || has_dot_segment(*path))
      return fail(fmt::format("the server's PROPFIND answer: '{}' is not below {}", href, root));
    Listed l;
    l.path = path->substr(root.size());
    const xmlNode* prop = child(child(r, "propstat"), "prop");
    l.collection = child(child(prop, "resourcetype"), "collection") != nullptr;
    if (l.collection && !l.path.empty() && !l.path.ends_with('/'))
      l.path += '/';
    if (l.path == collection)
      continue; // the collection listed, not a member
    if (!l.path.starts_with(collection))
      return fail(fmt::format("the server's PROPFIND answer: '{}' is not in {}", href,
                              collection.empty() ? root : collection));
    l.size = number(text(child(prop, "getcontentlength"))).value_or(0);
    members.push_back(std::move(l));
  }
  return members;
}

} // namespace opskit::repo::publish
