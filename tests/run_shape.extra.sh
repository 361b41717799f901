#!/bin/sh
# run_shape.extra.sh EXDB - a program opened shape first (issue 27;
# docs/json-reader.md, "Shape first"), every program made one with
# EXDB_SHAPE_FIRST_MIN=0, in batch sessions: the load line and `info
# program` answer as a whole load does; a file the build refuses is refused
# by the first command that needs the IR with the load's message, the
# program then dropped, exit 1; a file changed on disk before that command
# is refused with the changed-on-disk line; a batch session whose first -ex
# command needs the IR opens the program whole, and so does one of no
# command; the REPL in a pseudo-terminal (tests/shape_repl.py): a file
# refused by the build says so at the first command that needs the IR,
# the REPL stays, load and quit during a build. About 3 s.
# Prints "shape: N passed, M failed".
exdb=${1:?usage: run_shape.extra.sh EXDB}
case $exdb in /*) ;; *) exdb=$(pwd)/$exdb ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/exdb-shape-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1
pass=0 fail=0
ok() {
    pass=$((pass + 1))
    echo "ok   shape: $1"
}
bad() {
    fail=$((fail + 1))
    echo "FAIL shape: $1"
    sed 's/^/     | /' "$tmp/out" | tail -8
}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

# the same transcript whole and shape first (the IR built at print graph)
# (and programs with subgraphs, nested ones too)
hop=tests/conformance/corpus/scenarios
for f in tests/fixtures/example.json tests/fixtures/kwargs.pt2 tests/fixtures/llm_decoder.json \
    tests/fuzz/regressions/shape/*.json $hop/cf_cond_in_map__nonstrict/program.pt2 \
    $hop/cf_whileloop_in_map_in_cond__nonstrict/program.pt2 $hop/map_unflatten__strict/program.pt2 \
    $hop/set_grad_unflatten__nonstrict/program.pt2; do
    set -- -q "$f" -batch -ex 'info program' -ex 'print graph' -ex 'info program'
    EXDB_SHAPE_FIRST_MIN=4294967295 "$exdb" "$@" >"$tmp/whole" 2>&1
    echo "[exit $?]" >>"$tmp/whole"
    EXDB_SHAPE_FIRST_MIN=0 "$exdb" "$@" >"$tmp/out" 2>&1
    echo "[exit $?]" >>"$tmp/out"
    if cmp -s "$tmp/whole" "$tmp/out"; then
        ok "$f: the same answers"
    else
        bad "$f: other answers shape first"
    fi
done

# refused by the build: the load's message at print graph, then no program
f=tests/malformed/dup_node_output.json
msg=$("$exdb" -q "$f" -batch 2>&1)
EXDB_SHAPE_FIRST_MIN=0 "$exdb" -q "$f" -batch -ex 'set on-error continue' -ex 'info program' \
    -ex 'print graph' -ex 'info program' >"$tmp/out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q '^serialized nodes:  2$' "$tmp/out" && grep -qxF -- "$msg" "$tmp/out" &&
    [ "$(tail -1 "$tmp/out")" = 'No program loaded.  Use "load FILE".' ]; then
    ok "a file the build refuses: the load's message, then no program, exit 1"
else
    bad "a file the build refuses (exit $rc)"
fi

# a first -ex command that needs the IR: opened whole (the load refuses it)
EXDB_SHAPE_FIRST_MIN=0 "$exdb" -q "$f" -batch -ex 'print graph' >"$tmp/out" 2>&1
rc=$?
if [ $rc = 1 ] && [ "$(cat "$tmp/out")" = "$msg" ]; then
    ok "a first command that needs the IR: opened whole"
else
    bad "a first command that needs the IR (exit $rc)"
fi

# changed on disk between the load and the first command that needs the IR
cp tests/fixtures/example.json "$tmp/prog.json"
mkfifo "$tmp/in"
EXDB_SHAPE_FIRST_MIN=0 "$exdb" -q "$tmp/prog.json" <"$tmp/in" >"$tmp/out" 2>&1 &
pid=$!
exec 3>"$tmp/in"
echo 'echo @@loaded' >&3
k=0
while ! grep -qx '@@loaded' "$tmp/out" && [ $k -lt 600 ]; do
    k=$((k + 1))
    sleep 0.1
done
printf ' ' >>"$tmp/prog.json"
echo 'print graph' >&3
echo quit >&3
exec 3>&-
wait $pid
if grep -qF "prog.json changed on disk since it was loaded; load it again" "$tmp/out"; then
    ok "changed on disk before the build: the changed-on-disk line"
else
    bad "changed on disk before the build"
fi

# a synthetic program of 5,000 nodes, and the same with node 4,492 of 4,992
# refused by the build (its input names no value): a batch session of no
# command says the load's verdict; then the REPL in a pseudo-terminal, the
# IR built in a thread of its own (tests/shape_repl.py)
if python3 scripts/gen_synth.py --nodes 5000 --out "$tmp/good.json" >/dev/null 2>&1 &&
    python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
n = p["graph_module"]["graph"]["nodes"][4492]
n["inputs"][0]["arg"]["as_tensor"]["name"] = "no_such_value"
open(sys.argv[2], "w").write(json.dumps(p))' "$tmp/good.json" "$tmp/bad.json"; then
    EXDB_SHAPE_FIRST_MIN=0 "$exdb" -q "$tmp/bad.json" -batch >"$tmp/out" 2>&1
    rc=$?
    if [ $rc = 1 ] && grep -q 'nodes\[4492\].*"no_such_value"' "$tmp/out" && [ "$(wc -l <"$tmp/out")" = 1 ]; then
        ok "a batch session of no command: the load's verdict on a file refused further on"
    else
        bad "a batch session of no command (exit $rc)"
    fi
    python3 tests/shape_repl.py "$exdb" "$tmp/good.json" "$tmp/bad.json" >"$tmp/repl" 2>&1
    rc=$?
    sed 's/^ok   shape-repl: /ok   shape: the REPL: /; s/^FAIL shape-repl: /FAIL shape: the REPL: /' "$tmp/repl"
    pass=$((pass + $(grep -c '^ok ' "$tmp/repl")))
    fail=$((fail + $(grep -c '^FAIL ' "$tmp/repl")))
    if [ $rc != 0 ] && ! grep -q '^FAIL' "$tmp/repl"; then
        fail=$((fail + 1))
        echo "FAIL shape: the REPL: tests/shape_repl.py did not finish (exit $rc)"
        tail -5 "$tmp/repl" | sed 's/^/     | /'
    fi
else
    bad "python3 scripts/gen_synth.py did not run"
fi

echo "shape: $pass passed, $fail failed"
[ $fail = 0 ]
