// SPDX-License-Identifier: MIT
// dnf/yum repository metadata: repodata/repomd.xml and the primary, filelists and other XML.
//
// The format is createrepo's, documented by example in createrepo_c and read by libsolv and
// librepo: repomd.xml lists each metadata file with <checksum> (of the compressed file),
// <open-checksum> (of the uncompressed one), <location href>, <timestamp>, <size> and
// <open-size>; primary.xml holds one <package> per rpm with its EVR (epoch="0" when the rpm has
// none), checksum (the pkgid), sizes, location, header range and dependency lists; filelists.xml
// every file; other.xml the changelogs. File names carry their SHA-256 ("<sha256>-primary.xml.gz")
// so that a client holding an old repomd.xml never reads a new file under an old name.
//
// Each package's three <package> elements are written once, when it is pushed, and kept in the
// database, so that re-indexing a dist of thousands for one new package pastes text together
// instead of re-parsing and re-writing every package.
//
// What is subtle: XML escaping of summaries, descriptions and changelogs (libxml2's writer does
// it, including characters that are illegal in XML 1.0 which it would otherwise emit as-is, so
// those are dropped here); requirements carry pre="1" when needed before install; primary
// lists only the "primary" files (under /etc/, any bin/ directory, /usr/lib/sendmail) as
// createrepo does, filelists all of them; and repomd.xml.asc, its signature, must be made
// from the final repomd.xml bytes.
#include "opskit/repo/index/yum/yum.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <thread>
#include <unordered_map>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>

#include <fmt/format.h>

#include "opskit/handle.hpp"
#include "opskit/parallel.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "opskit/repo/format/version.hpp"

namespace opskit::repo {

namespace {

using Buffer = CPtr<xmlBuffer, xmlBufferFree>;
using Writer = CPtr<xmlTextWriter, xmlFreeTextWriter>;

// Characters XML 1.0 forbids (controls but tab, newline, carriage return) removed.
std::string xml_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text)
    if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n' || c == '\r')
      out.push_back(c);
  return out;
}

// xmlFree is a function pointer variable, not a function, so CDeleter cannot name it.
struct XmlFree {
  void operator()(xmlChar* p) const noexcept { xmlFree(p); }
};
using XmlText = std::unique_ptr<xmlChar, XmlFree>;

const xmlChar* x(const char* s) {
  return reinterpret_cast<const xmlChar*>(s);
}

// A thin writer over xmlTextWriter that remembers the first failure.
class Xml {
public:
  // A whole document, or (Part::fragment) elements to be pasted into one.
  enum class Part { document, fragment };
  explicit Xml(Part part = Part::document)
      : buffer_(xmlBufferCreate()), writer_(xmlNewTextWriterMemory(buffer_.get(), 0)), part_(part) {
    ok_ = buffer_ && writer_ &&
          (part == Part::fragment ||
           xmlTextWriterStartDocument(writer_.get(), nullptr, "UTF-8", nullptr) >= 0);
    if (ok_)
      xmlTextWriterSetIndent(writer_.get(), 1),
          xmlTextWriterSetIndentString(writer_.get(), x("  "));
  }
  Xml& open(const char* name) {
    ok_ = ok_ && xmlTextWriterStartElement(writer_.get(), x(name)) >= 0;
    return *this;
  }
  Xml& attr(const char* name, std::string_view value) {
    std::string v = xml_safe(value);
    ok_ = ok_ && xmlTextWriterWriteAttribute(writer_.get(), x(name), x(v.c_str())) >= 0;
    return *this;
  }
  Xml& text(std::string_view value) {
    std::string v = xml_safe(value);
    ok_ = ok_ && xmlTextWriterWriteString(writer_.get(), x(v.c_str())) >= 0;
    return *this;
  }
  Xml& close() {
    ok_ = ok_ && xmlTextWriterEndElement(writer_.get()) >= 0;
    return *this;
  }
  // <name attrs...>text</name>
  Xml& element(const char* name, std::string_view value) { return open(name).text(value).close(); }
  Result<std::string> finish(std::string_view what) {
    ok_ = ok_ && (part_ == Part::fragment || xmlTextWriterEndDocument(writer_.get()) >= 0);
    if (ok_ && part_ == Part::fragment)
      ok_ = xmlTextWriterFlush(writer_.get()) >= 0;
    writer_.reset(); // flushes into the buffer
    if (!ok_)
      return fail(fmt::format("{}: cannot write XML", what));
    return std::string(reinterpret_cast<const char*>(xmlBufferContent(buffer_.get())),
                       static_cast<std::size_t>(xmlBufferLength(buffer_.get())));
  }

private:
  Buffer buffer_;
  Writer writer_;
  Part part_;
  bool ok_ = false;
};

