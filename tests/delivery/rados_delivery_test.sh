#!/usr/bin/env bash
# blobtune-delivery --store rados against a throwaway Ceph cluster (scripts/rados-cluster): a
# small delivery on the blob path, fixed and tuned, every message verified in the pool, and the
# cluster stopped afterwards. Exits 77 (skipped) where ceph-mon or ceph-osd is not installed.
#
# Usage: rados_delivery_test.sh DELIVERY CLUSTER_SCRIPT
set -uo pipefail

delivery=$1
cluster=$2
if ! command -v ceph-mon > /dev/null || ! command -v ceph-osd > /dev/null; then
  echo "skipped: ceph-mon or ceph-osd is not installed (scripts/bootstrap installs them)"
  exit 77
fi
work=$(mktemp -d /tmp/blobtune-rados-delivery-XXXXXX)
cleanup() { "$cluster" stop "$work/cluster" > /dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

conf=$("$cluster" start "$work/cluster" | tail -1) || fail "rados-cluster start failed"
"$delivery" --store rados --rados-conf "$conf" --rados-pool blobtune --mode both \
  --messages 20 --size 16K --concurrency 2,auto --rounds 1 --json > "$work/report.json" \
  2> "$work/stderr.txt" || fail "exit $?: $(tail -5 "$work/stderr.txt")"
python3 - "$work/report.json" <<'PY' || exit 1
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
seen = [(r["mode"], r["concurrency"]) for r in runs]
if seen != [("legacy", None), ("blobs", "2"), ("blobs", "auto")]:
    sys.exit("FAIL: configurations %s" % seen)
if not all(r["verified"] and r["messages"] == 20 and r["median_s"] > 0 for r in runs):
    sys.exit("FAIL: runs %s" % runs)
PY
"$cluster" stop "$work/cluster" || fail "rados-cluster stop failed"
echo "rados_delivery_test: PASS"
