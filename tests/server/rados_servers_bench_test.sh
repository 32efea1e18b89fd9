#!/usr/bin/env bash
# scripts/rados-servers-bench end to end, briefly: one and two servers on one pool, the default
# algorithm against two fixed limits, one repetition; the JSON has every figure per number of
# servers, the shares of each point add up to 1 and Jain's index lies in [1/N, 1]. Bad flags
# exit 2. Exits 77 (skipped) where Ceph's daemons are not installed.
#
# Usage: rados_servers_bench_test.sh BENCH BIN_DIR
set -euo pipefail

bench=$1
bin_dir=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

status=0
"$bench" --bin-dir "$bin_dir" --servers 0 > /dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "--servers 0 exited $status, not 2"

if ! command -v ceph-mon > /dev/null || ! command -v ceph-osd > /dev/null; then
  echo "skipped: ceph-mon or ceph-osd is not installed (scripts/bootstrap installs them)"
  exit 77
fi

report=$(mktemp /tmp/blobtune-servers-bench-XXXXXX.json)
trap 'rm -f "$report"' EXIT
"$bench" --bin-dir "$bin_dir" --servers 1,2 --limits 8,32 --repetitions 1 --seconds 0.5 \
         --warmup 0.5 --connections 16 --size 4K --json > "$report"

python3 - "$report" <<'PY' || fail "report content"
import json, sys
r = json.load(open(sys.argv[1]))
assert [e["servers"] for e in r["results_by_servers"]] == [1, 2], r
for e in r["results_by_servers"]:
    n = e["servers"]
    assert [s["limit"] for s in e["sweep"]] == [8, 32], e["sweep"]
    assert e["best_fixed"]["limit"] in (8, 32)
    rows = e["sweep"] + e["results"]
    assert [x["algorithm"] for x in e["results"]] == ["default"], e["results"]
    for x in rows:
        assert x["total"] > 0, x
        assert len(x["shares"]) == n and abs(sum(x["shares"]) - 1) < 1e-6, x
        assert 1 / n - 1e-9 <= x["jain"] <= 1 + 1e-9, x
        assert x["p99_ms"] > 0, x
    for x in e["results"]:
        assert x["throughput_ratio"] > 0 and x["p99_ratio"] > 0, x
        assert len(x["mean_limits"]) == n and all(l >= 1 for l in x["mean_limits"]), x
PY
echo "rados_servers_bench_test: PASS"
