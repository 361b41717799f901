#!/bin/sh
# run_notes.extra.sh EXDB - notes are not output (issue 25, item 6): what
# the unflatten prepasses say ("note: unflatten removes N dead nodes
# first ...") goes to standard error once per run, and into --json's own
# "notes" field; what `print code` / `print readable` write is exactly code,
# so `pipe print code | python -` works. Prints "notes: N passed, M failed".
exdb=${1:?usage: run_notes.extra.sh EXDB}
case $exdb in /*) ;; *) exdb=$(pwd)/$exdb ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
tmp=$(mktemp -d /tmp/exdb-notes-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() {
    pass=$((pass + 1))
    echo "ok   notes: $1"
}
bad() {
    fail=$((fail + 1))
    echo "FAIL notes: $1"
}
check() { # WHAT COMMAND...: the command must succeed
    what=$1
    shift
    if "$@"; then ok "$what"; else bad "$what"; fi
}
prog=tests/conformance/corpus/scenarios/dead_code__strict/program.pt2
note="note: unflatten removes 4 dead nodes first"

# the code a pipe gets is code: the first line, no note, and Python parses it
"$exdb" -q "$prog" -batch \
    -ex "pipe print readable module '' | cat > $tmp/readable.py" \
    -ex "pipe print code module '' | cat > $tmp/code.py" \
    -ex "print readable module ''" >"$tmp/out" 2>"$tmp/err"
# a run stepped by hand: the note once, at its start, before the stop
"$exdb" -q "$prog" -batch -ex "break module c" -ex "run" -ex "continue" \
    -ex "print readable module ''" >"$tmp/out2" 2>"$tmp/err2"
check "the pipe of print readable starts with the class" \
    test "$(head -1 "$tmp/readable.py")" = "class UnflattenedModule(torch.nn.Module):"
check "no note in what print code / readable write" \
    sh -c "! grep -q '^note' '$tmp/readable.py' '$tmp/code.py' '$tmp/out' '$tmp/out2'"
check "print readable module '' on stdout: the class right after the load's line" \
    test "$(sed -n 2p "$tmp/out")" = "class UnflattenedModule(torch.nn.Module):"
check "print code module '' is Python" \
    python3 -c "import ast, sys; ast.parse(open(sys.argv[1]).read())" "$tmp/code.py"
check "the note is on standard error, once per run" \
    test "$(grep -c "^$note" "$tmp/err")" = 1
check "a stepped run: the note once" test "$(grep -c "^$note" "$tmp/err2")" = 1
# --json: the note in "notes", never in "output"
"$exdb" -q --json "$prog" -batch -ex "print readable module ''" >"$tmp/json" 2>"$tmp/jerr"
check "--json: the note in its own field, not in the output" python3 -c "
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])][-1]
assert a['ok'] and a['notes'][0].startswith('unflatten removes 4 dead nodes'), a
assert a['output'].startswith('class UnflattenedModule'), a['output'][:80]
assert open(sys.argv[2]).read() == '', 'stderr'
" "$tmp/json" "$tmp/jerr"
echo "notes: $pass passed, $fail failed"
[ "$fail" = 0 ]
