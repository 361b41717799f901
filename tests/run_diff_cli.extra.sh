#!/bin/sh
# run_diff_cli.extra.sh EXDB - the command-line mode `exdb diff A B`: exit
# status 0 when the programs are equal, 1 when they differ, 2 on trouble
# (as diff(1)), with a one-line error on stderr and nothing else there;
# --json answers one JSON object. Prints "diff-cli: N passed, M failed".
exdb=${1:?usage: run_diff_cli.extra.sh EXDB}
case $exdb in /*) ;; *) exdb=$(pwd)/$exdb ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
v1=tests/fixtures/diff/v1.json v2=tests/fixtures/diff/v2.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# case NAME STATUS STDERR-LINE|- FIRST-STDOUT-LINE|- ARGS...
case_() {
    name=$1 want=$2 err=$3 first=$4
    shift 4
    "$exdb" diff "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    why=""
    [ "$rc" = "$want" ] || why="exit $rc, wanted $want"
    if [ "$err" = - ]; then
        [ -s "$tmp/err" ] && why="$why; stderr: $(head -3 "$tmp/err")"
    elif [ "$(cat "$tmp/err")" != "$err" ]; then
        why="$why; stderr: $(head -3 "$tmp/err")"
    fi
    if [ "$first" != - ] && [ "$(head -1 "$tmp/out")" != "$first" ]; then
        why="$why; first line: $(head -1 "$tmp/out")"
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL diff-cli: $name: $why"
    fi
}

case_ equal 0 - "Programs are equal: 23 nodes matched, same module tree." $v1 $v1
case_ differ 1 - "Programs differ: 6 nodes added, 0 removed, 6 changed (23 matched, 1 renamed); 3 signature, 1 call graph, 0 program differences; 5 modules differ." $v1 $v2
case_ no-modules 1 - "Programs differ: 6 nodes added, 0 removed, 6 changed (23 matched, 1 renamed); 3 signature, 1 call graph, 0 program differences." --no-modules $v1 $v2
case_ b-unreadable 2 "diff: tests/fixtures/diff/nosuch.json: No such file or directory" - $v1 tests/fixtures/diff/nosuch.json
printf '{"graph_module": ' >"$tmp/cut.json"
case_ b-malformed 2 "$("$exdb" -batch "$tmp/cut.json" 2>&1 | sed 's/^/diff: /')" - $v1 "$tmp/cut.json"
case_ a-unreadable 2 "exdb diff: tests/fixtures/diff/nosuch.json: No such file or directory" - tests/fixtures/diff/nosuch.json $v1
case_ one-file 2 "exdb diff: two programs to compare (usage: exdb diff [--json] [--no-modules] A B)" - $v1
case_ bad-option 2 "exdb diff: unknown option --x (usage: exdb diff [--json] [--no-modules] A B)" - --x $v1 $v2

# --json: one answer, "equal" false, the status still 1
"$exdb" diff --json $v1 $v2 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && [ ! -s "$tmp/err" ] && python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
o = json.loads(lines[0])
assert o["ok"] and o["diff"]["equal"] is False and o["diff"]["nodes"]["renamed"] == [{"a": "mul", "b": "mul_1"}], o
' "$tmp/out"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL diff-cli: json (exit $rc)"
fi
echo "diff-cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
