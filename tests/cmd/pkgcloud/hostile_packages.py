#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Writes packages that try to hurt a repository, and good ones that look odd, into a directory.

Usage: hostile_packages.py DIR

Each package is made here from bytes: an ar archive, tar members and rpm headers written by
hand, so that a field can hold what no packaging tool would write. DIR/manifest.json lists
them: "refused" maps a file name to a piece of the one-line error pkgcloud must give for it,
"accepted" names the good packages (descriptions that are not UTF-8) that it must take,
and DIR/oddtext.control is the control file of the good deb.

The decompression bombs are a few KiB: gzip members of zeros repeated (each expands ~1000
times), compressed again with xz (the repeated members compress to almost nothing), and
libarchive peels both layers. They expand to 4 GiB; a reader that held the expansion would
need that much memory.
"""

import gzip
import io
import json
import lzma
import struct
import sys
import tarfile

GIB = 1 << 30


# --- deb ---------------------------------------------------------------------------------------

def ar(members):
    """An ar archive of (name, bytes) members; `size` in a member overrides its header."""
    out = bytearray(b"!<arch>\n")
    for member in members:
        name, data = member[0], member[1]
        size = member[2] if len(member) > 2 else len(data)
        header = b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (
            (name + "/").encode(), 0, 0, 0, b"100644", size)
        assert len(header) == 60
        out += header + data
        if len(data) % 2:
            out += b"\n"
    return bytes(out)


def tar(entries):
    """An uncompressed tar of entries (name, bytes) or (name, type, link target)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for entry in entries:
            info = tarfile.TarInfo(entry[0])
            info.mtime = 0
            if len(entry) == 2:
                info.size = len(entry[1])
                t.addfile(info, io.BytesIO(entry[1]))
            else:
                info.type, info.linkname = entry[1], entry[2]
                t.addfile(info)
    return buffer.getvalue()


def tar_header(name, size):
    """The 512-byte ustar header of a regular file `name` of `size` bytes (up to 8 GiB)."""
    info = tarfile.TarInfo(name)
    info.size, info.mtime = size, 0
    return info.tobuf(format=tarfile.USTAR_FORMAT)


def control_text(name=b"hostile", version=b"1.0", arch=b"amd64", extra=b""):
    return (b"Package: " + name + b"\nVersion: " + version + b"\nArchitecture: " + arch +
            b"\nMaintainer: Test <test@example.com>\n" + extra +
            b"Description: a package that tries to hurt\n")


def deb(control=None, control_tar=None, control_name="control.tar.gz", members=None):
    """A .deb of `control` (or of a whole control.tar), or of the ar `members` given."""
    if members is None:
        if control_tar is None:
            control_tar = gzip.compress(tar([("./control", control)]), mtime=0)
        members = [("debian-binary", b"2.0\n"), (control_name, control_tar),
                   ("data.tar.gz", gzip.compress(tar([]), mtime=0))]
    return ar(members)


