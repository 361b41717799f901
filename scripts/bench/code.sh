#!/bin/sh
# code.sh - print code / print readable rows of `make bench` (run by
# scripts/bench.sh with the bench directory). Wall clock per command: exdb
# FILE with the command K times, minus exdb FILE alone, divided by K (best
# of 3), output to /dev/null. Target (issue 15): print readable < 1 s at
# 100k nodes, linear in nodes (the us/node stay near each other).
out=${1:-build/bench}
sizes=${BENCH_SIZES:-1k 10k 100k}
[ -x ./exdb ] || exit 0
# cmd_ms FILE K CMD: milliseconds per CMD
cmd_ms() {
    f=$1 k=$2 c=$3 best=
    set --
    i=0
    while [ $i -lt "$k" ]; do
        set -- "$@" -ex "$c --all"
        i=$((i + 1))
    done
    for r in 1 2 3; do
        s0=$(date +%s.%N)
        ./exdb -q "$f" -batch >/dev/null 2>&1
        s1=$(date +%s.%N)
        ./exdb -q "$f" "$@" -batch >/dev/null 2>&1
        s2=$(date +%s.%N)
        t=$(echo "(($s2 - $s1) - ($s1 - $s0)) / $k * 1000" | bc -l)
        best=$(awk -v a="$t" -v b="$best" 'BEGIN { if (b == "" || a < b) print a; else print b }')
    done
    awk -v t="$best" 'BEGIN { if (t < 0) t = 0; printf "%.1f", t }'
}
echo
printf '%-22s %7s %14s %14s %14s %14s\n' "code (ms, us/node)" nodes "print code" "readable" \
    "readable -sdc" "code module"
printf '%-22s %7s %14s %14s %14s %14s\n' "target" "" "" "<1000@100k" "" ""
for s in $sizes; do
    [ "$s" = 1M ] && continue
    f=$out/synth_$s.json
    [ -s "$f" ] || continue
    # the graph's nodes (the getitems the loader makes included)
    n=$(./exdb "$f" -batch 2>/dev/null | sed -n 's/.*schema [^,]*, \([0-9]*\) nodes.*/\1/p')
    [ -n "$n" ] || continue
    case $s in 1k) k=20 ;; 10k) k=10 ;; *) k=5 ;; esac
    line=$(printf '%-22s %7d' "synth_$s" "$n")
    for c in "print code" "print readable" "print readable --stride --device --color" \
        "print code module"; do
        ms=$(cmd_ms "$f" $k "$c")
        line="$line $(awk -v t="$ms" -v n="$n" 'BEGIN { printf "%7.1f %6.2f", t, t * 1000 / n }')"
    done
    echo "$line"
done
echo "(each: exdb FILE -ex CMD x K minus exdb FILE alone, / K, best of 3; the text goes to /dev/null)"
