#!/bin/sh
# run.sh SECONDS JOBS HARNESS... - runs each libFuzzer harness
# build/fuzz/fuzz_HARNESS for SECONDS (JOBS at a time, under nice), on the
# growing corpus build/fuzz/corpus/HARNESS plus the seeds that
# tests/fuzz/seeds.sh built in build/fuzz/seeds/HARNESS. Called by
# `make fuzz-smoke` / `make fuzz-long` with FUZZ_OPTS set (timeouts and
# memory limits). Logs: build/fuzz/logs/HARNESS.log; crash, hang, leak and
# out-of-memory inputs: build/fuzz/artifacts/HARNESS/. FUZZ_CORPUS=DIR puts
# the growing corpora in DIR/HARNESS instead (make test's smoke run uses a
# scratch directory, so its start-up time does not grow with every run).
# Prints one line per
# harness with libFuzzer's execution count, then
#     fuzz-smoke: N passed, M failed     (fuzz-long: ... for long runs)
# and exits 1 when a harness found something.
set -u
secs=${1:?usage: run.sh SECONDS JOBS HARNESS...}
jobs=${2:?usage: run.sh SECONDS JOBS HARNESS...}
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
label=${FUZZ_LABEL:-$([ "$secs" -le 60 ] && echo fuzz-smoke || echo fuzz-long)}
opts=${FUZZ_OPTS:--timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1}
b=build/fuzz
corpus=${FUZZ_CORPUS:-$b/corpus}
mkdir -p "$b/logs"

# Inputs larger than this are cut: whole real programs are slow to mutate.
max_len() {
    case $1 in
    load | json | container | unflatten) echo 262144 ;;
    shape) echo 524288 ;;
    treespec | stack | cache) echo 16384 ;;
    *) echo 4096 ;;
    esac
}

run_one() {
    h=$1
    mkdir -p "$corpus/$h" "$b/artifacts/$h"
    dict=""
    [ -f "$b/seeds/$h.dict" ] && dict="-dict=$b/seeds/$h.dict"
    # shellcheck disable=SC2086
    nice -n 10 "$b/fuzz_$h" -max_total_time="$secs" -max_len="$(max_len "$h")" $opts $dict \
        -artifact_prefix="$b/artifacts/$h/" "$corpus/$h" "$b/seeds/$h" >"$b/logs/$h.log" 2>&1
    echo $? >"$b/logs/$h.rc"
}

report() {
    h=$1
    rc=$(cat "$b/logs/$h.rc" 2>/dev/null || echo 99)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$b/logs/$h.log" | tail -1)
    [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$b/logs/$h.log" | tail -1 | tr -d '#')
    if [ "$rc" -eq 0 ]; then
        echo "$h: ok after ${execs:-?} executions in ${secs}s"
        return 0
    fi
    why=$(grep -oE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer): [a-zA-Z -]+|runtime error: [^\n]*|SUMMARY: [^\n]*' \
        "$b/logs/$h.log" | head -1)
    art=$(ls -t "$b/artifacts/$h" 2>/dev/null | head -1)
    echo "$h: FAILED (${why:-exit $rc}) after ${execs:-?} executions; input: $b/artifacts/$h/$art; log: $b/logs/$h.log"
    return 1
}

pass=0 fail=0
set -- "$@"
while [ $# -gt 0 ]; do
    batch=""
    n=0
    while [ $# -gt 0 ] && [ $n -lt "$jobs" ]; do
        run_one "$1" &
        batch="$batch $1"
        n=$((n + 1))
        shift
    done
    wait
    for h in $batch; do
        if report "$h"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
    done
done
echo "$label: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
