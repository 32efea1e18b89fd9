#!/usr/bin/env bash
# blobtune-plantbench's command line: --help exits 0 with the usage; each bad flag exits 2 with
# a message naming what is wrong, before any point runs.
#
# Usage: cli_test.sh PLANTBENCH
set -uo pipefail

plantbench=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$plantbench" --help) || fail "--help exited $?"
grep -q -- "--repetitions N" <<< "$out" || fail "--help does not list --repetitions"

# Each bad command line, then a fragment of the message it must print.
expect_usage_error() {
  local message=$1
  shift
  err=$("$plantbench" "$@" 2>&1 > /dev/null)
  local code=$?
  [ "$code" -eq 2 ] || fail "$* exited $code, expected 2"
  grep -qF -- "$message" <<< "$err" || fail "$*: message '$err' lacks '$message'"
}
expect_usage_error 'unknown argument "--bogus"' --bogus
expect_usage_error 'no plant "nowhere"' --plant nowhere
expect_usage_error "--algorithm nope" --algorithm nope
expect_usage_error "--seconds needs" --seconds never
expect_usage_error "--seconds needs" --seconds 0
expect_usage_error "--warmup needs" --warmup -1
expect_usage_error "--repetitions needs" --repetitions 0
expect_usage_error "--plot needs" --plot
echo "ok: --help and bad flags"
