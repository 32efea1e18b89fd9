#!/usr/bin/env bash
# blobtune-workbench --generate end to end: the same seed gives the same JSON, every result says
# whether it meets the bar, the families are summed up, and a written workload replays to the
# same result.
#
# Usage: generate_cli_test.sh WORKBENCH
set -euo pipefail

workbench=$1
work=$(mktemp -d /tmp/blobtune-generate-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

run() { "$workbench" --generate 6 --seed 3 --algorithm aimd oracle --json "$@" 2> /dev/null; }
run --write "$work/gen" > "$work/a.json"
run > "$work/b.json"
cmp -s "$work/a.json" "$work/b.json" || fail "the same seed gave different reports"
"$workbench" --generate 6 --seed 4 --algorithm aimd --json 2> /dev/null > "$work/c.json"
cmp -s "$work/a.json" "$work/c.json" && fail "another seed gave the same report"

python3 - "$work/a.json" <<'PY' || fail "report content"
import json, sys
r = json.load(open(sys.argv[1]))
names = [w["name"] for w in r["workloads"]]
assert len(names) == 6 and len(set(names)) == 6, names
fams = [f["name"] for f in r["families"]]
assert fams == list(dict.fromkeys(w["family"] for w in r["workloads"])), fams
for w in r["workloads"]:
    assert w["name"].startswith(w["family"] + "-"), w["name"]
    for x in w["results"]:
        assert x["meets_bar"] == (not x["misses"]), x
for f in r["families"]:
    members = [w for w in r["workloads"] if w["family"] == f["name"]]
    assert f["workloads"] == len(members)
    for t in f["results"]:
        met = sum(x["meets_bar"] for w in members for x in w["results"] if x["algorithm"] == t["algorithm"])
        assert t["meeting_bar"] == met, (f["name"], t, met)
PY

# A written workload replays to the very result it had in the population.
first=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["workloads"][0]["name"])' "$work/a.json")
[ -f "$work/gen/$first.json" ] || fail "--write left no $first.json"
"$workbench" --workload "$work/gen/$first.json" --algorithm aimd oracle --json 2> /dev/null > "$work/replay.json"
python3 - "$work/a.json" "$work/replay.json" <<'PY' || fail "the replay differs"
import json, sys
a = json.load(open(sys.argv[1]))["workloads"][0]
b = json.load(open(sys.argv[2]))["workloads"][0]
assert a["results"] == b["results"] and a["phases"] == b["phases"]
PY

# Bad combinations are usage errors.
for args in "--generate 0" "--generate 5 --suite $work" "--family delay" "--write $work/x" \
            "--generate 5 --family nonsense"; do
  if "$workbench" $args > /dev/null 2>&1; then fail "accepted: $args"; fi
  status=0; "$workbench" $args > /dev/null 2>&1 || status=$?
  [ "$status" -eq 2 ] || fail "$args exited $status, not 2"
done
echo "ok: generated populations are deterministic, scored and replayable"
