// SPDX-License-Identifier: MIT
#include "index/yum/xml.hpp"

#include <fmt/format.h>

namespace opskit::repo::detail {

namespace {

// Characters XML 1.0 forbids removed from UTF-8 `text`: controls but tab, newline and
// carriage return, U+FFFE and U+FFFF (EF BF BE, EF BF BF) and surrogates (ED A0..BF ..). One
// of them in one package's text made the whole repository's primary.xml unreadable to dnf.
std::string xml_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
      continue;
    if (i + 2 < text.size()) {
      auto c1 = static_cast<unsigned char>(text[i + 1]),
           c2 = static_cast<unsigned char>(text[i + 2]);
      if ((c == 0xEF && c1 == 0xBF && (c2 == 0xBE || c2 == 0xBF)) || (c == 0xED && c1 >= 0xA0)) {
        i += 2;
        continue;
      }
    }
    out.push_back(static_cast<char>(c));
  }
  return out;
}

} // namespace

Xml::Xml(Part part)
    : buffer_(xmlBufferCreate()), writer_(xmlNewTextWriterMemory(buffer_.get(), 0)), part_(part) {
  ok_ = buffer_ && writer_ &&
        (part == Part::fragment ||
         xmlTextWriterStartDocument(writer_.get(), nullptr, "UTF-8", nullptr) >= 0);
  if (ok_)
    xmlTextWriterSetIndent(writer_.get(), 1), xmlTextWriterSetIndentString(writer_.get(), x("  "));
}

Xml& Xml::open(const char* name) {
  ok_ = ok_ && xmlTextWriterStartElement(writer_.get(), x(name)) >= 0;
  return *this;
}

Xml& Xml::attr(const char* name, std::string_view value) {
  std::string v = xml_safe(value);
  ok_ = ok_ && xmlTextWriterWriteAttribute(writer_.get(), x(name), x(v.c_str())) >= 0;
  return *this;
}

Xml& Xml::text(std::string_view value) {
  std::string v = xml_safe(value);
  ok_ = ok_ && xmlTextWriterWriteString(writer_.get(), x(v.c_str())) >= 0;
  return *this;
}

Xml& Xml::close() {
  ok_ = ok_ && xmlTextWriterEndElement(writer_.get()) >= 0;
  return *this;
}

Result<std::string> Xml::finish(std::string_view what) {
  ok_ = ok_ && (part_ == Part::fragment || xmlTextWriterEndDocument(writer_.get()) >= 0);
  if (ok_ && part_ == Part::fragment)
    ok_ = xmlTextWriterFlush(writer_.get()) >= 0;
  writer_.reset(); // flushes into the buffer
  if (!ok_)
    return fail(fmt::format("{}: cannot write XML", what));
  return std::string(reinterpret_cast<const char*>(xmlBufferContent(buffer_.get())),
                     static_cast<std::size_t>(xmlBufferLength(buffer_.get())));
}

} // namespace opskit::repo::detail
