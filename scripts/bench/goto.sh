#!/bin/sh
# goto.sh - reverse stepping rows of `make bench` (run by scripts/bench.sh
# with the bench directory and the real-program directory). CPU seconds,
# best of 3: unflatten to the end without and with recording events (the
# journal's cost, its bytes beside the run arena's), then going to the
# middle, the end and event 0 from the end, and the slowest of 20 random
# events (rnd-max). Targets: any event < 50 ms at 100k nodes. "cold" is the
# first recorded run of the process (fresh pages from the kernel; later
# runs reuse freed arena blocks) and us/node the recorded run per node
# (target: 100k within 1.5x of 1k).
out=${1:-build/bench}
sizes=${BENCH_SIZES:-1k 10k 100k}
make -s build/rel/bench_goto >/dev/null || exit 0
echo
printf '%-22s %7s %7s %9s %9s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n' "reverse stepping (ms)" nodes \
    events "unrecord" "recorded" "rec-cost" "cold" "us/node" "jrnl-MB" "arena-MB" "goto-mid" \
    "goto-end" "goto-0" "rnd-max"
printf '%-22s %7s %7s %9s %9s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n' "target" "" "" "" "<500@100k" "" \
    "" "<1.5x1k" "" "" "<50" "<50" "<50" "<50"
for s in $sizes; do
    [ "$s" = 1M ] && continue
    f=$out/synth_$s.json
    [ -s "$f" ] || continue
    r=$(nice build/rel/bench_goto "$f" 3 2>/dev/null) || { printf '%-22s failed\n' "synth_$s"; continue; }
    echo "$r" | awk -v n="synth_$s" '{
        printf "%-22s %7d %7d %9.1f %9.1f %7.0f%% %8.1f %8.2f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f\n",
            n, $1, $2, $3 * 1000, $4 * 1000, ($4 / $3 - 1) * 100, $11 * 1000, $4 * 1e6 / $1,
            $5 / 1e6, $6 / 1e6, $7 * 1000, $8 * 1000, $9 * 1000, $10 * 1000 }'
done
