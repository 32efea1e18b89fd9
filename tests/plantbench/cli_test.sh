#!/usr/bin/env bash
# blobtune-plantbench's command line: --help exits 0 with the usage; each bad flag exits 2 with
# a message naming what is wrong, before any point runs.
#
# Usage: cli_test.sh PLANTBENCH
set -uo pipefail

plantbench=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$plantbench" --help) || fail "--help exited $?"
grep -q -- "--repetitions N (=3)" <<< "$out" || fail "--help does not list --repetitions"

# Each bad command line, then a fragment of the message it must print.
expect_usage_error() {
  local message=$1
  shift
  err=$("$plantbench" "$@" 2>&1 > /dev/null)
  local code=$?
  [ "$code" -eq 2 ] || fail "$* exited $code, expected 2"
  grep -qF -- "$message" <<< "$err" || fail "$*: message '$err' lacks '$message'"
}
expect_usage_error "unrecognised option '--bogus'" --bogus
expect_usage_error 'no plant "nowhere"' --plant nowhere
expect_usage_error "--algorithm: nope" --algorithm nope
expect_usage_error "option '--seconds' is invalid" --seconds never
expect_usage_error "--seconds: must be 0.01..3600, got 0" --seconds 0
expect_usage_error "--warmup: must be 0..3600, got -1" --warmup -1
expect_usage_error "--repetitions: must be 1..100, got 0" --repetitions 0
expect_usage_error "option '--plot' is missing" --plot
echo "ok: --help and bad flags"
