#!/usr/bin/env bash
# scripts/tuning-table against real workbench output: two workloads, two algorithms, two seeds.
# The seeds table must count, for every cell, the runs whose one-run cell says "ok"; the
# families table must repeat the workbench's per-family counts; the plants table the plant
# bench's verdicts; mismatched runs and bad files must fail with a message.
#
# Usage: tuning_table_test.sh WORKBENCH TUNING_TABLE WORKLOADS_DIR
set -euo pipefail

workbench=$1 table=$2 workloads=$3
work=$(mktemp -d /tmp/blobtune-tuning-table-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

files=("$workloads/delivery_model.json" "$workloads/open_overload.json")
for seed in own 7; do
  "$workbench" --workload "${files[@]}" --algorithm marginal fixed --json \
    $([ "$seed" = own ] || echo --seed "$seed") > "$work/$seed.json" 2> /dev/null
  "$table" < "$work/$seed.json" > "$work/$seed.md"
done
"$table" --seeds "$work/own.json" "$work/7.json" > "$work/seeds.md"

# One run: a header of two lines, a row per workload, the mean regret and the bar met.
[ "$(wc -l < "$work/own.md")" -eq 6 ] || fail "one-run table has $(wc -l < "$work/own.md") lines"
grep -q '^| workload | L\* | marginal | fixed |$' "$work/own.md" || fail "one-run header"
awk -F' [|] ' 'NR >= 3 && NR <= 4 {
  for (i = 3; i <= 4; i++) if ($i !~ /^[0-9]+\.[0-9][0-9][0-9] (ok|\(.*\))( [|])?$/) exit 1
}' "$work/own.md" || fail "a one-run cell is not 'regret ok' or 'regret (misses)'"

# Seeds: each cell counts the runs whose one-run cell is "ok".
for row in 3 4; do
  for col in 3 4; do
    expected=0
    for seed in own 7; do
      cell=$(awk -F' [|] ' -v r="$row" -v c="$col" 'NR == r { sub(/ [|]$/, "", $c); print $c }' \
        "$work/$seed.md")
      case "$cell" in *" ok") expected=$((expected + 1)) ;; esac
    done
    got=$(awk -F' [|] ' -v r="$row" -v c="$col" 'NR == r { sub(/ [|]$/, "", $c); print $c }' \
      "$work/seeds.md")
    [ "$got" = "$expected / 2" ] || fail "row $row column $col: '$got', expected '$expected / 2'"
  done
done
grep -q "^| \*\*bar met\*\* | | \*\*" "$work/seeds.md" || fail "seeds table has no 'bar met' row"

# The cells show the workbench's own verdict ("misses") with the values that missed; a report
# without "misses" (an older workbench's) is refused.
cat > "$work/steps.json" <<'JSON'
{"default_algorithm": "marginal", "workloads": [
 {"name": "late", "phases": [{"oracle": {"limit": 4}}, {"oracle": {"limit": 8}}, {"oracle": {"limit": 4}}],
  "results": [{"algorithm": "marginal", "throughput_ratio": 1.0, "p99_ratio": 1.0, "recovery_rtts": 40.0,
               "service_in_band": 0.95, "fairness": null, "regret": 0.01, "misses": ["recovery_rtts"]}]},
 {"name": "never", "phases": [{"oracle": {"limit": 4}}, {"oracle": {"limit": 8}}, {"oracle": {"limit": 4}}],
  "results": [{"algorithm": "marginal", "throughput_ratio": 0.9, "p99_ratio": 1.0, "recovery_rtts": null,
               "service_in_band": 0.0, "fairness": null, "regret": 0.1,
               "misses": ["throughput_ratio", "recovery_rtts", "service_in_band"]}]},
 {"name": "met", "phases": [{"oracle": {"limit": 4}}, {"oracle": {"limit": 8}}],
  "results": [{"algorithm": "marginal", "throughput_ratio": 1.0, "p99_ratio": 1.0, "recovery_rtts": 12.0,
               "service_in_band": 0.9559, "fairness": null, "regret": 0.01, "misses": []}]}]}
