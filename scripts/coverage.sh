#!/bin/sh
# coverage.sh COV_DIR - runs the unit, golden, malformed, committed
# conformance (torch's answers on tests/conformance/corpus), JSON schema,
# diff command-line, notes, viz (every view of the real programs) and (as
# root, which it needs) outfiles suites and the fault injection walks of
# tests/run_faults.extra.sh over the bundled fixtures with the gcov build in
# COV_DIR (make coverage builds it), then prints the line coverage of every
# file of core/ and viz/, the total of core/ and the total, from plain
# gcov's "Lines executed" (no gcovr or lcov needed). COVERAGE_REPORT_ONLY=1
# prints the table from the counts already there (after running a suite
# by hand with COV_DIR's binaries).
set -u
cov=${1:-build/cov}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
if [ -z "${COVERAGE_REPORT_ONLY:-}" ]; then
find "$cov" -name '*.gcda' -delete
echo "coverage: running the suites with $cov (counts only; sanitizer checks are make test's)"
"$cov/unit" --jobs 2 >"$cov/unit.log" 2>&1
grep 'Synthesis:' "$cov/unit.log" | sed 's/^/  unit: /'
tests/run_golden.sh "$cov/exdb" 2>&1 | tail -1 | sed 's/^/  /'
tests/run_malformed.sh "$cov/exdb" 2>&1 | tail -1 | sed 's/^/  /'
# the fault injection walks of make test, with this build's fault_walk
FAULT_WALK=$cov/fault_walk tests/run_faults.extra.sh "$cov/exdb" 2>&1 | tail -2 | sed 's/^/  /'
# outfiles (full disk, signals, odd targets) mounts a tmpfs: root only
# viz renders every view of the real programs (../shared/real_pt2, when
# there): the branches only big programs take (lists outgrowing their
# inline room, deep walks)
suites="conformance json_schema diff_cli notes viz"
[ "$(id -u)" = 0 ] && suites="$suites outfiles"
for suite in $suites; do
    tests/run_$suite.extra.sh "$cov/exdb" 2>&1 | tail -1 | sed 's/^/  /'
done
fi

# gcov -n (no .gcov files) per source: its "File 'X'" block's "Lines
# executed:P% of N" (headers' inline functions get blocks of their own).
printf '\n%-22s %7s %7s %7s\n' file lines run covered
total=0 run=0 ctotal=0 crun=0
for src in core/*/*.c viz/*.c; do
    obj=$cov/$(dirname "$src")
    line=$(gcov -n -o "$obj" "$src" 2>/dev/null | awk -v f="$src" '
        /^File / { cur = $2; gsub(/\047/, "", cur) }
        /^Lines executed:/ && cur == f { sub(/^Lines executed:/, ""); print; exit }')
    pct=${line%%%*}
    n=${line##* of }
    case $n in '' | *[!0-9]*) pct=0 n=$(grep -c '' "$src") ;; esac
    hit=$(awk -v p="$pct" -v n="$n" 'BEGIN { printf "%d", p * n / 100 + 0.5 }')
    total=$((total + n))
    run=$((run + hit))
    case $src in core/*)
        ctotal=$((ctotal + n))
        crun=$((crun + hit))
        ;;
    esac
    printf '%-22s %7d %7d %6.1f%%\n' "$src" "$n" "$hit" "$pct"
done
awk -v r="$crun" -v t="$ctotal" 'BEGIN { printf "%-22s %7d %7d %6.1f%%\n", "total core/", t, r, t ? 100 * r / t : 0 }'
awk -v r="$run" -v t="$total" 'BEGIN { printf "%-22s %7d %7d %6.1f%%\n", "total", t, r, t ? 100 * r / t : 0 }'
