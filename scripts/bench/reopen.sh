#!/bin/sh
# reopen.sh - the "reopen (cached)" rows of `make bench` (issue 27, goal 2;
# run by scripts/bench.sh with the bench directory): the first prompt
# (`exdb -q FILE -batch -ex 'info program'`) of a synthetic program opened
# a second time, from the reopen cache (docs/json-reader.md, "Reopen
# cache"), against the first open (which writes the entry). Wall clock,
# CPU (user + system) and peak RSS, median of BENCH_GROWTH_REPEAT (3)
# reopens; the cache in a folder of its own. Goal: < 0.2 s at 1M nodes.
# Then the "first IR command after reopen" rows: the same open followed by
# the first command that needs the IR (`info nodes output`: it builds the
# graph and prints one line), from the entry against EXDB_CACHE=0 (the
# same two commands, the program opened shape first from its file); whole
# process, wall clock, median of BENCH_GROWTH_REPEAT; the graph built
# from the IR entry (core/export/cache_ir.h) the session before wrote.
# Goal (issue 27, goal 2, a cache of the loaded IR): < 0.2 s at 1M nodes
# (out of reach of an image put back into fresh memory:
# docs/json-reader.md, "An image of the IR").
out=${1:-build/bench}
rep=${BENCH_GROWTH_REPEAT:-3}
unset EXDB_SHAPE_FIRST_MIN EXDB_CACHE
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exdb-reopen-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export XDG_CACHE_HOME="$tmp/xdg"
[ -x ./exdb ] || exit 0
echo
echo "reopen from the cache (load average at start: $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-28s %8s %9s %9s %9s %9s %9s\n' "" "first s" "reopen s" "reopen cpu" "RSS MB" \
    "entry MB" "goal s"
for s in 100k 1M; do
    f=$out/synth_$s.json
    [ -s "$f" ] || continue
    rm -rf "$XDG_CACHE_HOME"
    goal=$([ "$s" = 1M ] && echo "<0.2" || echo "")
    (
        ulimit -v 14000000
        /usr/bin/time -f "%e" -o "$tmp/first" ./exdb -q "$f" -batch -ex 'info program' >/dev/null 2>&1
        : >"$tmp/runs"
        i=0
        while [ $i -lt "$rep" ]; do
            /usr/bin/time -f "%e %U %S %M" -o "$tmp/one" ./exdb -q "$f" -batch -ex 'info program' \
                >/dev/null 2>&1
            cat "$tmp/one" >>"$tmp/runs"
            i=$((i + 1))
        done
    )
    entry=$(du -sb "$XDG_CACHE_HOME/exdb" 2>/dev/null | cut -f1)
    med() { awk "{ print $1 }" "$tmp/runs" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
    awk -v name="reopen synth_$s (cached)" -v first="$(cat "$tmp/first")" -v t="$(med '$1')" \
        -v c="$(med '$2 + $3')" -v m="$(med '$4')" -v entry="${entry:-0}" -v goal="$goal" 'BEGIN {
        printf "%-28s %8.2f %9.2f %9.2f %9.0f %9.1f %9s\n", name, first, t, c, m / 1024,
            entry / 1e6, goal }'
done
echo "(first: the open that writes the entry; reopen: the median of $rep opens from it)"

# The first command that needs the IR, after a reopen: built from the IR
# entry (core/export/cache_ir.h) that the session before wrote after its
# build (by a process of its own, as the REPL does; the script waits for
# the entry to appear: it is renamed into place when complete).
echo
printf '%-36s %9s %9s %9s %10s %9s %9s %9s\n' "first IR command after reopen" "no cache s" \
    "writing s" "cached s" "cached cpu" "RSS MB" "IR MB" "goal s"
for s in 100k 1M; do
    f=$out/synth_$s.json
    [ -s "$f" ] || continue
    rm -rf "$XDG_CACHE_HOME"
    goal=$([ "$s" = 1M ] && echo "<0.2" || echo "")
    (
        ulimit -v 14000000
        ./exdb -q "$f" -batch -ex 'info program' >/dev/null 2>&1 # writes the shape entry
        # from the shape entry, built from the file: writes the IR entry
        /usr/bin/time -f "%e" -o "$tmp/writing" ./exdb -q "$f" -batch -ex 'info program' \
            -ex 'info nodes output' >/dev/null 2>&1
        n=0
        while ! ls "$XDG_CACHE_HOME/exdb/"*.ir >/dev/null 2>&1 && [ $n -lt 1200 ]; do
            sleep 0.1
            n=$((n + 1))
        done
        : >"$tmp/runs"
        : >"$tmp/cold"
        i=0
        while [ $i -lt "$rep" ]; do
            /usr/bin/time -f "%e %U %S %M" -o "$tmp/one" ./exdb -q "$f" -batch -ex 'info program' \
                -ex 'info nodes output' >/dev/null 2>&1
            cat "$tmp/one" >>"$tmp/runs"
            EXDB_CACHE=0 /usr/bin/time -f "%e" -o "$tmp/one" ./exdb -q "$f" -batch \
                -ex 'info program' -ex 'info nodes output' >/dev/null 2>&1
            cat "$tmp/one" >>"$tmp/cold"
            i=$((i + 1))
        done
    )
    ir=$(du -cb "$XDG_CACHE_HOME/exdb/"*.ir 2>/dev/null | tail -1 | cut -f1)
    med_of() { awk "{ print $1 }" "$2" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
    awk -v name="first IR command synth_$s" -v cold="$(med_of '$1' "$tmp/cold")" \
        -v w="$(cat "$tmp/writing")" -v t="$(med_of '$1' "$tmp/runs")" \
        -v c="$(med_of '$2 + $3' "$tmp/runs")" -v m="$(med_of '$4' "$tmp/runs")" \
        -v ir="${ir:-0}" -v goal="$goal" 'BEGIN {
        printf "%-36s %9.2f %9.2f %9.2f %10.2f %9.0f %9.1f %9s\n", name, cold, w, t, c, m / 1024,
            ir / 1e6, goal }'
done
echo "(-batch -ex 'info program' -ex 'info nodes output'; writing: from the shape entry, built"
echo " from the file, the IR entry written by a process of its own; cached: built from the IR entry)"
