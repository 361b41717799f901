#!/bin/sh
# run_fuzz_smoke.extra.sh EXDB_BINARY - make test's bounded fuzzing: builds
# the libFuzzer harnesses (make fuzz: clang with libFuzzer, which
# `scripts/deps.sh test` installs) and their seeds (make fuzz-seeds), then
# runs each harness for FUZZ_TEST_SECONDS (3) on the seeds and a scratch
# corpus, one at a time under nice (tests/fuzz/run.sh). A crash, hang, leak,
# UB report or out-of-memory input fails the harness; its input is kept in
# build/fuzz/artifacts/HARNESS/ and its log in build/fuzz/logs/. Prints one
# line per harness with its execution count and exactly
#     fuzz-smoke: N passed, M failed
# at the end. The EXDB_BINARY argument (tests/run.sh passes every extra
# suite the exdb binary) is not used: the harnesses link the library.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
secs=${FUZZ_TEST_SECONDS:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exdb-fuzzsmoke-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
harnesses=$(sed -n 's/^FUZZ_HARNESSES *:= *//p' Makefile)
if ! nice make --no-print-directory -s fuzz fuzz-seeds >"$tmp/build.log" 2>&1; then
    echo "fuzz-smoke: cannot build the harnesses (make fuzz; clang with libFuzzer: sh scripts/deps.sh test):"
    tail -20 "$tmp/build.log"
    echo "fuzz-smoke: 0 passed, 1 failed"
    exit 1
fi
# ASan options of the test run would override libFuzzer's own settings.
unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
# shellcheck disable=SC2086
FUZZ_LABEL=fuzz-smoke FUZZ_CORPUS=$tmp/corpus tests/fuzz/run.sh "$secs" 1 $harnesses
