#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kstat --rootfs in a container made of real namespaces. "The machine" is a mount and PID
# namespace of its own, whose init (PID 1) is a shell that mounts a tmpfs of 1 MiB at DIR/data.
# "The container" is a mount namespace inside it that unmounts DIR/data and sees the machine's /
# at DIR/host. There, kstat serves its own mounts without --rootfs, and the machine's with
# --rootfs DIR/host: DIR/data by its name, with the tmpfs's size. Nothing outlives the
# namespaces.
# Usage: check_rootfs.sh BUILD_DIR
set -euo pipefail
kstat=$(cd "$1" && pwd)/cmd/kstat/kstat
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/data" "$dir/host"

unshare --mount --pid --fork --mount-proc --propagation private \
  bash -s "$kstat" "$dir" <<'MACHINE'
set -euo pipefail
kstat=$1 dir=$2
mount -t tmpfs -o size=1m kstat-test "$dir/data"
unshare --mount --propagation private bash -s "$kstat" "$dir" <<'CONTAINER'
set -euo pipefail
kstat=$1 dir=$2
mount --rbind / "$dir/host"
umount "$dir/data"
fail() { echo "check_rootfs: $*" >&2; exit 1; }
data="mountpoint=\"$dir/data\",device=\"kstat-test\",fstype=\"tmpfs\""
own=$("$kstat" read --prometheus fs.mount)
grep -qF "$data" <<<"$own" && fail "without --rootfs, the machine's $dir/data: $own"
grep -qF "mountpoint=\"$dir/host\"" <<<"$own" || fail "without --rootfs, not its own $dir/host"
machine=$("$kstat" --rootfs "$dir/host" read --prometheus fs.mount)
grep -qxF "kstat_filesystem_size_bytes{$data} 1048576" <<<"$machine" ||
  fail "with --rootfs, not the machine's $dir/data of 1 MiB: $machine"
grep -qF "mountpoint=\"$dir/host\"" <<<"$machine" && fail "with --rootfs, its own $dir/host"
echo "kstat --rootfs: the machine's $dir/data (1 MiB), not the container's mounts"
CONTAINER
MACHINE
