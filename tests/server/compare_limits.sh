#!/usr/bin/env bash
# Compares blobtune-server's adaptive limiters with fixed limits under the same closed-loop load:
# for each algorithm, RUNS fresh servers, each loaded by blobtune-load; prints the median 2xx
# throughput and p99 latency, and the ratio of each to the best fixed limit of the same run.
#
# Usage: tests/server/compare_limits.sh --bin-dir build/bin [--runs 3] [--seconds 5]
#          [--connections 64] [--size 16384] [--put-fraction 0.5]
#          [--algorithms "marginal fixed:limit=1 fixed:limit=4 fixed:limit=16 fixed:limit=64"]
set -euo pipefail

bin_dir=""
runs=3
seconds=5
connections=64
size=16384
put_fraction=0.5
algorithms="marginal gradient2 fixed:limit=1 fixed:limit=4 fixed:limit=16 fixed:limit=64"
while [ $# -gt 0 ]; do
  case "$1" in
    --bin-dir) bin_dir="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --put-fraction) put_fraction="$2"; shift 2 ;;
    --algorithms) algorithms="$2"; shift 2 ;;
    -h|--help) sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "compare_limits.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$bin_dir" ] || { echo "compare_limits.sh: --bin-dir is required" >&2; exit 2; }

source "$(dirname "${BASH_SOURCE[0]}")/server_process.sh"
make_work_dir compare

# One run: a fresh server with `algorithm`, closed-loop load; prints "ok_per_s ok_p99_ms".
run_once() {
  local algorithm=$1 n=$2
  rm -rf "$work/data"
  start_server "$bin_dir" --data-dir "$work/data" --algorithm "$algorithm"
  "$bin_dir/blobtune-load" --port "$port" --mode closed --connections "$connections" \
    --seconds "$seconds" --warmup 2 --size "$size" --put-fraction "$put_fraction" \
    --id-prefix "run$n" --json > "$work/load.txt"
  stop_server
  local json
  json=$(tail -1 "$work/load.txt")
  echo "$(echo "$json" | field ok_per_s) $(echo "$json" | field ok_p99_ms)"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A tput p99 ratio
for r in $(seq "$runs"); do
  i=0
  declare -A this_run=()
  best=0
  for a in $algorithms; do
    i=$((i + 1))
    read -r t l < <(run_once "$a" "${r}a${i}")  # Ids may not hold the spec's ':' and '='.
    tput[$a]+="$t "; p99[$a]+="$l "; this_run[$a]=$t
    case "$a" in fixed:*) best=$(awk -v x="$t" -v y="$best" 'BEGIN { print (x > y) ? x : y }') ;; esac
    echo "run $r  $a: $t 2xx/s, p99 $l ms"
  done
  # Each algorithm against the best fixed limit of this same run (the machine drifts between runs).
  for a in $algorithms; do
    ratio[$a]+="$(awk -v x="${this_run[$a]}" -v y="$best" 'BEGIN { print (y > 0) ? x / y : 0 }') "
  done
done

best_fixed=""; best_tput=0
for a in $algorithms; do
  m=$(echo "${tput[$a]}" | tr ' ' '\n' | grep . | median)
  tput[$a]=$m
  p99[$a]=$(echo "${p99[$a]}" | tr ' ' '\n' | grep . | median)
  case "$a" in fixed:*) if awk -v x="$m" -v y="$best_tput" 'BEGIN { exit !(x > y) }'; then best_fixed=$a; best_tput=$m; fi ;; esac
done
echo
printf "%-18s %12s %10s %16s %16s\n" algorithm "2xx/s (med)" "p99 ms" "med(run ratio)" "p99/best (med)"
for a in $algorithms; do
  printf "%-18s %12.1f %10.2f %16.3f %16.3f\n" "$a" "${tput[$a]}" "${p99[$a]}" \
    "$(echo "${ratio[$a]}" | tr ' ' '\n' | grep . | median)" \
    "$(awk -v x="${p99[$a]}" -v y="${p99[$best_fixed]}" 'BEGIN { print x / y }')"
done
echo "med(run ratio): median over runs of 2xx/s divided by the best fixed limit's 2xx/s in that run"
echo "best fixed limit: $best_fixed (median of $runs runs, $seconds s each, $connections connections)"
