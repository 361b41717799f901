#!/bin/sh
# run_viewer.extra.sh EXDB - the viewer's own code (viz/viewer/): it passes
# scripts/lint_viewer.sh, and each page exdb writes carries its script and
# style byte for byte (the build embeds them: scripts/embed.sh); exports
# stay readable (a big flat view falls back to the module view, saying so;
# a bitmap too large is refused by exdb, not Graphviz). Prints
# "viewer: N passed, M failed"; tests/run.sh runs it.
exdb=${1:-./exdb}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d /tmp/exdb-viewer.XXXXXX)
trap 'rm -rf "$out"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $1"
}
if "$root/scripts/lint_viewer.sh" >"$out/lint" 2>&1; then ok; else
    bad "lint: $(cat "$out/lint")"
fi
ex=$root/tests/fixtures/example.json
"$exdb" -batch -q "$ex" -ex "render flat -o $out/flat.html" -ex "render modules -o $out/mods.html" \
    >"$out/log" 2>&1 || bad "render failed: $(cat "$out/log")"
# holds PAGE FILE: FILE's bytes are in PAGE
holds() {
    python3 -c 'import sys; sys.exit(open(sys.argv[2], "rb").read() not in open(sys.argv[1], "rb").read())' "$1" "$2"
}
for pair in flat:modpage.js flat:modpage.css flat:base.css flat:base.js mods:modpage.js mods:modpage.css mods:base.css mods:base.js; do
    page=$out/${pair%%:*}.html file=$root/viz/viewer/${pair#*:}
    if [ -s "$page" ] && holds "$page" "$file"; then ok; else
        bad "${pair%%:*}.html does not hold viz/viewer/${pair#*:} (rebuild: make)"
    fi
done
# A flat view too big for dot (a 3,000-op synthetic program: 4,191 nodes)
# is drawn as the module view with a note naming the options, never
# silently by sfdp; a bitmap too large for cairo is refused by exdb, with
# nothing written.
big=$out/big.json
if python3 "$root/scripts/gen_synth.py" --nodes 3000 --out "$big" >/dev/null 2>&1; then
    "$exdb" -batch -q "$big" -ex "render flat -o $out/big.svg" >"$out/log" 2>&1
    if grep -q "^note: 4191 nodes are too many to draw flat: drew the module view" "$out/log" &&
        grep -q "layout sfdp" "$out/log" && grep -q "^Wrote $out/big.svg: [0-9]* nodes" "$out/log" &&
        [ -s "$out/big.svg" ]; then ok; else
        bad "flat view of 4,191 nodes: no module view with a note: $(cat "$out/log")"
    fi
    "$exdb" -batch -q "$big" -ex "render flat --force --layout sfdp -o $out/big.png" >"$out/log" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && [ ! -e "$out/big.png" ] && grep -q "big.png: the picture would be [0-9]* x [0-9]* px, too large for a bitmap" "$out/log" &&
        ! grep -q "cairo-renderer" "$out/log"; then ok; else
        bad "a too large PNG: rc $rc, $(cat "$out/log")"
    fi
else
    bad "scripts/gen_synth.py failed"
fi
# unfold FILE: FILE with cgraph's line continuations (a backslash ending
# a line inside a long string, at a column that depends on the text before
# it, such as the program's path in the label) joined, so grep sees whole
# strings wherever the test runs.
unfold() {
    sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' "$1"
}
# render frame at a SINK event (torch-made scenario attr_as_submod_input:
# the root's buffer const stays an input of layers.0, then sinks at the
# root): the kept placeholder orange with why in its tooltip, the get_attr
# it became bold, naming the placeholder.
sc=$root/tests/conformance/corpus/scenarios/attr_as_submod_input__strict/program.pt2
"$exdb" -batch -q "$sc" -ex "unflatten run" -ex "goto 11" -ex "render frame -o $out/sink11.dot" \
    -ex "goto 13" -ex "render frame -o $out/sink13.dot" >"$out/log" 2>&1
unfold "$out/sink11.dot" >"$out/sink11.txt"
unfold "$out/sink13.dot" >"$out/sink13.txt"
if grep -q 'b_const.*fillcolor="#fd8d3c"' "$out/sink11.txt" && grep -q 'kept as an input' "$out/sink11.txt" &&
    grep -q 'owned by an enclosing module, which passes it in' "$out/sink11.txt" &&
    grep -q '1 stayed input' "$out/sink11.txt"; then ok; else
    bad "render frame at SINK layers.0 does not mark the kept placeholder: $(cat "$out/log")"
fi
if grep -q 'SINK made it from placeholder b_const' "$out/sink13.txt" &&
    grep -q '1 placeholder became get_attr' "$out/sink13.txt"; then ok; else
    bad "render frame at SINK <root> does not mark the get_attr it made"
fi
# render diff --hide: the same list as render flat, on both programs
real=${REAL_PT2:-$(cd "$root/.." && pwd)/shared/real_pt2}
a=$real/TheCBaH__pytorch.models.pt2__resnet18__model.json b=$real/TheCBaH__pytorch.models.pt2__resnet18@209890a1__model.json
if [ -f "$a" ] && [ -f "$b" ]; then
    "$exdb" -batch -q "$b" -ex "render diff $a --hide state,getitems,dead -o $out/dh.dot" \
        -ex "render diff $a -o $out/d.dot" >"$out/log" 2>&1
    unfold "$out/dh.dot" >"$out/dh.txt"
    if grep -q 'hidden: 62 parameters, 60 buffers, 21 getitems' "$out/dh.txt" &&
        ! grep -Eq '^[[:space:]]*p_conv1_weight[[:space:]]*\[' "$out/dh.dot" &&
        grep -Eq '^[[:space:]]*p_conv1_weight[[:space:]]*\[' "$out/d.dot" &&
        [ "$(grep -c -- '->' "$out/dh.dot")" -ge 60 ]; then ok; else
        bad "render diff --hide: $(cat "$out/log")"
    fi
fi
echo "viewer: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
