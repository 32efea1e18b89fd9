#!/usr/bin/env bash
# Overload test of blobtune-server: measure its capacity with a closed loop, then drive it
# open-loop at FACTOR x that capacity and check the bar: the server keeps answering, admitted
# (2xx) requests' p99 and refused (503) requests' p99 within the wait deadline, no crash,
# bounded peak RSS, every acknowledged PUT readable afterwards, and exit 0 on SIGTERM.
#
# Usage: tests/server/overload.sh --bin-dir build/bin [--seconds 60] [--factor 4]
#          [--capacity-seconds 5] [--deadline-ms 100] [--algorithm SPEC] [--size 4096]
#          [--max-rss-mb 1024] [--put-fraction 0.5] [--no-latency-check] [--server-nice N]
#          [--server-arg ARG]...   (passed on to blobtune-server, e.g. --server-arg --shed-wait-ms=100)
set -euo pipefail

bin_dir=""
seconds=60
factor=4
capacity_seconds=5
deadline_ms=100
algorithm=""
server_extra=()
size=4096
put_fraction=0.5
max_rss_mb=1024
latency_check=1
server_nice=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bin-dir) bin_dir="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --factor) factor="$2"; shift 2 ;;
    --capacity-seconds) capacity_seconds="$2"; shift 2 ;;
    --deadline-ms) deadline_ms="$2"; shift 2 ;;
    --algorithm) algorithm="$2"; shift 2 ;;
    --server-arg) server_extra+=("$2"); shift 2 ;;
    --size) size="$2"; shift 2 ;;
    --put-fraction) put_fraction="$2"; shift 2 ;;
    --max-rss-mb) max_rss_mb="$2"; shift 2 ;;
    --no-latency-check) latency_check=0; shift ;;
    --server-nice) server_nice="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "overload.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$bin_dir" ] || { echo "overload.sh: --bin-dir is required" >&2; exit 2; }

source "$(dirname "${BASH_SOURCE[0]}")/server_process.sh"
make_work_dir overload
server_args=()
[ -n "$algorithm" ] && server_args+=(--algorithm "$algorithm")
server_args+=("${server_extra[@]}")

# Capacity: the 2xx/s of 64 closed-loop connections against a server that refuses nothing (a
# 60 s wait deadline, no shedding), i.e. its throughput when saturated. Against a server that sheds, the refused
# connections retry at once and overload it, which would understate what it can do.
start_server "$bin_dir" --data-dir "$work/capacity-data" --wait-deadline-ms 60000 --shed-wait-ms 60000 \
  "${server_args[@]}"
echo "== capacity: closed loop, 64 connections, ${capacity_seconds} s, nothing refused"
"$bin_dir/blobtune-load" --port "$port" --mode closed --connections 64 --seconds "$capacity_seconds" \
  --warmup 1 --size "$size" --put-fraction "$put_fraction" --id-prefix capacity --json | tee "$work/capacity.txt"
capacity=$(tail -1 "$work/capacity.txt" | field ok_per_s)
stop_server

start_server "$bin_dir" --data-dir "$work/data" --wait-deadline-ms "$deadline_ms" "${server_args[@]}"
# On a machine with few cores the load client competes with the server for CPU; a client that
# falls behind adds its lag to every latency it reports. --server-nice N lowers the server's
# priority so that the client keeps to its schedule and the latencies are the server's.
[ "$server_nice" != 0 ] && renice -n "$server_nice" -p "$server_pid" >/dev/null
# The heap's peak: RssAnon sampled every 200 ms (VmHWM also counts the LMDB map's file pages).
( peak=0
  while kill -0 "$server_pid" 2>/dev/null; do
    kb=$(sed -n 's/^RssAnon:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$server_pid/status" 2>/dev/null || true)
    [ -n "$kb" ] && [ "$kb" -gt "$peak" ] && { peak=$kb; echo "$peak" > "$work/anon_peak"; }
    sleep 0.2
  done ) &

rate=$(awk -v c="$capacity" -v f="$factor" 'BEGIN { printf "%.0f", c * f }')
echo "== overload: open loop at ${factor}x ${capacity} = ${rate} requests/s for ${seconds} s"
load_args=(--port "$port" --mode open --rate "$rate" --seconds "$seconds" --warmup 1 --size "$size"
           --put-fraction "$put_fraction"
           --max-connections 400 --id-prefix overload --verify --json)
[ "$latency_check" = 1 ] && load_args+=(--max-ok-p99-ms "$deadline_ms")
load_status=0
/usr/bin/time -f "blobtune-load: %U s user + %S s system CPU, %e s wall" \
  "$bin_dir/blobtune-load" "${load_args[@]}" | tee "$work/overload.txt" || load_status=$?

server_cpu=$(awk '{ printf "%.1f", ($14 + $15) / 100 }' "/proc/$server_pid/stat")
hwm_kb=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$server_pid/status")
anon_kb=$(sed -n 's/^RssAnon:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$server_pid/status")
file_kb=$(sed -n 's/^RssFile:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$server_pid/status")
# LMDB maps its data file: pages read through the map count as RssFile (page cache, given back
# under memory pressure); the heap is RssAnon.
anon_peak_kb=$(cat "$work/anon_peak" 2>/dev/null || echo "$anon_kb")
echo "server: peak RSS (VmHWM) $((hwm_kb / 1024)) MiB; heap peak (RssAnon) $((anon_peak_kb / 1024))" \
     "MiB; now RssFile $((file_kb / 1024)) MiB (LMDB map pages); ${server_cpu} s CPU"
stop_server
echo "server: exit status $server_status after SIGTERM"
admitted=$(tail -1 "$work/overload.txt" | field ok_per_s)
echo "goodput under overload: ${admitted} 2xx/s = $(awk -v a="$admitted" -v c="$capacity" \
  'BEGIN { printf "%.2f", a / c }') x the capacity of ${capacity}"

failed=0
[ "$load_status" = 0 ] || { echo "FAIL: blobtune-load exited $load_status"; failed=1; }
[ "$server_status" = 0 ] || { echo "FAIL: the server exited $server_status"; failed=1; }
[ "$anon_peak_kb" -le $((max_rss_mb * 1024)) ] || { echo "FAIL: heap (RssAnon) over ${max_rss_mb} MiB"; failed=1; }
unavailable=$(tail -1 "$work/overload.txt" | field unavailable)
[ "${unavailable%.*}" -gt 0 ] || { echo "FAIL: no 503 at ${factor}x capacity: not overloaded"; failed=1; }
# "Promptly": a refused request hears so within the wait deadline (blobtune-load checked 2xx).
unavailable_p99=$(tail -1 "$work/overload.txt" | field unavailable_p99_ms)
if [ "$latency_check" = 1 ] && ! awk -v p="$unavailable_p99" -v d="$deadline_ms" 'BEGIN { exit !(p <= d) }'; then
  echo "FAIL: 503 p99 ${unavailable_p99} ms is over the ${deadline_ms} ms wait deadline"; failed=1
fi
[ "$failed" = 0 ] && echo "overload.sh: PASS"
exit "$failed"