JSON
"$table" < "$work/steps.json" > "$work/steps.md"
grep -q '^| late | 4/8/4 | 0.010 (rec 40) |$' "$work/steps.md" || fail "late recovery: $(cat "$work/steps.md")"
grep -q '^| never | 4/8/4 | 0.100 (X 0.90, rec -, band 0%) |$' "$work/steps.md" ||
  fail "never recovered: $(cat "$work/steps.md")"
grep -q '^| met | 4/8 | 0.010 ok |$' "$work/steps.md" || fail "bar met: $(cat "$work/steps.md")"
sed 's/"misses": \[[^]]*\]/"old": 0/' "$work/steps.json" > "$work/old.json"
if "$table" < "$work/old.json" 2> "$work/err"; then fail "a report without misses accepted"; fi
grep -q "older workbench" "$work/err" || fail "older-report message: $(cat "$work/err")"

# Families: for each family and algorithm, the count meeting the bar on each run, as the
# workbench's own per-family summary says, and the mean regret over all of them.
for seed in 3 4; do
  "$workbench" --generate 2 --seed "$seed" --algorithm marginal fixed --json > "$work/gen$seed.json" \
    2> /dev/null
done
"$table" --families "$work/gen3.json" "$work/gen4.json" > "$work/families.md"
grep -q '^| family | workloads | marginal | fixed |$' "$work/families.md" || fail "families header"
expected=$(python3 - "$work/gen3.json" "$work/gen4.json" <<'PY'
import json, sys
runs = [json.load(open(p)) for p in sys.argv[1:]]
f = [r["families"][0] for r in runs]
met = "/".join(str(x["results"][0]["meeting_bar"]) for x in f)
regret = sum(x["results"][0]["mean_regret"] * x["workloads"] for x in f) / sum(x["workloads"] for x in f)
print(f"| {f[0]['name']} | 1/1 | {met}, {regret:.3f} |")
PY
)
grep -qF "$expected" "$work/families.md" || fail "families row: want '$expected' in $(cat "$work/families.md")"

# Plants: the ratios and the plant bench's own verdict.
cat > "$work/plants.json" <<'JSON'
{"default_algorithm": "marginal", "plants": [
 {"name": "p", "oracle": {"limit": 8, "throughput": 100, "p99_ms": 1}, "sweep": [],
  "results": [{"algorithm": "marginal", "throughput_ratio": 0.5, "p99_ratio": 1.0, "regret": 0.5,
               "mean_limit": 2, "refused_fraction": 0, "meets_bar": false,
               "misses": ["throughput_ratio"]},
              {"algorithm": "aimd", "throughput_ratio": 1.0, "p99_ratio": 1.1, "regret": 0.0,
               "mean_limit": 9, "refused_fraction": 0, "meets_bar": true, "misses": []}]}]}
JSON
"$table" --plants "$work/plants.json" > "$work/plants.md"
grep -q '^| p | 8 | 0.50 / 1.00 (throughput_ratio) | 1.00 / 1.10 ok |$' "$work/plants.md" ||
  fail "plants row: $(cat "$work/plants.md")"
if "$table" --plants "$work/steps.json" 2> "$work/err"; then fail "a workbench report taken as plants"; fi
grep -q "not blobtune-plantbench" "$work/err" || fail "plants message: $(cat "$work/err")"

# Bad input: runs of other algorithms, a missing file, no file.
"$workbench" --workload "${files[0]}" --algorithm marginal --json > "$work/other.json" 2> /dev/null
if "$table" --seeds "$work/own.json" "$work/other.json" 2> "$work/err"; then
  fail "mismatched runs accepted"
fi
grep -q "other workloads or algorithms" "$work/err" || fail "mismatch message: $(cat "$work/err")"
if "$table" --seeds "$work/missing.json" 2> "$work/err"; then fail "a missing file accepted"; fi
grep -q "missing.json" "$work/err" || fail "missing-file message: $(cat "$work/err")"
if "$table" --seeds 2> /dev/null; then fail "--seeds without files accepted"; fi
echo "ok: the tables count what the workbench and the plant bench say meets the bar"
