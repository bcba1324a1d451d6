// SPDX-License-Identifier: MIT
// repodata/repomd.xml, the index of a dnf repository's metadata, written and read back, and the
// package locations read back from a primary.xml.
//
// The format is createrepo's, documented by example in createrepo_c and read by libsolv and
// librepo: repomd.xml lists each metadata file with <checksum> (of the compressed file),
// <open-checksum> (of the uncompressed one), <location href>, <timestamp>, <size> and
// <open-size>. File names carry their SHA-256 ("<sha256>-primary.xml.gz") so that a client
// holding an old repomd.xml never reads a new file under an old name.
//
// What is subtle: repomd.xml.asc, its signature, must be made from the final repomd.xml bytes.
#include "opskit/repo/index/yum/repomd.hpp"

#include <cstdlib>
#include <limits>
#include <memory>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>

#include <fmt/format.h>

#include "index/yum/xml.hpp"
#include "opskit/handle.hpp"

namespace opskit::repo {

namespace {

using detail::x;
using Doc = CPtr<xmlDoc, xmlFreeDoc>;

// xmlFree is a function pointer variable, not a function, so CDeleter cannot name it.
struct XmlFree {
  void operator()(xmlChar* p) const noexcept { xmlFree(p); }
};
using XmlText = std::unique_ptr<xmlChar, XmlFree>;

bool name_is(const xmlNode* n, const char* name) {
  return n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, x(name)) == 0;
}

// A string libxml2 allocated, copied and freed ("" for none).
std::string owned(xmlChar* text) {
  XmlText value(text);
  return value ? std::string(reinterpret_cast<const char*>(value.get())) : std::string();
}

std::string content(xmlNode* n) {
  return owned(xmlNodeGetContent(n));
}

std::string property(xmlNode* n, const char* name) {
  return owned(xmlGetProp(n, x(name)));
}

Result<Doc> parse_xml(std::string_view text, const char* name) {
  Doc doc(
      xmlReadMemory(text.data(), static_cast<int>(text.size()), name, nullptr,
                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_HUGE));
  if (!doc || !xmlDocGetRootElement(doc.get()))
    return fail(fmt::format("{}: not well-formed XML", name));
  return doc;
}

} // namespace

Result<std::string> write_repomd(std::span<const RepomdEntry> entries, std::time_t date) {
  detail::Xml repomd;
  repomd.open("repomd")
      .attr("xmlns", "http://linux.duke.edu/metadata/repo")
      .attr("xmlns:rpm", "http://linux.duke.edu/metadata/rpm");
  repomd.element("revision", std::to_string(date));
  for (const auto& e : entries) {
    repomd.open("data").attr("type", e.type);
    repomd.open("checksum").attr("type", "sha256").text(e.checksum).close();
    repomd.open("open-checksum").attr("type", "sha256").text(e.open_checksum).close();
    repomd.open("location").attr("href", e.location).close();
    repomd.element("timestamp", std::to_string(date));
    repomd.element("size", std::to_string(e.size));
    repomd.element("open-size", std::to_string(e.open_size));
    repomd.close();
  }
  repomd.close();
  return repomd.finish("repomd.xml");
}

Result<std::vector<RepomdEntry>> parse_repomd(std::string_view text) {
  OPSKIT_TRY_ASSIGN(auto doc, parse_xml(text, "repomd.xml"));
  std::vector<RepomdEntry> out;
  for (xmlNode* data = xmlDocGetRootElement(doc.get())->children; data; data = data->next) {
    if (!name_is(data, "data"))
      continue;
    RepomdEntry e;
    e.type = property(data, "type");
    for (xmlNode* c = data->children; c; c = c->next) {
      if (name_is(c, "location"))
        e.location = property(c, "href");
      else if (name_is(c, "checksum"))
        e.checksum = content(c);
      else if (name_is(c, "open-checksum"))
        e.open_checksum = content(c);
      else if (name_is(c, "size"))
        e.size = std::strtoull(content(c).c_str(), nullptr, 10);
      else if (name_is(c, "open-size"))
        e.open_size = std::strtoull(content(c).c_str(), nullptr, 10);
    }
    out.push_back(std::move(e));
  }
  return out;
}

// Streamed, not parsed into a tree: the primary.xml of a large repository is tens of MB, and
// only two attributes of each package are wanted.
Result<std::vector<YumLocation>> parse_primary_locations(std::string_view text) {
  if (text.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    return fail("primary.xml: larger than 2 GiB");
  CPtr<xmlTextReader, xmlFreeTextReader> reader(xmlReaderForMemory(
      text.data(), static_cast<int>(text.size()), "primary.xml", nullptr,
      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_HUGE));
  if (!reader)
    return fail("primary.xml: not well-formed XML");
  xmlTextReader* r = reader.get();
  auto attribute = [r](const char* name) { return owned(xmlTextReaderGetAttribute(r, x(name))); };
  std::vector<YumLocation> out;
  bool in_package = false;
  int status = xmlTextReaderRead(r);
  while (status == 1) {
    bool skip = false; // past the element's children (<format> has most of a package's)
    if (xmlTextReaderNodeType(r) == XML_READER_TYPE_ELEMENT) {
      int depth = xmlTextReaderDepth(r);
      const xmlChar* name = xmlTextReaderConstLocalName(r);
      if (depth == 1) {
        in_package = xmlStrEqual(name, x("package"));
        if (in_package)
          out.emplace_back();
      } else if (depth == 2 && in_package) {
        if (xmlStrEqual(name, x("location")))
          out.back().href = attribute("href");
        else if (xmlStrEqual(name, x("size")))
          out.back().size = std::strtoull(attribute("package").c_str(), nullptr, 10);
        skip = true;
      }
    }
    status = skip ? xmlTextReaderNext(r) : xmlTextReaderRead(r);
  }
  if (status != 0)
    return fail("primary.xml: not well-formed XML");
  return out;
}

} // namespace opskit::repo
