#!/bin/sh
# conformance.sh - make conformance: torch 2.13 as the judge of exdb.
#
#   1. build/venv with torch 2.13.0 (scripts/deps.sh conformance);
#   2. the scenario programs regenerated from torch into
#      build/conformance/scenarios, or with CONFORMANCE_UPDATE=1 into
#      tests/conformance/corpus/scenarios (committed: make test compares
#      those without torch);
#   3. CONFORMANCE_N (300) random programs of seed CONFORMANCE_SEED (1) and the
#      transformers architectures, generated into build/conformance (never
#      committed);
#   4. exdb compared with torch's answers on all of them
#      (tests/conformance/compare.py), and the table the README shows.
#
# Where torch 2.13.0 cannot be had, one line says so and only the committed
# answers are compared. CONFORMANCE_ONLY=scenarios|random|archs limits the
# corpora; CONFORMANCE_JOBS (2) programs are generated at a time.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
exdb=${EXDB:-./exdb}
n=${CONFORMANCE_N:-300}
seed=${CONFORMANCE_SEED:-1}
jobs=${CONFORMANCE_JOBS:-2}
only=${CONFORMANCE_ONLY:-scenarios random archs}
cmp=tests/conformance/compare.py
set +e
sh scripts/deps.sh conformance >/dev/null
rc=$?
set -e
if [ $rc = 3 ]; then
    echo "conformance: comparing the committed answers only (no torch 2.13.0 here)"
    exec python3 $cmp "$exdb" tests/conformance/corpus/scenarios --table
fi
[ $rc = 0 ] || exit $rc
py=${EXDB_VENV:-build/venv}/bin/python  # the venv conformance_venv.sh made
# set iteration order in torch (e.g. _copy_graph_attrs) the same in every run
export PYTHONHASHSEED=0
gen() { # CORPUS OUTDIR ARGS...: generate in $jobs shards, one log per shard
    what=$1 out=$2
    shift 2
    mkdir -p "$out"
    t0=$(date +%s)
    j=0 pids=""
    while [ $j -lt "$jobs" ]; do
        HF_HUB_OFFLINE=1 "$py" tests/conformance/gen.py "$what" "$out" "$@" --shard "$j/$jobs" \
            >"build/conformance/$what.$j.log" 2>&1 &
        pids="$pids $!"
        j=$((j + 1))
    done
    failed=0
    for p in $pids; do
        wait "$p" || failed=1
    done
    made=$(find "$out" -name answers.json | wc -l)
    echo "$what: generated $made programs in $(($(date +%s) - t0)) s"
    if [ $failed = 1 ]; then
        echo "conformance: gen.py $what failed (build/conformance/$what.*.log):" >&2
        tail -20 build/conformance/"$what".*.log >&2
        exit 1
    fi
}
mkdir -p build/conformance
dirs=""
for c in $only; do
    case $c in
    scenarios)
        # strict export names nn_module_stack entries after id(module), so
        # every regeneration differs a little: the committed programs are
        # rewritten only when asked (CONFORMANCE_UPDATE=1)
        sdir=build/conformance/scenarios
        [ -n "$CONFORMANCE_UPDATE" ] && sdir=tests/conformance/corpus/scenarios
        rm -rf "$sdir"
        gen scenarios "$sdir"
        dirs="$dirs $sdir" ;;
    random)
        rm -rf build/conformance/random
        gen random build/conformance/random "$n" "$seed"
        dirs="$dirs build/conformance/random" ;;
    archs)
        rm -rf build/conformance/archs
        gen archs build/conformance/archs
        dirs="$dirs build/conformance/archs" ;;
    esac
done
# shellcheck disable=SC2086
python3 $cmp "$exdb" $dirs --table
