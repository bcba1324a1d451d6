#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `cmake --install` puts the tools, libopskit, its headers, the man pages and kstat serve's
# systemd unit in place; the headers include neither gpgme's nor SQLite's, and a program built
# against them (with no include directory but theirs and the system's) and libopskit.so reads a
# counter and splits a dist name.
# Usage: check_install.sh BUILD_DIR CXX
set -euo pipefail
build=$1 cxx=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null

for f in bin/kstat bin/kstat-serve bin/syscount bin/pkgcloud share/man/man1/kstat.1 share/man/man1/syscount.1 \
         share/man/man1/pkgcloud.1 include/opskit/error.hpp include/opskit/version.hpp \
         include/opskit/probes/counters.hpp include/opskit/repo/repository.hpp \
         include/opskit/repo/store/state.hpp include/opskit/repo/store/keyring.hpp \
         lib/systemd/system/kstat-serve.service lib/sysusers.d/kstat.conf \
         share/doc/opskit/examples/kstat-serve.default; do
  [ -e "$prefix/$f" ] || { echo "not installed: $f" >&2; exit 1; }
done
# gpgme and SQLite are libopskit's own business: no installed header may pull them in.
if grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](gpgme|sqlite3)\.h[>"]' \
     "$prefix/include" >&2; then
  echo "an installed header includes gpgme.h or sqlite3.h" >&2; exit 1
fi
lib=$(find "$prefix" -name 'libopskit.so.0' | head -n 1)
[ -n "$lib" ] || { echo "not installed: libopskit.so.0" >&2; exit 1; }

cat > "$prefix/use.cpp" <<'CPP'
#include <cstdio>
#include <opskit/probes/counters.hpp>
#include <opskit/repo/repository.hpp>
int main() {
  opskit::counters::Namespace ns;
  auto h = ns.resolve("kernel.ostype");
  if (!h) { std::fprintf(stderr, "%s\n", h.error().message().c_str()); return 1; }
  auto v = h->read();
  auto dist = opskit::repo::split_dist("debian/bookworm");
  if (!dist) { std::fprintf(stderr, "%s\n", dist.error().message().c_str()); return 1; }
  std::printf("%s %s %s\n", opskit::counters::format_value(*v).c_str(), dist->first.c_str(),
              dist->second.c_str());
}
CPP
# -MD lists every header the program read, system ones too: gpgme.h and sqlite3.h sit in
# /usr/include here, where the compiler would find them without being told.
"$cxx" -std=c++23 -I"$prefix/include" -MD -MF "$prefix/use.d" "$prefix/use.cpp" \
  -L"$(dirname "$lib")" -lopskit -Wl,-rpath,"$(dirname "$lib")" -o "$prefix/use"
if grep -E '/(gpgme|sqlite3)\.h' "$prefix/use.d" >&2; then
  echo "a program using the installed headers read gpgme.h or sqlite3.h" >&2; exit 1
fi
[ "$("$prefix/use")" = "Linux debian bookworm" ] ||
  { echo "a program linked to the installed libopskit failed" >&2; exit 1; }
"$prefix/bin/kstat" read -n kernel.ostype | grep -qx Linux
"$prefix/bin/kstat" serve --help | grep -q -- --listen # kstat finds kstat-serve beside it
echo "installed and usable"
