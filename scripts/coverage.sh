#!/bin/sh
# coverage.sh COV_DIR - runs the unit, golden, malformed and fault injection
# suites (the walks of tests/run_faults.extra.sh over the bundled fixtures)
# with the gcov build in COV_DIR (make coverage builds it), then
# prints the line coverage of every file of core/ and viz/ and the total,
# from plain gcov's "Lines executed" (no gcovr or lcov needed).
set -u
cov=${1:-build/cov}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
find "$cov" -name '*.gcda' -delete
echo "coverage: running the suites with $cov (counts only; sanitizer checks are make test's)"
"$cov/unit" --jobs 2 >"$cov/unit.log" 2>&1
grep 'Synthesis:' "$cov/unit.log" | sed 's/^/  unit: /'
tests/run_golden.sh "$cov/exdb" 2>&1 | tail -1 | sed 's/^/  /'
tests/run_malformed.sh "$cov/exdb" 2>&1 | tail -1 | sed 's/^/  /'
walk=$cov/fault_walk
"$walk" tests/fixtures/example.json tests/fixtures/unflatten/constant_aliasing.pt2 \
    tests/fixtures/dce/dead_pure.json 2>&1 | tail -1 | sed 's/^/  blocks: /'
"$walk" --arena-calls tests/fixtures/dce/dead_pure.json 2>&1 | tail -1 | sed 's/^/  arena calls: /'
"$walk" --arena-calls -c "load '{F}'" -c "unflatten run" -c "goto 50" -c "reverse-stepi 5" \
    -c "stepi 3" -c backtrace -c "info modules" -c "print graph" -c "info program" -c lint \
    -c "unflatten restart" -c "unflatten run" tests/fixtures/example.json \
    tests/fixtures/unflatten/constant_aliasing.pt2 2>&1 | tail -1 | sed 's/^/  stepping: /'

# gcov -n (no .gcov files) per source: its "File 'X'" block's "Lines
# executed:P% of N" (headers' inline functions get blocks of their own).
printf '\n%-22s %7s %7s %7s\n' file lines run covered
total=0 run=0
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
    printf '%-22s %7d %7d %6.1f%%\n' "$src" "$n" "$hit" "$pct"
done
awk -v r="$run" -v t="$total" 'BEGIN { printf "%-22s %7d %7d %6.1f%%\n", "total", t, r, t ? 100 * r / t : 0 }'