void version_element(Xml& xml, const RpmInfo& r) {
  xml.open("version")
      .attr("epoch", r.epoch.empty() ? "0" : r.epoch)
      .attr("ver", r.version)
      .attr("rel", r.release)
      .close();
}

// Whether a dependency list marks the entries needed before install with pre="1".
enum class Pre { omit, mark };

void dependency_list(Xml& xml, const char* name, const std::vector<RpmDependency>& deps, Pre pre) {
  if (deps.empty())
    return;
  xml.open(name);
  for (const auto& d : deps) {
    xml.open("rpm:entry").attr("name", d.name);
    if (!d.flags.empty()) {
      xml.attr("flags", d.flags)
          .attr("epoch", d.epoch.empty() ? "0" : d.epoch)
          .attr("ver", d.version);
      if (!d.release.empty())
        xml.attr("rel", d.release);
    }
    if (pre == Pre::mark && d.pre)
      xml.attr("pre", "1");
    xml.close();
  }
  xml.close();
}

bool primary_file(std::string_view path) {
  return path.starts_with("/etc/") || path.find("bin/") != std::string_view::npos ||
         path == "/usr/lib/sendmail";
}

// primary.xml lists only the files dnf resolves paths against; filelists.xml every file.
enum class Files { primary, all };

void file_elements(Xml& xml, const RpmInfo& r, Files which) {
  for (const auto& f : r.files) {
    if (which == Files::primary && !primary_file(f.path))
      continue;
    xml.open("file");
    if (f.type == RpmFileType::dir)
      xml.attr("type", "dir");
    else if (f.type == RpmFileType::ghost)
      xml.attr("type", "ghost");
    xml.text(f.path).close();
  }
}

Result<std::string> primary_fragment(const YumPackage& p) {
  const RpmInfo& r = p.rpm;
  Xml xml(Xml::Part::fragment);
  xml.open("package").attr("type", "rpm");
  xml.element("name", r.name).element("arch", r.arch);
  version_element(xml, r);
  xml.open("checksum").attr("type", "sha256").attr("pkgid", "YES").text(p.sha256).close();
  xml.element("summary", r.summary)
      .element("description", r.description)
      .element("packager", r.packager);
  xml.element("url", r.url);
  xml.open("time")
      .attr("file", std::to_string(r.build_time))
      .attr("build", std::to_string(r.build_time))
      .close();
  xml.open("size")
      .attr("package", std::to_string(p.size))
      .attr("installed", std::to_string(r.installed_size))
      .attr("archive", std::to_string(r.archive_size))
      .close();
  xml.open("location").attr("href", p.location).close();
  xml.open("format");
  xml.element("rpm:license", r.license)
      .element("rpm:vendor", r.vendor)
      .element("rpm:group", r.group);
  xml.element("rpm:buildhost", r.buildhost).element("rpm:sourcerpm", r.sourcerpm);
  xml.open("rpm:header-range")
      .attr("start", std::to_string(r.header_start))
      .attr("end", std::to_string(r.header_end))
      .close();
  dependency_list(xml, "rpm:provides", r.provides, Pre::omit);
  dependency_list(xml, "rpm:requires", r.requirements, Pre::mark);
  dependency_list(xml, "rpm:conflicts", r.conflicts, Pre::omit);
  dependency_list(xml, "rpm:obsoletes", r.obsoletes, Pre::omit);
  dependency_list(xml, "rpm:suggests", r.suggests, Pre::omit);
  dependency_list(xml, "rpm:enhances", r.enhances, Pre::omit);
  dependency_list(xml, "rpm:recommends", r.recommends, Pre::omit);
  dependency_list(xml, "rpm:supplements", r.supplements, Pre::omit);
  file_elements(xml, r, Files::primary);
  xml.close().close();
  return xml.finish("primary.xml");
}

Result<std::string> filelists_fragment(const YumPackage& p) {
  Xml xml(Xml::Part::fragment);
  xml.open("package").attr("pkgid", p.sha256).attr("name", p.rpm.name).attr("arch", p.rpm.arch);
  version_element(xml, p.rpm);
  file_elements(xml, p.rpm, Files::all);
  xml.close();
  return xml.finish("filelists.xml");
}

Result<std::string> other_fragment(const YumPackage& p) {
  Xml xml(Xml::Part::fragment);
  xml.open("package").attr("pkgid", p.sha256).attr("name", p.rpm.name).attr("arch", p.rpm.arch);
  version_element(xml, p.rpm);
  for (const auto& c : p.rpm.changelogs)
    xml.open("changelog")
        .attr("author", c.author)
        .attr("date", std::to_string(c.date))
        .text(c.text)
        .close();
  xml.close();
  return xml.finish("other.xml");
}

} // namespace

