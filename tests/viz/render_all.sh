#!/bin/sh
# render_all.sh [EXDB] - renders the unflattener's views of every unflatten
# fixture (no crash at any point of the run), then every real program in
# ../shared/real_pt2:
# the modules view (depth 1 and 2) of all, the flat view (plain and
# --by-module) of those under the render limit, each SVG checked with
# xmllint; and the views of the unflattener: tree, module (the root and
# the deepest module), frame (after 150 events), each as DOT whose node,
# edge and cluster counts (Graphviz's gc, which reads it with agread)
# equal the ones exdb reported, and as SVG that is well-formed with one
# element per node id. Prints "viz: N passed, M failed"; exits non-zero
# on a failure.
exdb=${1:-./exdb}
real=${REAL_PT2:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/real_pt2}
out=$(mktemp -d /tmp/exdb-render-all.XXXXXX)
trap 'rm -rf "$out"' EXIT
pass=0 fail=0

# The unflattener's views of every unflatten fixture: at the start, after
# 3 steps and at the end (where node_map values may have been erased by
# the later phases). Each run must end cleanly (a program that does not
# unflatten must say so) with no sanitizer report.
fixtures=$(cd "$(dirname "$0")/../fixtures" && pwd)
for f in "$fixtures"/unflatten/*.json "$fixtures"/unflatten/*.pt2 "$fixtures"/example.json; do
    [ -f "$f" ] || continue
    log="$out/fixture.log"
    "$exdb" -batch -q "$f" -ex "set on-error continue" \
        -ex "render tree -o $out/fx.tree.dot" -ex "render module \"\" -o $out/fx.root.svg" \
        -ex "render frame -o $out/fx.f0.dot" -ex "step 3" -ex "render frame -o $out/fx.f3.svg" \
        -ex "run" -ex "render frame -o $out/fx.fend.svg" \
        -ex "render frame --window 1 -o $out/fx.fend.html" >"$log" 2>&1
    rc=$?
    if grep -q "Sanitizer\|runtime error" "$log" ||
        { [ $rc -ne 0 ] && ! grep -q "does not unflatten" "$log"; }; then
        fail=$((fail + 1))
        echo "FAIL: fixture $(basename "$f")"
        tail -5 "$log"
    else
        pass=$((pass + 1))
    fi
done

# Names holding what XML forbids (issue 22 item 6): C0 controls (U+000C,
# U+001F) and U+FFFE/U+FFFF in a node name and a module fqn went into SVG
# comments and titles as they were, so no XML parser read the SVG. Every
# view's SVG must parse, and no DOT or HTML may hold such a character.
python3 - "$fixtures/../malformed/_valid.json" "$out/ctrl.json" <<'PY'
import json, sys
s = open(sys.argv[1]).read()
s = s.replace('"linear"', json.dumps("lin\u000cear\u001f\ufffe"))
s = s.replace("L__self__fc,fc,", "L__self__f\\u000cc\\uffff,f\\u000cc\\uffff,")
open(sys.argv[2], "w").write(s)
PY
"$exdb" -batch -q "$out/ctrl.json" -ex "set on-error continue" -ex "render flat -o $out/c.flat.svg" \
    -ex "render flat --by-module -o $out/c.bym.svg" -ex "render modules -o $out/c.mod.svg" \
    -ex "render modules -o $out/c.mod.html" -ex "render flat -o $out/c.flat.dot" \
    -ex "render flat -o $out/c.flat.html" -ex "unflatten run" -ex "render tree -o $out/c.tree.svg" \
    -ex "render module \"\" -o $out/c.root.svg" -ex "render frame -o $out/c.frame.svg" \
    -ex "render tree -o $out/c.tree.dot" >"$out/ctrl.log" 2>&1
rc=$?
bad=""
for f in c.flat.svg c.bym.svg c.mod.svg c.tree.svg c.root.svg c.frame.svg; do
    xmllint --noout "$out/$f" >/dev/null 2>&1 || bad="$bad $f"
done
for f in c.mod.html c.flat.dot c.flat.html c.tree.dot; do
    [ -s "$out/$f" ] && ! LC_ALL=C grep -q "$(printf '[\001-\010\013\014\016-\037]')" "$out/$f" &&
        ! LC_ALL=C grep -q "$(printf '\357\277[\276\277]')" "$out/$f" || bad="$bad $f"
done
if [ $rc -eq 0 ] && [ -z "$bad" ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL: names with XML-forbidden characters (exit $rc):$bad"
    tail -3 "$out/ctrl.log"
fi

if [ ! -d "$real" ]; then
    echo "viz: $real not found: the real-program renders are skipped"
    echo "viz: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
fi

check() { # NAME FILE: the SVG exists and is well-formed
    if [ -s "$2" ] && xmllint --noout "$2" 2>/dev/null; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $1"
    fi
}

# check_dot NAME FILE LOG: agread's counts (gc) equal "Wrote FILE: N nodes,
# E edges, C clusters" in LOG.
check_dot() {
    want=$(grep -F "Wrote $2:" "$3" | sed -E 's/.*: ([0-9]+) nodes, ([0-9]+) edges, ([0-9]+) clusters.*/\1 \2 \3/')
    got="$(gc -n "$2" 2>/dev/null | awk '{print $1}') $(gc -e "$2" 2>/dev/null | awk '{print $1}') $(gc -C "$2" 2>/dev/null | awk '{print $1}')"
    if [ -n "$want" ] && [ "$want" = "$got" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $1: exdb said \"$want\", agread counts \"$got\""
    fi
}

