#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kstat-serve.service, checked where no systemd runs as init: systemd-analyze verifies it and
# rates its exposure, systemd-sysusers makes its user in a scratch root, and its system call filter
# allows every call kstat serve makes (traced by strace over scrapes in both formats, gzipped,
# the landing page and TLS) and its stop on SIGTERM.
# Usage: check_unit.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../../.." && pwd)
kstat=$build/cmd/kstat/kstat
dir=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then
    # kstat serve first: strace, stopped, would leave its tracee running.
    pkill -TERM -P "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "check_unit: $*" >&2; exit 1; }

# The unit as installed, running this build's kstat.
unit=$dir/kstat-serve.service
sed "s|^ExecStart=[^ ]*|ExecStart=$kstat|" "$build/cmd/kstat/kstat-serve.service" >"$unit"
grep -q "^ExecStart=$kstat serve \$ARGS\$" "$unit" || fail "no ExecStart running kstat serve"
systemd-analyze verify --man=no "$unit" || fail "systemd-analyze verify: $unit"
# No more than 4.0 of 10 ("OK"; Debian's unit of node_exporter rates 9.2, "UNSAFE").
systemd-analyze security --offline=yes --threshold=40 "$unit" >"$dir/security" ||
  fail "exposure above 4.0: $(tail -n 1 "$dir/security")"
mkdir -p "$dir/root/etc"
systemd-sysusers --root="$dir/root" "$src/cmd/kstat/systemd/kstat.sysusers" >/dev/null 2>&1 ||
  fail "systemd-sysusers: kstat.sysusers"
grep -q '^kstat:x:[0-9]*:[0-9]*:kstat serve:/nonexistent:/usr/sbin/nologin$' "$dir/root/etc/passwd" ||
  fail "systemd-sysusers made no user kstat: $(cat "$dir/root/etc/passwd")"

# The calls the filter allows, each group expanded: as systemd reads its lines, the first an
# allow list, each later one adding calls to it or, after '~', taking them away.
expand() {
  case $1 in @*) ;; *) echo "$1"; return ;; esac
  systemd-analyze syscall-filter "$1" | sed '1d; s/^ *//; /^#/d; /^$/d' | while read -r call; do
    expand "$call"
  done
}
filter=$(sed -n 's/^SystemCallFilter=//p' "$unit")
case $filter in "~"* | "") fail "expected SystemCallFilter= to start with an allow list" ;; esac
grep -q '^~' <<<"$filter" || fail "expected a denied SystemCallFilter=~"
: >"$dir/permitted"
while read -r line; do
  for set in ${line#\~}; do expand "$set"; done | sort -u >"$dir/listed"
  case $line in
    "~"*) comm -23 "$dir/permitted" "$dir/listed" >"$dir/next" ;;
    *) sort -u "$dir/permitted" "$dir/listed" >"$dir/next" ;;
  esac
  mv "$dir/next" "$dir/permitted"
done <<<"$filter"

# kstat serve over TLS and in plain text, traced from exec to exit.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n' >"$dir/web.yml"
trace() { # SCHEME [kstat serve's options]
  local scheme=$1 url=""
  shift
  strace -f -qq -o "$dir/calls.$scheme" "$kstat" serve --listen 127.0.0.1:0 "$@" >"$dir/out" 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    url=$(sed -n 's/^kstat: serving //p' "$dir/out")
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || fail "kstat serve did not start: $(cat "$dir/out")"
  curl -sfk -o /dev/null "$url"
  curl -sfk -o /dev/null --compressed -H 'Accept: application/openmetrics-text;version=1.0.0' "$url"
  curl -sfk -o /dev/null "${url%metrics}"
  # strace's child is kstat serve, the same process once kstat has exec'd kstat-serve.
  kill -TERM "$(pgrep -P "$pid")"
  wait "$pid" || fail "kstat serve ($scheme) did not stop cleanly on SIGTERM: $(cat "$dir/out")"
  pid=""
}
trace http
trace https --web-config "$dir/web.yml"
sed -E 's/^[0-9]+ +//; /^(\+\+\+|---|<\.\.\.)/d; s/\(.*//' "$dir"/calls.* | sort -u >"$dir/made"
[ "$(wc -l <"$dir/made")" -gt 20 ] || fail "too few calls traced: $(cat "$dir/made")"
if comm -23 "$dir/made" "$dir/permitted" | grep . >"$dir/refused"; then
  fail "calls kstat serve makes that the unit's filter refuses: $(tr '\n' ' ' <"$dir/refused")"
fi
exposure=$(tail -n 1 "$dir/security" | grep -oE '[0-9]+\.[0-9]+ [A-Z]+')
echo "kstat-serve.service: exposure $exposure; the $(wc -l <"$dir/made") calls kstat serve made are allowed"