Result<YumFragments> yum_fragments(const YumPackage& package) {
  auto primary = primary_fragment(package);
  auto filelists = filelists_fragment(package);
  auto other = other_fragment(package);
  if (!primary || !filelists || !other)
    return fail(!primary ? primary.error() : !filelists ? filelists.error() : other.error());
  return YumFragments{std::move(*primary), std::move(*filelists), std::move(*other)};
}

Result<YumIndex> build_yum_repo(std::vector<YumPackage> packages, std::time_t date,
                                const YumPrevious& previous) {
  std::vector<YumFragments> fragments;
  fragments.reserve(packages.size());
  std::vector<std::string> evrs;
  evrs.reserve(packages.size());
  std::vector<YumEntry> entries;
  for (const auto& p : packages) {
    OPSKIT_TRY_ASSIGN(auto xml, yum_fragments(p));
    const YumFragments& f = fragments.emplace_back(std::move(xml));
    entries.push_back({p.rpm.name,
                       evrs.emplace_back(p.rpm.evr()),
                       p.rpm.arch,
                       p.sha256,
                       p.location,
                       p.size,
                       {f.primary, f.filelists, f.other},
                       entries.size()});
  }
  return build_yum_repo(std::move(entries), date, previous);
}

bool yum_before(const YumEntry& a, const YumEntry& b) {
  if (a.name != b.name)
    return a.name < b.name;
  if (int c = compare_rpm_versions(a.evr, b.evr); c != 0)
    return c < 0;
  if (a.arch != b.arch)
    return a.arch < b.arch;
  return a.evr < b.evr; // "0:1-1" and "1-1" are equal versions
}

bool yum_run_ends(const YumEntry& e) {
  constexpr std::uint64_t k_member_packages = 256; // on average in a run
  std::uint64_t h = 14695981039346656037u;         // FNV-1a, fixed so that output is too
  for (std::string_view part : {e.name, e.evr, e.arch}) {
    for (char c : part)
      h = (h ^ static_cast<unsigned char>(c)) * 1099511628211u;
    h *= 1099511628211u; // a NUL between the parts
  }
  return h % k_member_packages == 0;
}

namespace {

// What the fragments of a run's packages are made from (each package's pkgid, pool file and
// size), hashed: its members' keys are made of it. A change to how fragments are written must
// change k_run_tag.
std::string run_key(std::span<const YumEntry> entries) {
  constexpr std::string_view k_run_tag = "pkgcloud yum run 1\n";
  std::string text(k_run_tag);
  for (const auto& e : entries) {
    text += e.pkgid;
    text += '\0';
    text += e.file;
    text += '\0';
    text += std::to_string(e.size);
    text += '\n';
  }
  return Sha256Stream().update(text).raw();
}

} // namespace

std::vector<YumRun> yum_runs(std::vector<YumEntry> entries) {
  // Entries that come sorted by name (as the database's index gives them) only need their
  // versions of one name sorted.
  auto by_name = [](const YumEntry& a, const YumEntry& b) { return a.name < b.name; };
  if (std::is_sorted(entries.begin(), entries.end(), by_name)) {
    for (auto first = entries.begin(); first != entries.end();) {
      auto last = std::find_if(first + 1, entries.end(),
                               [&](const YumEntry& e) { return e.name != first->name; });
      std::sort(first, last, yum_before);
      first = last;
    }
  } else {
    std::sort(entries.begin(), entries.end(), yum_before);
  }
  std::vector<YumRun> runs;
  for (std::size_t begin = 0, i = 0; i < entries.size(); ++i)
    if (yum_run_ends(entries[i]) || i + 1 == entries.size()) {
      YumRun& run = runs.emplace_back();
      run.entries.assign(entries.begin() + static_cast<std::ptrdiff_t>(begin),
                         entries.begin() + static_cast<std::ptrdiff_t>(i + 1));
      run.packages = run.entries.size();
      run.key = run_key(run.entries);
      begin = i + 1;
    }
  return runs;
}

Result<YumIndex> build_yum_repo(std::vector<YumEntry> entries, std::time_t date,
                                const YumPrevious& previous, const YumFill& fill) {
  return build_yum_repo(yum_runs(std::move(entries)), date, previous, fill, {});
}