# check_svg_nodes NAME FILE LOG: well-formed, one <g class="node"> per node
# exdb reported, no id twice.
check_svg_nodes() {
    want=$(grep -F "Wrote $2:" "$3" | sed -E 's/.*: ([0-9]+) nodes.*/\1/')
    got=$(xmllint --xpath "count(//*[local-name()='g'][@class='node'])" "$2" 2>/dev/null)
    dups=$(xmllint --xpath "//*[local-name()='g'][@class='node']/@id" "$2" 2>/dev/null |
        tr ' ' '\n' | grep . | sort | uniq -d | head -3)
    if [ -n "$want" ] && [ "$want" = "$got" ] && [ -z "$dups" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $1: $got node elements for $want nodes${dups:+, ids twice: $dups}"
    fi
}

for f in "$real"/*__model.json; do
    [ -f "$f" ] || continue
    m=$(basename "$f" __model.json | sed 's/.*__//')
    log="$out/$m.u.log"
    # the views of the unflattener
    if ! "$exdb" -batch -q \
        -ex "render tree -o $out/$m.tree.dot" \
        -ex "render tree -o $out/$m.tree.svg" \
        -ex "render module \"\" -o $out/$m.root.dot" \
        -ex "render module \"\" -o $out/$m.root.svg" \
        "$f" >"$log" 2>&1; then
        echo "FAIL: $m tree/module"
        cat "$log"
        fail=$((fail + 1))
        continue
    fi
    check_dot "$m tree" "$out/$m.tree.dot" "$log"
    check_svg_nodes "$m tree" "$out/$m.tree.svg" "$log"
    check_dot "$m module <root>" "$out/$m.root.dot" "$log"
    check_svg_nodes "$m module <root>" "$out/$m.root.svg" "$log"
    # the deepest module path in the tree (node ids are the FQNs)
    deep=$(grep -o 'id="[^"<#~]*"' "$out/$m.tree.dot" | sed 's/id="//; s/"$//' |
        awk -F. '{ print NF, $0 }' | sort -n -s -k1,1 | tail -1 | cut -d' ' -f2)
    log2="$out/$m.u2.log"
    if ! "$exdb" -batch -q \
        -ex "render module $deep -o $out/$m.deep.dot" \
        -ex "render module $deep -o $out/$m.deep.svg" \
        -ex "step 150" \
        -ex "render frame -o $out/$m.frame.dot" \
        -ex "render frame -o $out/$m.frame.svg" \
        "$f" >"$log2" 2>&1; then
        echo "FAIL: $m module $deep / frame"
        tail -5 "$log2"
        fail=$((fail + 1))
        continue
    fi
    check_dot "$m module $deep" "$out/$m.deep.dot" "$log2"
    check_svg_nodes "$m module $deep" "$out/$m.deep.svg" "$log2"
    check_dot "$m frame" "$out/$m.frame.dot" "$log2"
    check_svg_nodes "$m frame" "$out/$m.frame.svg" "$log2"
done

for f in "$real"/*__model.json; do
    [ -f "$f" ] || continue
    m=$(basename "$f" __model.json | sed 's/.*__//')
    log="$out/$m.log"
    if ! "$exdb" -batch -q \
        -ex "render modules --depth 1 -o $out/$m.m1.svg" \
        -ex "render modules --depth 2 -o $out/$m.m2.svg" \
        -ex "render flat -o $out/$m.flat.svg" \
        -ex "render flat --by-module -o $out/$m.bym.svg" \
        "$f" >"$log" 2>&1; then
        # A flat view over the limit is refused by design: that is a pass
        # only when the log says so.
        grep -q "render limit" "$log" || { echo "FAIL: $m"; cat "$log"; fail=$((fail + 1)); }
    fi
    check "$m modules depth 1" "$out/$m.m1.svg"
    check "$m modules depth 2" "$out/$m.m2.svg"
    grep -q "render limit" "$log" || {
        check "$m flat" "$out/$m.flat.svg"
        check "$m flat --by-module" "$out/$m.bym.svg"
    }
done
echo "viz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
