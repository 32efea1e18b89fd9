#!/usr/bin/env bash
# scripts/rados-cluster: start prints the cluster's ceph.conf as its last line and the pool
# `blobtune` takes an object and gives it back intact; a second start in the same directory is
# refused, and so is restarting its in-memory OSD (start-osd needs start --persistent); stop leaves
# no daemon of the cluster running, and stopping twice is harmless.
# Skipped (exit 77) where the Ceph packages are not installed.
#
# Usage: rados_cluster_test.sh SCRIPTS/rados-cluster
set -uo pipefail

cluster=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

for tool in ceph-mon ceph-osd rados; do
  command -v "$tool" > /dev/null ||
    { echo "SKIP: '$tool' is not installed (scripts/bootstrap installs it)"; exit 77; }
done

"$cluster" > /dev/null 2>&1
[ $? -eq 2 ] || fail "no arguments should exit 2"
"$cluster" restart /tmp/nowhere > /dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown command should exit 2"
"$cluster" stop /tmp/nowhere --persistent > /dev/null 2>&1
[ $? -eq 2 ] || fail "--persistent with a command other than start should exit 2"

dir=$(mktemp -d)
trap '"$cluster" stop "$dir" > /dev/null 2>&1; rm -rf "$dir"' EXIT

out=$("$cluster" start "$dir" 2> "$dir.err") || { cat "$dir.err" >&2; fail "start exited $?"; }
rm -f "$dir.err"
conf=$(tail -n 1 <<< "$out")
[ "$conf" = "$dir/ceph.conf" ] || fail "start printed '$conf' last, expected $dir/ceph.conf"
"$cluster" status "$dir" || fail "status of a started cluster failed"

head -c 65536 /dev/urandom > "$dir/blob"
timeout 30 rados -c "$conf" -p blobtune put blob-1 "$dir/blob" || fail "rados put failed"
timeout 30 rados -c "$conf" -p blobtune get blob-1 "$dir/blob.back" || fail "rados get failed"
cmp -s "$dir/blob" "$dir/blob.back" || fail "the object came back different"

err=$("$cluster" start "$dir" 2>&1 > /dev/null) && fail "a second start in $dir succeeded"
grep -q "already holds a cluster" <<< "$err" || fail "second start: unexpected message '$err'"
err=$("$cluster" start-osd "$dir" 2>&1 > /dev/null) && fail "start-osd of a memstore OSD succeeded"
grep -q -- "--persistent" <<< "$err" || fail "start-osd: unexpected message '$err'"

pids=$(cat "$dir"/run/*.pid)
[ -n "$pids" ] || fail "no pid files under $dir/run"
"$cluster" stop "$dir" || fail "stop exited $?"
for pid in $pids; do
  state=$(ps -o stat= -p "$pid" 2>/dev/null || true)
  [ -z "$state" ] || [[ "$state" == Z* ]] || fail "daemon $pid still runs after stop ($state)"
done
"$cluster" status "$dir" 2> /dev/null && fail "status succeeded after stop"
"$cluster" stop "$dir" || fail "a second stop exited $?"
echo "PASS"