Result<YumIndex> build_yum_repo(std::vector<YumRun> runs, std::time_t date,
                                const YumPrevious& previous, const YumFill& fill,
                                const YumRunEntries& entries_of) {
  std::size_t packages = 0;
  for (const auto& run : runs)
    packages += run.packages;
  YumIndex index;
  Xml repomd;
  repomd.open("repomd")
      .attr("xmlns", "http://linux.duke.edu/metadata/repo")
      .attr("xmlns:rpm", "http://linux.duke.edu/metadata/rpm");
  repomd.element("revision", std::to_string(date));
  struct Kind {
    const char* type;
    const char* open; // the root element's start tag, without its packages attribute and '>'
    const char* close;
    std::string_view YumFragmentViews::*part;
    std::string_view YumPrevious::*previous;
  };
  static const Kind k_kinds[] = {
      {"primary",
       "<metadata xmlns=\"http://linux.duke.edu/metadata/common\" "
       "xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\"",
       "</metadata>\n", &YumFragmentViews::primary, &YumPrevious::primary},
      {"filelists", "<filelists xmlns=\"http://linux.duke.edu/metadata/filelists\"",
       "</filelists>\n", &YumFragmentViews::filelists, &YumPrevious::filelists},
      {"other", "<otherdata xmlns=\"http://linux.duke.edu/metadata/other\"", "</otherdata>\n",
       &YumFragmentViews::other, &YumPrevious::other}};
  // The three documents are the root element around the packages' fragments, which were
  // written and escaped once, when each package was pushed. Each is written as keyed gzip
  // members: the start tag, one per run of packages, the end tag. The key of a tag's member is
  // the SHA-256 of its text; the key of a run's is the SHA-256 of what its fragments are made
  // from (document, and each package's pkgid, pool file and size), so that a rewrite knows
  // which runs it can copy without reading a single fragment. A copied run's text, which the
  // document's open-checksum covers, comes from YumPrevious::text; only the runs compressed
  // anew need their fragments, and a carried run (see YumRun) its entries.
  // The work is one task per compressed member plus one per document for its open-checksum
  // (SHA-256 cannot be split), spread over the CPUs. A member's text is the concatenation of
  // its pieces: views of the tags, the kept texts and the fragments (with a "\n" after a
  // fragment that lacks one).
  using Pieces = std::vector<std::string_view>;
  struct Member {
    std::string key;
    Pieces pieces;
    std::string_view bytes;                  // the compressed member, copied or made
    Result<std::string> made{std::string()}; // when compressed anew
    std::string text;                        // a run compressed anew: its text, to be kept
    bool fresh = false;
  };
  struct Doc {
    std::string head;
    std::vector<Member> members; // start tag, one per run, end tag
    std::vector<GzipMember> previous;
    std::unordered_map<std::string_view, const GzipMember*> reusable;
    std::string open_sha;
    std::size_t open_size = 0;
  };
  // The member of the previous file of `doc` with this key, if any.
  auto previous_member = [](const Doc& doc, std::string_view key) -> const GzipMember* {
    auto it = doc.reusable.find(key);
    return it == doc.reusable.end() ? nullptr : it->second;
  };
  std::array<Doc, std::size(k_kinds)> docs;
  std::vector<bool> fill_run(runs.size(), false); // runs compressed anew in some document
  for (std::size_t k = 0; k < docs.size(); ++k) {
    const Kind& kind = k_kinds[k];
    Doc& doc = docs[k];
    doc.previous = keyed_gzip_members(previous.*kind.previous);
    for (const auto& m : doc.previous)
      doc.reusable.emplace(m.key, &m);
    doc.head = fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{} packages=\"{}\">\n",
                           kind.open, packages);
    auto tag = [&](std::string_view text) {
      Member& m = doc.members.emplace_back();
      m.key = Sha256Stream().update(text).raw();
      m.pieces = {text};
      const GzipMember* old = previous_member(doc, m.key);
      m.fresh = !old || old->isize != static_cast<std::uint32_t>(text.size());
      if (!m.fresh)
        m.bytes = old->bytes;
    };
    tag(doc.head);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      Member& m = doc.members.emplace_back();
      m.key = Sha256Stream().update(kind.type).update(runs[r].key).raw();
      const GzipMember* old = previous_member(doc, m.key);
      std::optional<std::string_view> text;
      if (old && previous.text)
        text = previous.text(hex(m.key), old->isize);
      if (text) {
        m.bytes = old->bytes;
        m.pieces = {*text};
      } else {
        m.fresh = true;
        fill_run[r] = true;
      }
    }
    tag(kind.close);
  }
  // The entries of the carried runs compressed anew, which must be what the run was made of,
  // and the fragments of every run compressed anew, where the caller left them out.
  for (std::size_t r = 0; r < runs.size(); ++r) {
    YumRun& run = runs[r];
    if (!fill_run[r] || !run.entries.empty() || run.packages == 0)
      continue;
    if (!entries_of)
      return fail("yum index: a carried run without its entries");
    OPSKIT_TRY_ASSIGN(auto entries, entries_of(r));
    if (entries.size() != run.packages || run_key(entries) != run.key)
      return fail("yum index: a carried run's packages have changed; run `pkgcloud index`");
    run.entries = std::move(entries);
  }
  std::vector<YumEntry*> wanted;
  for (std::size_t r = 0; r < runs.size(); ++r)
    if (fill_run[r])
      for (auto& e : runs[r].entries)
        if (e.xml.primary.empty())
          wanted.push_back(&e);
  if (!wanted.empty()) {
    if (!fill)
      return fail(fmt::format("{}: no index fragments", wanted.front()->file));
    OPSKIT_TRY(fill(wanted));
  }
  for (std::size_t k = 0; k < docs.size(); ++k)
    for (std::size_t r = 0; r < runs.size(); ++r) {
      Member& m = docs[k].members[r + 1];
      if (!m.fresh)
        continue;
      for (const auto& e : runs[r].entries) {
        std::string_view fragment = e.xml.*k_kinds[k].part;
        m.pieces.push_back(fragment);
        if (!fragment.ends_with('\n'))
          m.pieces.push_back("\n");
      }
    }
  // The texts of the runs compressed anew go back to a caller that keeps them.
  const bool keep_texts = static_cast<bool>(previous.text);
  auto make_member = [keep_texts](Member& m, bool run) {
    if (run && keep_texts) {
      std::size_t size = 0;
      for (auto piece : m.pieces)
        size += piece.size();
      m.text.reserve(size);
      for (auto piece : m.pieces)
        m.text += piece;
      m.made = gzip_keyed_member(m.text, m.key);
    } else {
      m.made = gzip_keyed_member(m.pieces, m.key);
    }
    if (m.made)
      m.bytes = *m.made;
  };
  auto open_checksum = [](Doc& doc) {
    Sha256Stream sha;
    for (const auto& m : doc.members)
      for (auto piece : m.pieces) {
        sha.update(piece);
        doc.open_size += piece.size();
      }
    doc.open_sha = sha.hex();
  };
  std::vector<std::function<void()>> tasks;
  for (auto& doc : docs) // the longest tasks first
    tasks.emplace_back([&doc, &open_checksum] { open_checksum(doc); });
  for (auto& doc : docs)
    for (std::size_t i = 0; i < doc.members.size(); ++i)
      if (doc.members[i].fresh)
        tasks.emplace_back([&doc, &make_member, i] {
          make_member(doc.members[i], i > 0 && i + 1 < doc.members.size());
        });
  parallel_for(tasks.size(), std::thread::hardware_concurrency(),
               [&tasks](std::size_t i) { tasks[i](); });
  for (std::size_t k = 0; k < docs.size(); ++k) {
    const Kind& kind = k_kinds[k];
    Doc& doc = docs[k];
    std::string gz;
    std::size_t size = 0;
    for (const auto& m : doc.members) {
      if (!m.made)
        return fail(m.made.error());
      size += m.bytes.size();
    }
    gz.reserve(size);
    for (std::size_t i = 0; i < doc.members.size(); ++i) {
      Member& m = doc.members[i];
      gz += m.bytes;
      if (!keep_texts || i == 0 || i + 1 == doc.members.size())
        continue;
      index.text_names.push_back(hex(m.key));
      if (m.fresh)
        index.texts.push_back({index.text_names.back(), std::move(m.text)});
    }
    std::string sha = sha256_hex(gz);
    std::string path = fmt::format("repodata/{}-{}.xml.gz", sha, kind.type);
    repomd.open("data").attr("type", kind.type);
    repomd.open("checksum").attr("type", "sha256").text(sha).close();
    repomd.open("open-checksum").attr("type", "sha256").text(doc.open_sha).close();
    repomd.open("location").attr("href", path).close();
    repomd.element("timestamp", std::to_string(date));
    repomd.element("size", std::to_string(gz.size()));
    repomd.element("open-size", std::to_string(doc.open_size));
    repomd.close();
    index.files.push_back({std::move(path), std::move(gz)});
  }
  repomd.close();
  OPSKIT_TRY_ASSIGN(auto text, repomd.finish("repomd.xml"));
  index.repomd = std::move(text);
  return index;
}

namespace {

using Doc = CPtr<xmlDoc, xmlFreeDoc>;

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