def bomb(head, pattern, total):
    """xz over gzip of `head` and then `pattern` repeated to `total` bytes in all."""
    chunk = pattern * ((1 << 20) // len(pattern))
    member = gzip.compress(chunk, compresslevel=9, mtime=0)
    first = gzip.compress(head + chunk[len(head):], compresslevel=9, mtime=0)
    return lzma.compress(first + member * (total // len(chunk) - 1))


def deb_cases():
    bad_control = {
        "deb-name-dotdot": control_text(name=b".."),
        "deb-name-traversal": control_text(name=b"../../../etc/cron.d/x"),
        "deb-name-absolute": control_text(name=b"/etc/passwd"),
        "deb-name-slash": control_text(name=b"a/b"),
        "deb-name-nul": control_text(name=b"ab\0cd"),
        "deb-name-escape": control_text(name=b"ab\x1b[2Jcd"),
        "deb-version-traversal": control_text(version=b"1.0/../../../x"),
        "deb-version-absolute": control_text(version=b"/1.0"),
        "deb-version-dotdot": control_text(version=b"1..0"),
        "deb-version-bell": control_text(version=b"1.0\x07"),
        "deb-arch-traversal": control_text(arch=b"amd64/../../x"),
        "deb-arch-root": control_text(arch=b"/"),
        "deb-arch-dotdot": control_text(arch=b".."),
        "deb-arch-delete": control_text(arch=b"amd\x7f64"),
        "deb-duplicate-package": control_text(extra=b"Package: other\n"),
        "deb-duplicate-version-case": control_text(extra=b"version: 2.0\n"),
        "deb-duplicate-architecture": control_text(extra=b"Architecture: all\n"),
    }
    problems = {
        "deb-name-dotdot": "bad package name '..'",
        "deb-name-traversal": "bad package name '../../../etc/cron.d/x'",
        "deb-name-absolute": "bad package name '/etc/passwd'",
        "deb-name-slash": "bad package name 'a/b'",
        "deb-name-nul": "a NUL byte",
        "deb-name-escape": "bad package name 'ab\\x1b[2Jcd'",
        "deb-version-traversal": "bad version '1.0/../../../x'",
        "deb-version-absolute": "bad version '/1.0'",
        "deb-version-dotdot": "bad version '1..0'",
        "deb-version-bell": "bad version '1.0\\x07'",
        "deb-arch-traversal": "bad architecture 'amd64/../../x'",
        "deb-arch-root": "bad architecture '/'",
        "deb-arch-dotdot": "bad architecture '..'",
        "deb-arch-delete": "bad architecture 'amd\\x7f64'",
        "deb-duplicate-package": "duplicate field 'Package'",
        "deb-duplicate-version-case": "duplicate field 'version'",
        "deb-duplicate-architecture": "duplicate field 'Architecture'",
    }
    files = {name + ".deb": deb(text) for name, text in bad_control.items()}
    good = control_text()
    files["deb-control-bomb.deb"] = deb(
        control_tar=bomb(tar_header("./control", 4 * GIB), b"\0", 4 * GIB),
        control_name="control.tar.xz")
    problems["deb-control-bomb"] = "control: larger than the limit of 524288 bytes"
    files["deb-control-member-bomb.deb"] = deb(
        control_tar=bomb(tar_header("./postinst", 4 * GIB), b"\0", 4 * GIB),
        control_name="control.tar.xz")
    problems["deb-control-member-bomb"] = "larger than the limit of 67108864 bytes"
    # Four GiB of empty files' headers: nothing but headers to decompress and walk.
    files["deb-control-header-bomb.deb"] = deb(
        control_tar=bomb(b"", tar_header("./x", 0), 4 * GIB), control_name="control.tar.xz")
    problems["deb-control-header-bomb"] = "larger than the limit of 67108864 bytes"
    control_tar = gzip.compress(tar([("./control", good)]), mtime=0)
    files["deb-ar-member-past-end.deb"] = ar([
        ("debian-binary", b"2.0\n"), ("control.tar.gz", control_tar, 9999999999),
        ("data.tar.gz", gzip.compress(tar([]), mtime=0))])
    problems["deb-ar-member-past-end"] = "control.tar.gz"
    escapes = {
        "deb-control-traversal": [("./control", good), ("../../x", b"#!/bin/sh\n")],
        "deb-control-symlink-out": [("./control", good),
                                    ("./postinst", tarfile.SYMTYPE, "../../../bin/sh")],
        "deb-control-symlink-absolute": [("./control", good),
                                         ("./postinst", tarfile.SYMTYPE, "/etc/shadow")],
        "deb-control-hardlink-out": [("./control", good),
                                     ("./postinst", tarfile.LNKTYPE, "../../x")],
        "deb-control-is-symlink": [("./control", tarfile.SYMTYPE, "/etc/passwd")],
    }
    for name, entries in escapes.items():
        files[name + ".deb"] = deb(control_tar=gzip.compress(tar(entries), mtime=0))
    problems["deb-control-traversal"] = "'../../x' is outside the package"
    problems["deb-control-symlink-out"] = "postinst links to '../../../bin/sh', outside the package"
    problems["deb-control-symlink-absolute"] = "postinst links to '/etc/shadow', outside the package"
    problems["deb-control-hardlink-out"] = "postinst links to '../../x', outside the package"
    problems["deb-control-is-symlink"] = "control links to '/etc/passwd', outside the package"
    return files, {name + ".deb": problem for name, problem in problems.items()}


# --- rpm ---------------------------------------------------------------------------------------

STRING, INT32, STRING_ARRAY, I18NSTRING = 6, 4, 8, 9
NAME, VERSION, RELEASE, SUMMARY, DESCRIPTION, ARCH = 1000, 1001, 1002, 1004, 1005, 1022
LICENSE, SOURCERPM, DIRINDEXES, BASENAMES, DIRNAMES = 1014, 1044, 1116, 1117, 1118


def rpm_header(tags, lie=None):
    """An rpm header of (tag, type, values); `lie` maps a tag to (offset, count) to write
    in its index entry instead of the true ones (an offset of None keeps the true one), or
    "count" and "size" to the header's own."""
    lie = lie or {}
    index, store = bytearray(), bytearray()
    for tag, kind, values in tags:
        if kind == INT32:
            store += b"\0" * (-len(store) % 4)
        offset = len(store)
        if kind == INT32:
            store += b"".join(struct.pack(">I", v) for v in values)
        else:
            store += b"".join(v + b"\0" for v in values)
        lied_offset, count = lie.get(tag, (offset, len(values)))
        offset = offset if lied_offset is None else lied_offset
        index += struct.pack(">IIII", tag, kind, offset, count)
    count, size = lie.get("count", len(tags)), lie.get("size", len(store))
    return struct.pack(">4s4xII", b"\x8e\xad\xe8\x01", count, size) + index + store


def rpm(tags, lie=None, signature=None):
    lead = b"\xed\xab\xee\xdb\x03\x00" + b"\0" * 90
    sig = signature if signature is not None else rpm_header([])
    return lead + sig + b"\0" * (-len(sig) % 8) + rpm_header(tags, lie)


def rpm_tags(name=b"hostile", version=b"1.0", release=b"1", arch=b"x86_64",
             summary=b"a package that tries to hurt", description=b"It tries to hurt."):
    return [(NAME, STRING, [name]), (VERSION, STRING, [version]), (RELEASE, STRING, [release]),
            (SUMMARY, I18NSTRING, [summary]), (DESCRIPTION, I18NSTRING, [description]),
            (LICENSE, STRING, [b"MIT"]), (ARCH, STRING, [arch]),
            (SOURCERPM, STRING, [name + b"-" + version + b"-" + release + b".src.rpm"])]


def rpm_cases():
    bad_tags = {
        "rpm-name-dotdot": (rpm_tags(name=b".."), "bad name '..'"),
        "rpm-name-traversal": (rpm_tags(name=b"../../../etc/x"), "bad name '../../../etc/x'"),
        "rpm-name-absolute": (rpm_tags(name=b"/etc/passwd"), "bad name '/etc/passwd'"),
        "rpm-name-slash": (rpm_tags(name=b"a/b"), "bad name 'a/b'"),
        "rpm-name-nul": (rpm_tags(name=b"\0../../x"), "rpm header has no name"),
        "rpm-name-escape": (rpm_tags(name=b"ab\x1b[2Jcd"), "bad name 'ab\\x1b[2Jcd'"),
        "rpm-name-latin1": (rpm_tags(name=b"caf\xe9"), "bad name 'caf\u00e9'"),
        "rpm-version-traversal": (rpm_tags(version=b"1/../../x"), "bad version '1/../../x'"),
        "rpm-release-absolute": (rpm_tags(release=b"/1"), "bad release '/1'"),
        "rpm-arch-dotdot": (rpm_tags(arch=b".."), "bad arch '..'"),
        "rpm-arch-root": (rpm_tags(arch=b"/"), "bad arch '/'"),
        "rpm-arch-traversal": (rpm_tags(arch=b"x86_64/../../x"), "bad arch 'x86_64/../../x'"),
        "rpm-arch-tab": (rpm_tags(arch=b"x86\t64"), "bad arch 'x86\\t64'"),
    }
    files = {name + ".rpm": rpm(tags) for name, (tags, _) in bad_tags.items()}
    problems = {name + ".rpm": problem for name, (_, problem) in bad_tags.items()}

    # Headers that claim gigabytes: read as claimed, each would allocate them.
    files["rpm-header-claims-gigabytes.rpm"] = rpm(
        rpm_tags(), lie={"count": 0x0FFFFFFF, "size": 0xFFFFFFFF})
    problems["rpm-header-claims-gigabytes.rpm"] = "past the limit of 256 MiB"
    files["rpm-signature-claims-gigabytes.rpm"] = rpm(
        rpm_tags(), signature=struct.pack(">4s4xII", b"\x8e\xad\xe8\x01", 16, 0xFFFFFF00))
    problems["rpm-signature-claims-gigabytes.rpm"] = "past the limit of 256 MiB"
    # Index entries that point outside the header's store.
    files["rpm-index-outside.rpm"] = rpm(rpm_tags(), lie={NAME: (0xFFFFFF00, 1)})
    problems["rpm-index-outside.rpm"] = "entry for tag 1000 points outside the header"
    files["rpm-index-count-outside.rpm"] = rpm(rpm_tags(), lie={SUMMARY: (0, 100_000)})
    problems["rpm-index-count-outside.rpm"] = "entry for tag 1004 runs past the header"
    # Ten million files claimed in a header that holds one.
    files_tags = rpm_tags() + [(DIRINDEXES, INT32, [0]), (BASENAMES, STRING_ARRAY, [b"x"]),
                               (DIRNAMES, STRING_ARRAY, [b"/usr/share/"])]
    files["rpm-ten-million-files.rpm"] = rpm(
        files_tags, lie={DIRINDEXES: (None, 10_000_000), BASENAMES: (None, 10_000_000)})
    problems["rpm-ten-million-files.rpm"] = "tag 1116 holds 10000000 values, past the limit"
    # Four billion strings claimed, each one byte: past what the store holds and the limit.
    files["rpm-four-billion-strings.rpm"] = rpm(rpm_tags(), lie={SUMMARY: (None, 0xFFFFFFFF)})
    problems["rpm-four-billion-strings.rpm"] = "holds 4294967295 values, past the limit"
    return files, problems


# --- good packages that look odd ---------------------------------------------------------------

# Not UTF-8: a lone continuation byte, a truncated sequence, an overlong '/', a surrogate,
# and bytes that never appear in UTF-8.
NOT_UTF8 = b"caf\xe9 \x80 \xc3( \xc0\xaf \xed\xa0\x80 \xfe\xff"


def accepted_cases():
    description = (b"Description: not UTF-8: " + NOT_UTF8 + b"\n " + NOT_UTF8 + b"\n .\n" +
                   b"  kept byte for byte\n")
    text = (b"Package: oddtext\nVersion: 1.0\nArchitecture: amd64\n"
            b"Maintainer: Test <test@example.com>\n" + description)
    rpm_bytes = rpm(rpm_tags(name=b"oddtext", summary=b"not UTF-8: " + NOT_UTF8,
                             description=b"not UTF-8: " + NOT_UTF8 + b" <&> \x01\x0c end"))
    return {"oddtext.deb": deb(text), "oddtext.rpm": rpm_bytes}, text


def main():
    out = sys.argv[1]
    refused = {}
    for files, problems in (deb_cases(), rpm_cases()):
        for name, data in files.items():
            with open(f"{out}/{name}", "wb") as f:
                f.write(data)
        refused.update(problems)
    accepted, control = accepted_cases()
    with open(f"{out}/oddtext.control", "wb") as f:
        f.write(control)
    for name, data in accepted.items():
        with open(f"{out}/{name}", "wb") as f:
            f.write(data)
    with open(f"{out}/manifest.json", "w") as f:
        json.dump({"refused": refused, "accepted": sorted(accepted)}, f, indent=1)


if __name__ == "__main__":
    main()
