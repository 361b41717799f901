#!/bin/sh
# growth.sh - the 100k -> 1M rows of `make bench` (issue 27), run by
# scripts/bench.sh with the bench directory: whole exdb processes on the
# synthetic programs, wall clock, median of BENCH_GROWTH_REPEAT (3) runs.
#   wc -l        reading the same file from the page cache (the floor)
#   prompt       exdb -q FILE -batch -ex 'info program' (first prompt)
#   unflatten    exdb -q FILE -batch -ex 'unflatten run'
#   session      unflatten run, goto, print code, render tree: time, peak RSS
# Targets: first prompt < 0.3 s at 100k, < 6x wc -l (< 1 s) at 1M, peak
# RSS at the prompt <= the file's size, a 1M session < 4 GB; each
# operation's growth from 100k to 1M beside the node ratio, the row
# failing ("FAIL") when it is worse than 1.3x linear, in wall clock and in
# CPU seconds (user + system: on a shared machine the wall clock also
# counts the waiting). The load average at start and end says how busy the
# machine was (callgrind's instruction counts are the reliable comparison
# on a busy machine: docs/json-reader.md).
out=${1:-build/bench}
# the first prompt as a user gets it: shape first from 32,768 nodes
# (bench.sh turns that off for the rows that subtract a bare load)
unset EXDB_SHAPE_FIRST_MIN
# every open from the file (bench.sh says so too; by hand, the user's reopen
# cache would make the prompt rows 0.01 s)
export EXDB_CACHE=0
rep=${BENCH_GROWTH_REPEAT:-3}
a=$out/synth_100k.json
b=$out/synth_1M.json
echo
if [ ! -s "$a" ] || [ ! -s "$b" ]; then
    echo "growth 100k -> 1M: needs $a and $b (BENCH_SIZES with 100k and 1M generates them)"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exdb-growth-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "growth 100k -> 1M (load average at start: $(cut -d' ' -f1-3 /proc/loadavg))"

# median_of CMD...: the median wall seconds of $rep runs; the median CPU
# seconds (user + system) in $tmp/cpu, the largest peak RSS (KB) in $tmp/rss
median_of() {
    : >"$tmp/times"
    : >"$tmp/cpus"
    echo 0 >"$tmp/rss"
    i=0
    while [ $i -lt "$rep" ]; do
        /usr/bin/time -f "%e %U %S %M" -o "$tmp/one" "$@" >/dev/null 2>&1
        read -r t u sy m <"$tmp/one"
        echo "$t" >>"$tmp/times"
        echo "$u $sy" | awk '{ print $1 + $2 }' >>"$tmp/cpus"
        [ "$m" -gt "$(cat "$tmp/rss")" ] && echo "$m" >"$tmp/rss"
        i=$((i + 1))
    done
    sort -n "$tmp/cpus" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }' >"$tmp/cpu"
    sort -n "$tmp/times" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

printf '%-10s %8s %10s %8s %9s %9s %9s %10s %9s %10s\n' program nodes MB "wc -l s" "prompt s" \
    "prompt/wc" "promptMB" "unflatten" "sessionMB" "prompt MB/s"
printf '%-10s %8s %10s %8s %9s %9s %9s %10s %9s %10s\n' target "" "" "" "<0.3|<1" "<6@1M" "<=MB" \
    "" "<4096@1M" ""
for f in "$a" "$b"; do
    s=$(basename "$f" .json | sed 's/synth_//')
    cat "$f" >/dev/null
    nodes=$(./exdb -q "$f" -batch -ex 'info program' 2>/dev/null | awk '/^graph nodes:/ { print $3 }')
    bytes=$(wc -c <"$f")
    wc=$(median_of wc -l "$f")
    pr=$(median_of ./exdb -q "$f" -batch -ex 'info program')
    prm=$(cat "$tmp/rss")
    prc=$(cat "$tmp/cpu")
    un=$(median_of ./exdb -q "$f" -batch -ex 'unflatten run')
    unc=$(cat "$tmp/cpu")
    unm=$(cat "$tmp/rss")
    /usr/bin/time -f "%e %U %S %M" -o "$tmp/one" ./exdb -q "$f" -batch -ex 'unflatten run' \
        -ex 'goto 5' -ex 'print code' -ex "render tree -o $tmp/tree.dot" >/dev/null 2>&1
    read -r se seu ses sem <"$tmp/one"
    sec=$(echo "$seu $ses" | awk '{ print $1 + $2 }')
    # unflatten alone: the run's CPU seconds beyond the first prompt's
    una=$(echo "$unc $prc" | awk '{ d = $1 - $2; print (d > 0 ? d : 0) }')
    eval "nodes_$s=$nodes pr_$s=$pr un_$s=$un prc_$s=$prc unc_$s=$unc una_$s=$una se_$s=$se"
    eval "sec_$s=$sec prm_$s=$prm unm_$s=$unm sem_$s=$sem"
    awk -v s="synth_$s" -v n="$nodes" -v b="$bytes" -v wc="$wc" -v pr="$pr" -v prm="$prm" \
        -v un="$un" -v sem="$sem" 'BEGIN {
        ratio = wc > 0 ? pr / wc : 0; rate = pr > 0 ? b / 1e6 / pr : 0
        printf "%-10s %8d %10.1f %8.2f %9.2f %9.1f %9.0f %10.2f %9.0f %10.0f\n", s, n, b / 1e6, wc,
            pr, ratio, prm / 1024, un, sem / 1024, rate }'
done
# Each operation's growth beside the node ratio; the row fails when the
# growth is worse than 1.3x linear. Seconds, or MB for the peak RSS rows.
printf '\n%-26s %9s %9s %8s %10s %10s %6s\n' "growth 100k -> 1M" "100k" "1M" growth \
    "node ratio" "limit" ""
for op in pr un se prc unc una sec prm unm sem; do
    case $op in
    pr) name="first prompt (wall s)" ;; un) name="unflatten run (wall s)" ;;
    se) name="session (wall s)" ;;
    prc) name="first prompt (CPU s)" ;; unc) name="unflatten run (CPU s)" ;;
    una) name="unflatten alone (CPU s)" ;; sec) name="session (CPU s)" ;;
    prm) name="prompt peak RSS (MB)" ;; unm) name="unflatten peak RSS (MB)" ;;
    sem) name="session peak RSS (MB)" ;;
    esac
    eval "t1=\$${op}_100k t2=\$${op}_1M"
    case $op in prm | unm | sem) t1=$((t1 / 1024)) t2=$((t2 / 1024)) ;; esac
    awk -v name="$name" -v t1="$t1" -v t2="$t2" -v n1="$nodes_100k" -v n2="$nodes_1M" 'BEGIN {
        g = t1 > 0 ? t2 / t1 : 0; r = n2 / n1; lim = 1.3 * r
        printf "%-26s %9.2f %9.2f %7.1fx %9.1fx %9.1fx %6s\n", name, t1, t2, g, r, lim,
            g <= lim ? "ok" : "FAIL" }'
done
echo "(session: unflatten run, goto 5, print code, render tree; unflatten alone: the"
echo " unflatten run's CPU minus the first prompt's)"
echo "(load average at end: $(cut -d' ' -f1-3 /proc/loadavg))"
