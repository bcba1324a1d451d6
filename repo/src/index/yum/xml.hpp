// SPDX-License-Identifier: MIT
#pragma once

// The XML writer the dnf metadata is written with: a thin layer over libxml2's xmlTextWriter,
// shared by the package fragments and repomd.xml. Not installed.

#include <string>
#include <string_view>

#include <libxml/tree.h>
#include <libxml/xmlwriter.h>

#include "opskit/error.hpp"
#include "opskit/handle.hpp"

namespace opskit::repo::detail {

// A C string as libxml2's unsigned character type.
inline const xmlChar* x(const char* s) {
  return reinterpret_cast<const xmlChar*>(s);
}

// Writes elements indented by two spaces and remembers the first failure, which finish()
// reports. Attribute values and text are escaped, and characters XML 1.0 forbids (controls but
// tab, newline and carriage return) dropped.
class Xml {
public:
  // A whole document, or (Part::fragment) elements to be pasted into one.
  enum class Part { document, fragment };
  explicit Xml(Part part = Part::document);

  Xml& open(const char* name);
  Xml& attr(const char* name, std::string_view value);
  Xml& text(std::string_view value);
  Xml& close();
  // <name>value</name>
  Xml& element(const char* name, std::string_view value) { return open(name).text(value).close(); }
  // The text written, or "<what>: cannot write XML" when any call failed. Ends the writer.
  Result<std::string> finish(std::string_view what);

private:
  CPtr<xmlBuffer, xmlBufferFree> buffer_;
  CPtr<xmlTextWriter, xmlFreeTextWriter> writer_;
  Part part_;
  bool ok_ = false;
};

} // namespace opskit::repo::detail
