#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `cmake --install` puts the tools, libopskit, its headers and the man pages in place, and a
# program built against the installed headers and libopskit.so reads a counter.
# Usage: check_install.sh BUILD_DIR CXX
set -euo pipefail
build=$1 cxx=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null

for f in bin/kstat bin/syscount bin/pkgcloud share/man/man1/kstat.1 share/man/man1/syscount.1 \
         share/man/man1/pkgcloud.1 include/opskit/error.hpp include/opskit/version.hpp \
         include/opskit/probes/counters.hpp; do
  [ -e "$prefix/$f" ] || { echo "not installed: $f" >&2; exit 1; }
done
lib=$(find "$prefix" -name 'libopskit.so.0' | head -n 1)
[ -n "$lib" ] || { echo "not installed: libopskit.so.0" >&2; exit 1; }

cat > "$prefix/use.cpp" <<'CPP'
#include <cstdio>
#include <opskit/probes/counters.hpp>
int main() {
  opskit::counters::Namespace ns;
  auto h = ns.resolve("kernel.ostype");
  if (!h) { std::fprintf(stderr, "%s\n", h.error().message().c_str()); return 1; }
  auto v = h->read();
  std::printf("%s\n", opskit::counters::format_value(*v).c_str());
}
CPP
"$cxx" -std=c++23 -I"$prefix/include" "$prefix/use.cpp" -L"$(dirname "$lib")" -lopskit \
  -Wl,-rpath,"$(dirname "$lib")" -o "$prefix/use"
[ "$("$prefix/use")" = Linux ] || { echo "a program linked to the installed libopskit failed" >&2; exit 1; }
"$prefix/bin/kstat" read -n kernel.ostype | grep -qx Linux
echo "installed and usable"
