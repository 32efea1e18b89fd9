#!/usr/bin/env bash
# Every program speaks one command-line dialect: --help and --version exit 0; an unknown flag
# and a bad value exit 2 with "PROGRAM: ... (see --help)" naming the flag as typed; sizes take
# K/M/G; --help shows defaults as a person writes them (0.1, not 0.10000000000000001).
#
# Usage: flag_dialect_test.sh PROGRAM...   (paths of the programs; each is known by its name)
set -uo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d /tmp/blobtune-flag-dialect-XXXXXX)
trap 'rm -rf "$work"' EXIT

# expect_error PROGRAM FRAGMENT ARGS...: exit status 2, one "NAME: ... (see --help)" line on
# stderr that holds FRAGMENT, nothing on stdout.
expect_error() {
  local program=$1 fragment=$2 name
  name=$(basename "$program")
  shift 2
  "$program" "$@" > "$work/out" 2> "$work/err"
  local code=$?
  [ "$code" -eq 2 ] || fail "$name $*: exited $code, expected 2"
  [ ! -s "$work/out" ] || fail "$name $*: printed to stdout: $(cat "$work/out")"
  grep -qxE "$name: .* \(see --help\)" "$work/err" || fail "$name $*: message '$(cat "$work/err")'"
  grep -qF -- "$fragment" "$work/err" || fail "$name $*: message '$(cat "$work/err")' lacks '$fragment'"
}

# expect_ok PROGRAM ARGS...: exit status 0.
expect_ok() {
  local program=$1
  shift
  "$program" "$@" > "$work/out" 2>&1 || fail "$(basename "$program") $*: exited $?: $(cat "$work/out")"
}

for program in "$@"; do
  name=$(basename "$program")
  expect_ok "$program" --version
  grep -qE "^$name [0-9]+\.[0-9]+\.[0-9]+$" "$work/out" || fail "$name --version: $(cat "$work/out")"
  expect_ok "$program" --help
  grep -qF -- "--version" "$work/out" || grep -qF -- "--benchmark_filter" "$work/out" ||
    fail "$name --help lists no flags"
  if grep -qE '\(=[^)]*[0-9]{8}' "$work/out"; then fail "$name --help: a default as a machine writes it"; fi
  expect_error "$program" "unrecognised option '--bogus'" --bogus

  case "$name" in
    blobtune-server)
      expect_error "$program" "--read-threads: must be 1..256, got 0" \
        --data-dir "$work/data" --read-threads 0
      expect_error "$program" "--wait-deadline-ms: must be >= 0, got -5" \
        --data-dir "$work/data" --wait-deadline-ms -5
      expect_error "$program" "option '--max-blob-size' is invalid" --max-blob-size 4Q
      expect_ok "$program" --max-blob-size 1G --initial-map-size 64m --version ;;
    blobtune-load)
      expect_error "$program" "--port: must be 1..65535, got 0" --port 0
      expect_error "$program" "option '--size' is invalid" --size 4Q
      expect_error "$program" "--size: must be 0..64M, got 65M" --size 65M
      expect_ok "$program" --size 4K --version ;;
    blobtune-delivery)
      expect_error "$program" "--messages: must be 1..100000, got 0" --messages 0
      expect_error "$program" "--messages: must not be negative, got -1" --messages -1
      expect_error "$program" "option '--size' is invalid" --size 100X
      expect_ok "$program" --size 1M --max-upload 1G --version
      expect_ok "$program" --help
      grep -qF -- "--time-scale arg (=0.1)" "$work/out" || fail "$name --help: --time-scale default" ;;
    blobtune-workbench)
      expect_error "$program" "--threads: must be 1..256, got 0" --suite "$work" --threads 0
      expect_error "$program" "option '--threads' is invalid" --threads many
      expect_error "$program" "--seed: must not be negative, got -1" --generate 1 --seed -1 ;;
    blobtune-plantbench)
      expect_error "$program" "--repetitions: must be 1..100, got 0" --repetitions 0
      expect_error "$program" "option '--seconds' is invalid" --seconds never ;;
    blobtune-*-bench)
      expect_error "$program" "unrecognised option '--benchmark_repetitions=x'" \
        --benchmark_repetitions=x ;;
    *) fail "no bad value known for $name" ;;
  esac
done
echo "ok: $# programs speak one dialect"
