#!/bin/sh
# diff.sh - the program diff rows of `make bench` (run by scripts/bench.sh
# with the bench directory): synth_N against a copy with a few changes
# (scripts/bench/diff_variant.py). diff: exdb_diff_programs alone (best of
# 3, the loads not counted); unflatten: both programs run to the end;
# modules: the module tree diff after that. Target (issue 17): diff < 1 s
# at 100k nodes.
out=${1:-build/bench}
sizes=${BENCH_SIZES:-1k 10k 100k}
make -s build/rel/bench_diff >/dev/null || exit 0
echo
printf '%-22s %7s %7s %7s %7s %7s %9s %11s %9s\n' "diff (ms)" nodes added removed changed renamed diff unflatten modules
printf '%-22s %7s %7s %7s %7s %7s %9s %11s %9s\n' "target" "" "" "" "" "" "<1000@100k" "" ""
for s in $sizes; do
    [ "$s" = 1M ] && continue
    f=$out/synth_$s.json
    [ -s "$f" ] || continue
    v=$out/synth_${s}_variant.json
    [ -s "$v" ] || python3 scripts/bench/diff_variant.py "$f" "$v"
    r=$(build/rel/bench_diff "$f" "$v") || { printf '%-22s failed\n' "synth_$s"; continue; }
    echo "synth_$s $r" | awk '{ printf "%-22s %7d %7d %7d %7d %7d %9.1f %11.1f %9.1f\n",
        $1, $2, $4, $5, $6, $7, $8 * 1000, $9 * 1000, $10 * 1000 }'
done
