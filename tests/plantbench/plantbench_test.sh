#!/usr/bin/env bash
# blobtune-plantbench on two cheap plants with tiny settings: the JSON's structure and sanity
# (the sweep's limits, L* among them, positive ratios, the bar's verdict), one plot per plant, and
# the twin comparison (a rough twin for one plant, a missing one for the other).
#
# Usage: plantbench_test.sh PLANTBENCH
set -euo pipefail

plantbench=$1
work=$(mktemp -d /tmp/blobtune-plantbench-test-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A rough twin of lmdb_put_1k (the real one is written from measurements, elsewhere).
cat > "$work/plant_lmdb_put_1k.json" <<'JSON'
{"name": "plant_lmdb_put_1k", "duration_s": 10, "max_limit": 128,
 "stages": [{"name": "writer", "kind": "batch", "per_request_ms": 0.01,
             "service_ms": {"type": "lognormal", "mean": 1.5, "cv": 0.3}}],
 "clients": [{"name": "puts", "load": {"type": "closed", "concurrency": 128},
              "size_bytes": 1024}]}
JSON

# A point measures for a fixed time, so it needs room for a durable put's fsync to stall on a
# busy disk (a sanitizer build on a shared machine) and still complete some accesses.
"$plantbench" --plant lmdb_put_1k delivery_auth --algorithm aimd --repetitions 1 \
  --seconds 1 --warmup 0.2 --json --plot "$work/plots" --twin --workloads "$work" \
  > "$work/report.json" 2> "$work/progress.txt" || fail "exit $?: $(tail -5 "$work/progress.txt")"

grep -q '^rep 1/1 lmdb_put_1k fixed:limit=1 ' "$work/progress.txt" || fail "no progress line"
for plant in lmdb_put_1k delivery_auth; do
  [ -s "$work/plots/$plant.svg" ] || fail "no plot for $plant"
  grep -q '<svg' "$work/plots/$plant.svg" || fail "$plant.svg is not an SVG"
done

python3 - "$work/report.json" <<'PY'
import json, sys

report = json.load(open(sys.argv[1]))
def check(ok, what):
    if not ok:
        sys.exit("FAIL: " + what)

check(isinstance(report["default_algorithm"], str) and report["default_algorithm"], "default_algorithm")
check(report["repetitions"] == 1 and report["seconds"] == 1, "repetitions, seconds")
plants = {p["name"]: p for p in report["plants"]}
check(list(plants) == ["lmdb_put_1k", "delivery_auth"], "plants: %s" % list(plants))
expected = {"lmdb_put_1k": [1, 2, 4, 8, 16, 32, 64, 128], "delivery_auth": [1, 2, 4, 8, 16, 32]}
for name, plant in plants.items():
    limits = [s["limit"] for s in plant["sweep"]]
    check(limits == expected[name], "%s sweep limits %s" % (name, limits))
    # A one-second point on a busy disk may see no put complete (an fsync stalled the whole
    # window): it reports 0 and 0, and the sweep as a whole must still have measured something.
    values = [(s["throughput"], s["p99_ms"]) for s in plant["sweep"]]
    check(all(x >= 0 and p >= 0 and (x > 0) == (p > 0) for x, p in values),
          "%s sweep values %s" % (name, values))
    check(max(x for x, _ in values) > 0, "%s sweep measured nothing: %s" % (name, values))
    check(all(len(s["throughput_by_repetition"]) == 1 for s in plant["sweep"]), name + " raw figures")
    oracle = plant["oracle"]
    check(oracle["limit"] in limits, "%s oracle limit %s" % (name, oracle["limit"]))
    peak = max(s["throughput"] for s in plant["sweep"])
    at = next(s for s in plant["sweep"] if s["limit"] == oracle["limit"])
    check(oracle["throughput"] == at["throughput"] and at["throughput"] >= 0.97 * peak * 0.999,
          name + " X* is the sweep's point at L*, within 97% of the peak")
    check(all(s["throughput"] < 0.97 * peak * 1.001 for s in plant["sweep"] if s["limit"] < oracle["limit"]),
          name + " L* is the smallest limit within 97% of the peak")
    check([r["algorithm"] for r in plant["results"]] == ["aimd"], name + " results")
    for r in plant["results"]:
        check(r["throughput_ratio"] > 0 and r["p99_ratio"] > 0, name + " ratios positive")
        check(r["regret"] >= 0 and r["mean_limit"] >= 1, name + " regret, mean_limit")
        check(0 <= r["refused_fraction"] <= 1, name + " refused_fraction")
        hold = r["time_to_hold_s"]
        check(hold is None or 1.0 <= hold <= 1.2 + 0.5, name + " time_to_hold_s %s" % hold)
        check(isinstance(r["meets_bar"], bool) and r["meets_bar"] == (r["misses"] == []), name + " meets_bar")
        check(set(r["misses"]) <= {"throughput_ratio", "p99_ratio"}, name + " misses " + str(r["misses"]))
        expected_regret = max(0, 1 - r["throughput_ratio"])
        check(r["regret"] >= expected_regret - 0.002, name + " regret below 1 - throughput_ratio")

twin = plants["lmdb_put_1k"]["twin"]
check(twin["file"].endswith("plant_lmdb_put_1k.json") and "error" not in twin, "twin: %s" % twin)
check([p["limit"] for p in twin["sweep"]] == expected["lmdb_put_1k"], "twin limits")
for p in twin["sweep"]:
    check(p["real"] >= 0 and p["twin"] > 0, "twin values %s" % p)
    expected_difference = p["twin"] / p["real"] - 1 if p["real"] > 0 else 0
    check(abs(p["difference"] - expected_difference) < 0.01 * max(1, abs(p["difference"])), "difference %s" % p)
check(abs(twin["max_difference"] - max(abs(p["difference"]) for p in twin["sweep"])) <= 0.001 * max(1, twin["max_difference"]), "max_difference")
missing = plants["delivery_auth"]["twin"]
check("plant_delivery_auth.json" in missing["error"], "missing twin: %s" % missing)
print("ok: plantbench report, plots and twin comparison are sound")
PY
