#!/bin/sh
# run.sh BUILD_DIR - every test of exdb, built with AddressSanitizer and
# UBSan in BUILD_DIR (make test calls it with build/san). Prints one summary
# line per suite and a final "N passed, N failed" line; exits non-zero when
# anything failed.
#
# T="SUITE[/NAME] ..." runs only those suites (make test T=golden/find,
# make quick): SUITE is unit, golden, malformed, real or an extra suite's
# name (tests/run_NAME.extra.sh: tmux, json_schema, conformance...); NAME
# is a glob of test names (a Criterion suite/test for unit) for the suites
# that honour EXDB_TEST_NAME (unit, golden, malformed); the others run whole.
# Each suite says when it starts and how long it took.
dir=${1:-build/san}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
[ -f tests/lsan.supp ] && export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/lsan.supp:print_suppressions=0}
# the reopen cache (core/export/cache.h) of every exdb a suite runs: a
# folder of this run's, never the user's
XDG_CACHE_HOME=$(mktemp -d /tmp/exdb-cache-XXXXXX) && export XDG_CACHE_HOME
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
total_pass=0 total_fail=0 failed_suites=""

# Adds a suite's "NAME: P passed, F failed" line to the totals.
count() {
    line=$(grep -E '^[a-z-]+: [0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    total_pass=$((total_pass + ${p:-0}))
    total_fail=$((total_fail + ${f:-0}))
}

# The suites' names; a summary line spells json_schema json-schema, and T
# takes either.
suites="unit golden malformed real $(for e in tests/run_*.extra.sh; do
    b=$(basename "$e" .extra.sh) && echo "${b#run_}"; done | tr '\n' ' ')"
set -f
for w in $T; do
    n=$(echo "${w%%/*}" | tr - _)
    case " $suites " in
    *" $n "*) ;;
    *)
        echo "T=\"$T\": no suite named \"${w%%/*}\"; the suites: $suites" >&2
        exit 2
        ;;
    esac
done
set +f

# want SUITE: whether T selects it; sets EXDB_TEST_NAME to its NAME glob.
want() {
    EXDB_TEST_NAME=
    [ -z "$T" ] && return 0
    set -f
    for w in $T; do
        case $w in */*) w=$(echo "${w%%/*}" | tr - _)/${w#*/} ;; *) w=$(echo "$w" | tr - _) ;; esac
        case $w in
        "$1") set +f && return 0 ;;
        "$1"/*) EXDB_TEST_NAME=${w#*/} && set +f && return 0 ;;
        esac
    done
    set +f
    return 1
}

# run_suite NAME COMMAND...: when T selects it, with its start and its time.
run_suite() {
    name=$1
    shift
    want "$name" || return 0
    export EXDB_TEST_NAME
    ran="$ran $name"
    echo "== $name${EXDB_TEST_NAME:+ ($EXDB_TEST_NAME)} ..."
    start=$(date +%s)
    out=$(mktemp)
    "$@" >"$out" 2>&1
    rc=$?
    cat "$out"
    echo "== $name took $(($(date +%s) - start)) s"
    if ! grep -qE '^[a-z-]+: [0-9]+ passed, [0-9]+ failed' "$out"; then
        echo "$name: 0 passed, 1 failed (the suite did not finish: exit $rc)" | tee -a "$out"
    elif [ $rc -ne 0 ] && ! grep -qE ' [1-9][0-9]* failed' "$out"; then
        echo "$name: 0 passed, 1 failed (exit $rc)" | tee -a "$out"
    fi
    count "$out"
    [ $rc -ne 0 ] && failed_suites="$failed_suites $name"
    rm -f "$out"
}

# Criterion's summary line becomes "unit: P passed, F failed".
unit() {
    filter=
    case $EXDB_TEST_NAME in '') ;; */*) filter=$EXDB_TEST_NAME ;; *) filter="$EXDB_TEST_NAME/*" ;; esac
    "$dir/unit" --jobs 2 ${filter:+--filter "$filter"} 2>&1 | tee /tmp/exdb-unit.$$ | grep -v '^\[----\]' | grep -vE '^\s*$' | tail -40
    rc=$?
    s=$(grep 'Synthesis:' /tmp/exdb-unit.$$)
    t=$(echo "$s" | sed -E 's/.*Passing: ([0-9]+).*/\1/')
    f=$(echo "$s" | sed -E 's/.*Failing: ([0-9]+).*Crashing: ([0-9]+).*/\1 \2/')
    # Criterion runs each test in a worker and passes it on its assertions:
    # a sanitizer report at a worker's exit (a leak) is only in the output.
    leaks=$(grep -cE 'ERROR: (LeakSanitizer|AddressSanitizer)' /tmp/exdb-unit.$$)
    rm -f /tmp/exdb-unit.$$
    set -- $f
    [ "$leaks" -gt 0 ] && echo "unit: $leaks sanitizer reports (above)"
    echo "unit: ${t:-0} passed, $(( ${1:-1} + ${2:-0} + leaks )) failed"
    [ -n "$s" ] && [ "${1:-1}" -eq 0 ] && [ "${2:-0}" -eq 0 ] && [ "$leaks" -eq 0 ]
}

ran=
run_suite unit unit
run_suite golden tests/run_golden.sh "$dir/exdb"
[ -x tests/run_malformed.sh ] && run_suite malformed tests/run_malformed.sh "$dir/exdb"
run_suite real tests/run_real.sh "$dir/exdb"
for extra in tests/run_*.extra.sh; do
    b=$(basename "$extra" .extra.sh)
    [ -x "$extra" ] && run_suite "${b#run_}" "$extra" "$dir/exdb"
done

if [ -z "$ran" ]; then
    echo "T=\"$T\" names no suite: unit, golden, malformed, real," \
        "$(for e in tests/run_*.extra.sh; do b=$(basename "$e" .extra.sh) && echo "${b#run_}"; done | tr '\n' ' ')" >&2
    exit 2
fi
echo
if [ -n "$failed_suites" ]; then
    echo "failed suites:$failed_suites"
fi
echo "$total_pass passed, $total_fail failed"
[ $total_fail -eq 0 ] && [ -z "$failed_suites" ]
