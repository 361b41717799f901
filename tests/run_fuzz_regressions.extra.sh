#!/bin/sh
# run_fuzz_regressions.extra.sh EXDB_BINARY - replays every input the fuzzers
# found a bug with (tests/fuzz/regressions/HARNESS/NAME, described in
# tests/fuzz/regressions/README.md) through the code path that crashed:
#   - the harness itself, linked without libFuzzer against the ASan+UBSan
#     objects (build/san/fuzz-replay/fuzz_HARNESS, built here with make);
#   - for loader, container, JSON, unflatten and shape inputs also `EXDB FILE
#     -batch` with print, lint, dce, undo and unflatten, the way a user
#     meets such a file.
# A case passes when every run exits normally (0, or 1 for a refused file)
# with no sanitizer report and no allocation above 1 GiB. Cases listed in tests/fuzz/regressions/KNOWN
# (bugs in files this suite's owner may not edit) are reported as "known,
# not yet fixed" without failing; a known case that passes says so.
# Prints exactly "fuzz-regressions: N passed, M failed" at the end (with the
# known count in brackets) and exits 1 if anything failed.
set -u
if [ $# -ne 1 ]; then
    echo "usage: $0 EXDB_BINARY" >&2
    exit 2
fi
case $1 in /*) exdb=$1 ;; *) exdb=$(pwd)/$1 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
regs=tests/fuzz/regressions
known_list=$regs/KNOWN
replay=build/san/fuzz-replay
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exdb-fuzzreg-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# A reproducer is a small file: one allocation above 1 GiB is a finding (the
# fuzzers run with -malloc_limit_mb=1024 for the same reason).
ASAN_OPTIONS="$ASAN_OPTIONS:max_allocation_size_mb=1024"
# Nor may a small file grow without bound (issue 22: a 74 KB program took
# 21.8 GB): a sanitizer build stops at 2 GiB of RSS with a report; a build
# without AddressSanitizer (which cannot run under ulimit -v) gets a 2 GB
# address-space cap instead, so growth is a failure, never a hang.
ASAN_OPTIONS="$ASAN_OPTIONS:hard_rss_limit_mb=2048"
VMEM_KB=2000000
pass=0 fail=0 known=0

if ! make --no-print-directory -s fuzz-replay >"$tmp/build.log" 2>&1; then
    echo "fuzz-regressions: cannot build the replay drivers (make fuzz-replay):"
    tail -20 "$tmp/build.log"
    echo "fuzz-regressions: 0 passed, 1 failed"
    exit 1
fi

# One run: ok when the exit status is 0 or 1 and nothing was reported.
clean_run() {
    out=$1
    shift
    if grep -q __asan_init "$1" 2>/dev/null; then
        timeout 120 "$@" </dev/null >"$out" 2>&1
    else
        (ulimit -v $VMEM_KB && exec timeout 120 "$@") </dev/null >"$out" 2>&1
    fi
    rc=$?
    if [ $rc -gt 1 ] || grep -qE 'Sanitizer|runtime error:|^SUMMARY:' "$out"; then
        return 1
    fi
    return 0
}

is_known() {
    [ -f "$known_list" ] && grep -v '^#' "$known_list" | awk '{print $1}' | grep -qxF "$1"
}

for f in "$regs"/*/*; do
    [ -f "$f" ] || continue
    h=$(basename "$(dirname "$f")")
    name=$h/$(basename "$f")
    case $name in *.md) continue ;; esac
    ok=1 why=""
    if [ ! -x "$replay/fuzz_$h" ]; then
        ok=0 why="no harness named $h"
    elif ! clean_run "$tmp/out" "$replay/fuzz_$h" "$f"; then
        ok=0 why="fuzz_$h: $(grep -m1 -E 'ERROR|runtime error|SUMMARY' "$tmp/out" || tail -1 "$tmp/out")"
    fi
    case $h in load | container | json | unflatten | shape)
        if [ $ok -eq 1 ] && ! clean_run "$tmp/out" "$exdb" "$f" -batch -ex 'set on-error continue' \
            -ex 'print graph' -ex 'info facts' -ex lint -ex dce -ex undo -ex 'unflatten run'; then
            ok=0 why="exdb -batch: $(grep -m1 -E 'ERROR|runtime error|SUMMARY' "$tmp/out" || tail -1 "$tmp/out")"
        fi ;;
    esac
    if is_known "$name"; then
        if [ $ok -eq 1 ]; then
            echo "known case now passes (remove it from $known_list): $name"
            pass=$((pass + 1))
        else
            echo "known, not yet fixed: $name ($(grep -F "$name " "$known_list" | head -1 | sed 's/^[^ ]* *//'))"
            known=$((known + 1))
        fi
    elif [ $ok -eq 1 ]; then
        pass=$((pass + 1))
    else
        echo "FAIL $name: $why"
        fail=$((fail + 1))
    fi
done
echo "fuzz-regressions: $pass passed, $fail failed ($known known, not yet fixed)"
[ $fail -eq 0 ]
