#!/bin/sh
# bench_peer.sh - exdb's lint and dce beside torch.fx's Graph.lint() and
# Graph.eliminate_dead_code() on the same graphs (make bench-peer).
#
# torch.fx is torch 2.13.0 in build/venv, which `make bench-peer`
# makes through scripts/deps.sh peer (as make conformance does). The graphs
# are every real program in ../shared/real_pt2 and the synthetic 10k and
# 100k programs (scripts/gen_synth.py), and the 1M one when make bench made it
# (exdb only); scripts/bench/fx_peer.py rebuilds
# each as a torch.fx.Graph with the same nodes and edges as exdb's IR (the
# node counts are printed side by side, and so is what each dce removed).
#
# Columns: per node, in microseconds of CPU time, exdb (build/rel/bench_ops
# --peer: the flat graph's Graph.lint checks alone; a dce that really
# removes, which lints first as FX does; best of 5x as many runs as
# torch.fx, since they cost little) and torch.fx, then how many times
# faster exdb is (target: >= 50x) and, for the synthetic rows, the per-node
# time against the 10k program's (linear growth: near 1). The machine's
# load moves both columns: run it on a quiet machine (the load average at
# the start and at the end is printed under the table).
#
#   PEER_REPS=N   best of N runs each (default 3)
#   PEER_PYTHON   the interpreter with torch (default build/venv/bin/python)
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
real=${REAL_PT2:-$(cd "$root/.." && pwd)/shared/real_pt2}
py=${PEER_PYTHON:-$root/build/venv/bin/python}
reps=${PEER_REPS:-3}
out=build/bench
mkdir -p "$out"
make -s build/rel/bench_ops >/dev/null
for s in 10k 100k; do
    f=$out/synth_$s.json
    if [ ! -s "$f" ]; then
        echo "generating $f ..." >&2
        python3 scripts/gen_synth.py --nodes "${s%k}000" --out "$f.tmp" && mv "$f.tmp" "$f"
    fi
done

files=""
[ -d "$real" ] && files=$(ls "$real"/*__model.json)
files="$files $out/synth_10k.json $out/synth_100k.json"
# The 1M program (made by make bench with BENCH_SIZES including 1M) gets an
# exdb row only: torch.fx would take the better part of an hour on it.
exdb_only=""
[ -s "$out/synth_1M.json" ] && exdb_only="$out/synth_1M.json"

have_fx=1
if ! "$py" -c 'import torch.fx' >/dev/null 2>&1; then
    have_fx=0
    echo "bench-peer: torch.fx is not importable by $py (torch 2.13.0 could not be installed):" >&2
    echo "bench-peer: printing exdb's column only." >&2
fi

load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
fx=$(mktemp)
trap 'rm -f "$fx"' EXIT
if [ $have_fx = 1 ]; then
    echo "timing torch.fx (best of $reps; a few minutes for the 100k program) ..." >&2
    # shellcheck disable=SC2086
    "$py" scripts/bench/fx_peer.py --reps "$reps" $files >"$fx"
fi

printf '\n%-28s %7s %7s | %8s %8s %7s | %8s %8s %7s | %6s %6s | %7s | %s\n' \
    "lint and dce, us per node" "nodes" "fx" "exdb lnt" "fx lint" "ratio" "exdb dce" "fx dce" "ratio" \
    "rm" "fx rm" "walk" "lin"
printf '%-28s %7s %7s | %8s %8s %7s | %8s %8s %7s | %6s %6s | %7s | %s\n' \
    "target" "" "" "" "" ">=50" "" "" ">=50" "same" "" "" "~1"
base_lint="" base_dce="" base_walk=""
for f in $files $exdb_only; do
    name=$(basename "$f" .json | sed 's/TheCBaH__pytorch.models.pt2__//; s/__model$//')
    r=$(build/rel/bench_ops "$f" --peer $((reps * 5))) || { printf '%-28s exdb failed\n' "$name"; continue; }
    set -- $r
    nodes=$1 el=$2 ed=$3 rm=$4 ew=$5
    fl=- fd=- fn=- frm=-
    if [ $have_fx = 1 ]; then
        line=$(grep "^$(basename "$f") " "$fx" || true)
        if [ -n "$line" ]; then
            set -- $line
            fn=$2 fl=$3 fd=$4 frm=$5
        fi
    fi
    case $name in
    synth_10k) base_lint=$el base_dce=$ed base_walk=$ew base_n=$nodes ;;
    esac
    awk -v name="$name" -v n="$nodes" -v fn="$fn" -v el="$el" -v ed="$ed" -v fl="$fl" -v fd="$fd" \
        -v rm="$rm" -v frm="$frm" -v bl="$base_lint" -v bd="$base_dce" -v bn="${base_n:-0}" \
        -v ew="$ew" -v bw="$base_walk" 'BEGIN {
        eu = el * 1e6 / n; du = ed * 1e6 / n
        if (fl == "-") { fu = "-"; fdu = "-"; r1 = "-"; r2 = "-" }
        else {
            fu = sprintf("%.3f", fl * 1e6 / fn); fdu = sprintf("%.3f", fd * 1e6 / fn)
            r1 = sprintf("%.0fx", (fl / fn) / (el / n)); r2 = sprintf("%.0fx", (fd / fn) / (ed / n))
        }
        lin = "";
        if (name ~ /^synth_/ && bl != "" && bn > 0)
            lin = sprintf("%.1f/%.1f/%.1f", (el / n) / (bl / bn), (ed / n) / (bd / bn),
                          (ew / n) / (bw / bn))
        line = sprintf("%-28s %7d %7s | %8.3f %8s %7s | %8.3f %8s %7s | %6d %6s | %7.3f | %s",
            substr(name, 1, 28), n, fn, eu, fu, r1, du, fdu, r2, rm, frm, ew * 1e6 / n, lin)
        sub(/ +$/, "", line)
        print line }'
done
echo
echo "(walk: the least any pass does, every node and each of its inputs read once, per node;"
echo " lin: exdb's per-node lint/dce/walk time over the synthetic 10k program's, so lint's and"
echo " dce's growth can be told from what the memory hierarchy adds to any walk; fx rm: nodes"
echo " torch.fx's eliminate_dead_code removed, which should equal exdb's rm)"
echo "(load average: $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) at the end)"
