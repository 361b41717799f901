#!/bin/sh
# run_shape.extra.sh EXDB - a program opened shape first (issue 27;
# docs/json-reader.md, "Shape first"), every program made one with
# EXDB_SHAPE_FIRST_MIN=0, in batch sessions: the load line and `info
# program` answer as a whole load does; a file the build refuses is refused
# by the first command that needs the IR with the load's message, the
# program then dropped, exit 1; a file changed on disk before that command
# is refused with the changed-on-disk line; a batch session whose first -ex
# command needs the IR opens the program whole. About 1 s.
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
for f in tests/fixtures/example.json tests/fixtures/kwargs.pt2 tests/fixtures/llm_decoder.json; do
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

echo "shape: $pass passed, $fail failed"
[ $fail = 0 ]
