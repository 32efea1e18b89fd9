#!/usr/bin/env bash
# Soak test of blobtune-server, for long runs by hand (not in CI): ROUNDS rounds of concurrent
# PUT and DELETE writers and a kill -9 of the server at a random moment among their writes,
# every other round while the map grows; each round first reads back what earlier rounds were
# told, and the end reads back every id. Reports acknowledged writes, lost and corrupt ones;
# exits 1 if any was lost or corrupt. See soak.py for the details.
#
# Usage: tests/server/soak.sh --rounds N [--bin-dir build/bin] [--seed 1] [--writers 4]
#          [--deleters 2] [--live 1000] [--max-answers 400] [--sample 100]
set -euo pipefail

bin_dir=build/bin
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin-dir) bin_dir="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
[ -x "$bin_dir/blobtune-server" ] || { echo "soak.sh: no $bin_dir/blobtune-server (--bin-dir)" >&2; exit 2; }

source "$(dirname "${BASH_SOURCE[0]}")/server_process.sh"
make_work_dir soak
python3 "$(dirname "${BASH_SOURCE[0]}")/soak.py" --server "$bin_dir/blobtune-server" \
  --data-dir "$work/data" "${args[@]}"
