#!/bin/sh
# html_chromium.sh EXDB - the HTML viewer in headless Chromium (Debian's
# chromium; scripts/deps.sh test installs it). Every view's page (`render
# flat|modules|tree|frame|run|diff -o F.html`: viz/html_tree.c's one page,
# viz/viewer/modpage.js) of the bundled example, and when ../shared/real_pt2
# is there of resnet18, vit_b_16 and efficientnet_v2_l, of the transformers
# LLM export (the 100k synthetic program's with HTML_100K=1, make bench):
# loads them with `chromium --headless --dump-dom` and checks what the
# page's script recorded on <body>: no script error, a first screen with
# labels a person can read, a search that goes to a hit, an input link
# that goes to the producer, no label wider than its box, nothing asked of
# the network. Each check waits for the page's data-ready marker (chromium
# dumps the DOM once the page is idle under its virtual-time budget),
# never for a time. Prints "html: N passed, M failed"; skips (0 passed, 0
# failed) without chromium.
exdb=${1:-./exdb}
root=$(cd "$(dirname "$0")/../.." && pwd)
real=${REAL_PT2:-$(cd "$root/.." && pwd)/shared/real_pt2}
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
if [ -z "$chromium" ]; then
    echo "html: chromium not installed (scripts/deps.sh test): the viewer tests are skipped"
    echo "html: 0 passed, 0 failed"
    exit 0
fi
out=$(mktemp -d /tmp/exdb-html.XXXXXX)
trap 'rm -rf "$out"' EXIT
pass=0 fail=0
# a hang guard, not a time limit: loading the 100k-node page takes about 40 s
# of wall time on a loaded 2-core machine (60 s cut it off once)
guard=300

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $1"
}

# dom FILE FRAGMENT: the page's DOM after its script ran.
dom() {
    timeout "$guard" "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$out/profile" --virtual-time-budget=3000 \
        --dump-dom "file://$1#$2" 2>/dev/null
}

# body_attr DOM NAME: the value of <body data-NAME="...">.
body_attr() {
    printf '%s\n' "$1" | grep -o '<body[^>]*>' | head -1 |
        sed -n "s/.* data-$2=\"\([^\"]*\)\".*/\1/p"
}

# check_view NAME FILE NODE PRODUCER SEARCH HIT: the page asks nothing of
# the network, and one load of it in a 1400x900 window (the page's
# "#check=SEARCH|NODE", done once its first screen is measured) shows: no
# script error; a first screen with at least 5 labels 9 px or taller and no
# label wider than its box, no box cut by its left edge (a tree's: 8
# parent-child pairs whole on it); a search for SEARCH goes to HIT (selected,
# marked current); NODE's first input link goes to PRODUCER (selected, its
# edges lit).
check_view() {
    name=$1 file=$2
    if [ ! -s "$file" ]; then
        bad "$name: no page"
        return
    fi
    if grep -Eq '(src|href)="(https?:)?//|@import|url\(["'"'"']?(https?:)?//' "$file"; then
        bad "$name: the page loads something from the network"
    else
        ok
    fi
    d=$(timeout "$guard" "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$out/profile" --virtual-time-budget=3000 --window-size=1400,900 \
        --dump-dom "file://$file#check=$5|$3" 2>/dev/null)
    if [ "$(body_attr "$d" ready)" = 1 ] && [ "$(body_attr "$d" readable)" -ge 5 ] 2>/dev/null &&
        [ -z "$(body_attr "$d" errors)" ] && [ "$(body_attr "$d" overflow)" = 0 ]; then
        ok
    else
        bad "$name: the first screen has $(body_attr "$d" readable) readable labels, $(body_attr "$d" overflow) overflowing (errors: $(body_attr "$d" errors))"
    fi
    # no box of the first screen cut by the window's left edge (a flat
    # view wider than the window opened centred on its input cut them);
    # a module tree opens with parent-child pairs whole on it (an indented
    # tree; a layered one put efficientnet_v2_l's root's children screens away)
    if [ "$(body_attr "$d" leftcut)" = 0 ]; then ok; else
        bad "$name: $(body_attr "$d" leftcut) boxes of the first screen cut by its left edge"
    fi
    case $name in *" tree")
        if [ "$(body_attr "$d" pairs)" -ge 8 ] 2>/dev/null; then ok; else
            bad "$name: $(body_attr "$d" pairs) parent-child pairs whole on the first screen (want 8)"
        fi ;;
    esac
    if [ "$(body_attr "$d" hit)" = "$6" ]; then ok; else
        bad "$name: search $5 did not go to $6 (hits: $(body_attr "$d" hits); went to: $(body_attr "$d" hit))"
    fi
    if [ "$(body_attr "$d" link)" = "$4" ] && [ "$(body_attr "$d" linklit)" -ge 1 ] 2>/dev/null; then ok; else
        bad "$name: the first input link of $3 did not go to $4 (went to: $(body_attr "$d" link); lit: $(body_attr "$d" linklit))"
    fi
}

# check_arrow NAME FILE NODE PRODUCER: ArrowUp from NODE goes to PRODUCER.
check_arrow() {
    d=$(dom "$2" "go=$3&key=ArrowUp")
    if [ "$(body_attr "$d" selected)" = "$4" ]; then
        ok
    else
        bad "$1: ArrowUp from $3 did not go to $4 (selected: $(body_attr "$d" selected))"
    fi
}

# check_tree NAME FILE MODULE CHILD NODE PATH: the module view you open and
# close (`render modules -o FILE.html`, viz/html_tree.c): it opens at depth
# 1 (no module open, MODULE's box drawn, CHILD's not); a click on MODULE
# opens it in place (CHILD drawn), a second click closes it; a search for
# NODE opens every module on PATH (the open modules, comma-separated) and
# marks it; no label overflows its box. Prints the milliseconds from the
# start of navigation to the first drawing (data-loadms) and the wall time
# of a headless screenshot; no timed assertion (make bench has the row).
check_tree() {
    name=$1 file=$2 mod=$3 child=$4 node=$5 path=$6
    if [ ! -s "$file" ]; then
        bad "$name: no page"
        return
    fi
    if grep -Eq '(src|href)="(https?:)?//' "$file" || grep -q '@import' "$file"; then
        bad "$name: the page loads something from the network"
    else
        ok
    fi
    d=$(dom "$file" "")
    if [ "$(body_attr "$d" ready)" = 1 ] && [ -z "$(body_attr "$d" errors)" ] &&
        [ -z "$(body_attr "$d" open)" ] && printf '%s' "$d" | grep -q "id=\"m:$mod\"" &&
        ! printf '%s' "$d" | grep -q "id=\"m:$child\""; then
        ok
    else
        bad "$name: not opened at depth 1 (errors: $(body_attr "$d" errors); open: $(body_attr "$d" open))"
    fi
    echo "$name: $(body_attr "$d" modules) modules, drawn $(body_attr "$d" loadms) ms after navigation started"
    d=$(dom "$file" "click=$mod")
    if [ "$(body_attr "$d" open)" = "$mod" ] && printf '%s' "$d" | grep -q "id=\"m:$child\"" &&
        [ -z "$(body_attr "$d" errors)" ]; then
        ok
    else
        bad "$name: a click on $mod did not open it (open: $(body_attr "$d" open); errors: $(body_attr "$d" errors))"
    fi
    d=$(dom "$file" "click=$mod&click=$mod")
    if [ -z "$(body_attr "$d" open)" ] && ! printf '%s' "$d" | grep -q "id=\"m:$child\"" &&
        [ -z "$(body_attr "$d" errors)" ]; then
        ok
    else
        bad "$name: a second click on $mod did not close it (open: $(body_attr "$d" open))"
    fi
    d=$(dom "$file" "search=$node&measure=1")
    if [ "$(body_attr "$d" open)" = "$path" ] && [ "$(body_attr "$d" selected)" = "$node" ] &&
        printf '%s' "$d" | grep -q "<g class=\"n hit cur[^>]* id=\"$node\""; then
        ok
    else
        bad "$name: search $node did not open $path (open: $(body_attr "$d" open); selected: $(body_attr "$d" selected))"
    fi
    if [ "$(body_attr "$d" overflow)" = 0 ]; then
        ok
    else
        bad "$name: $(body_attr "$d" overflow) labels overflow their boxes"
    fi
    t0=$(date +%s.%N)
    if timeout "$guard" "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$out/profile" --window-size=1200,800 --screenshot="$out/tree.png" \
        "file://$file#search=$node" >/dev/null 2>&1 && [ "$(head -c 4 "$out/tree.png" | tail -c 3)" = PNG ]; then
        ok
        echo "$name: a screenshot of the page searched for $node in $(echo "$(date +%s.%N) - $t0" | bc) s"
    else
        bad "$name: no screenshot"
    fi
}

# check_viewer NAME FILE NODE PRODUCER: the module view's first screen in a
# 1400x900 window shows labels a person can read (at least 5 texts 9 px or
# taller inside the view); NODE's panel links its inputs and a click on the
# first goes to PRODUCER (selected, its edges highlighted: data-lit); the
# keyboard walks back up (ArrowUp) from NODE to PRODUCER too; expand all
# opens modules without a script error.
check_viewer() {
    check_view "$@" "$3" "$3" # the first screen, a search, the input link
    check_arrow "$@"
    name=$1 file=$2
    d=$(dom "$file" "expand=1&measure=1")
    if [ -n "$(body_attr "$d" open)" ] && [ -z "$(body_attr "$d" errors)" ] && [ "$(body_attr "$d" overflow)" = 0 ]; then
        ok
    else
        bad "$name: expand all (open: $(body_attr "$d" open | cut -c1-80); overflow: $(body_attr "$d" overflow); errors: $(body_attr "$d" errors))"
    fi
}

# check_100k SYNTH: the 100k-node synthetic program's pages (scripts/gen_synth.py,
# as make bench makes it): the module view, the flat view (141k nodes in
# sections of 1000, the first open) and the tree (21k modules). Each load
# of these 55-61 MB pages takes 10-40 s of a busy 2-core machine, so make
# bench runs them (HTML_100K=1: scripts/bench/html_100k.sh), not make test.
check_100k() {
    synth=$1
    "$exdb" -batch -q "$synth" -ex "render modules -o $out/synth.html" -ex "render flat -o $out/synthflat.html" \
        -ex "render tree -o $out/synthtree.html" >"$out/log" 2>&1 || { bad "synth_100k: render failed"; cat "$out/log"; }
    check_tree "synth_100k modules" "$out/synth.html" layers layers.0 addmm_500 \
        layers,layers.83,layers.83.attn,layers.83.attn.v_proj
    check_viewer "synth_100k modules" "$out/synth.html" view_1832 getitem_498
    check_view "synth_100k flat" "$out/synthflat.html" view_2 view_1 addmm_500 addmm_500
    check_view "synth_100k tree" "$out/synthtree.html" layers.83 layers layers.83.attn.v_proj layers.83.attn.v_proj
}

if [ -n "$HTML_100K" ]; then
    synth=${2:-$root/build/bench/synth_100k.json}
    if [ ! -s "$synth" ]; then
        synth=$out/synth_100k.json
        python3 "$root/scripts/gen_synth.py" --nodes 100000 --out "$synth" >/dev/null 2>&1
    fi
    check_100k "$synth"
    echo "html (100k): $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
fi

ex=$root/tests/fixtures/example.json
if ! "$exdb" -batch -q "$ex" -ex "render flat -o $out/flat.html" -ex "render tree -o $out/tree.html" \
    -ex "step 60" -ex "render frame -o $out/frame.html" >"$out/log" 2>&1; then
    bad "example: render failed"
    cat "$out/log"
fi
# the example: flat (its 102 nodes in one graph), tree (the unflattened
# module hierarchy, parent to child), frame (the stack, the window, the
# frame's graph, after 60 steps), flat --by-module (module boxes, opened)
check_view "example flat" "$out/flat.html" mm_1 _softmax addmm_3 addmm_3
check_arrow "example flat" "$out/flat.html" mm_1 _softmax
check_view "example tree" "$out/tree.html" encoder.layers encoder encoder.layers.0.attn encoder.layers.0.attn
check_view "example frame" "$out/frame.html" frame0 frame1 frame0 frame0
check_arrow "example frame" "$out/frame.html" frame0 frame1
"$exdb" -batch -q "$ex" -ex "render flat --by-module -o $out/bym.html" >"$out/log" 2>&1 || { bad "example: --by-module failed"; cat "$out/log"; }
check_view "example flat --by-module" "$out/bym.html" mm_1 _softmax relu relu

# real programs: each view's first screen, a search, an input link
# (resnet18, vit_b_16, efficientnet_v2_l: views_of NAME FILE FLATNODE
# PRODUCER SEARCH TREENODE PARENT STEPS; the frame after STEPS steps, past
# the placeholders, inside a module)
views_of() {
    "$exdb" -batch -q "$2" -ex "render flat -o $out/$1flat.html" -ex "render tree -o $out/$1tree.html" \
        -ex "step $8" -ex "render frame -o $out/$1frame.html" >"$out/log" 2>&1 ||
        { bad "$1: render failed"; cat "$out/log"; }
    check_view "$1 flat" "$out/$1flat.html" "$3" "$4" "$5" "$5"
    check_view "$1 tree" "$out/$1tree.html" "$6" "$7" "$6" "$6"
    check_view "$1 frame" "$out/$1frame.html" frame0 frame1 frame0 frame0
}
if [ -d "$real" ]; then
    r18=$real/TheCBaH__pytorch.models.pt2__resnet18__model.json
    views_of resnet18 "$r18" relu_2 add convolution_7 layer2.0.downsample layer2.0 140
    views_of vit_b_16 "$real/TheCBaH__pytorch.models.pt2__vit_b_16__model.json" gelu_3 view_82 addmm_20 \
        encoder.layers.encoder_layer_5 encoder.layers 200
    views_of efficientnet_v2_l "$real/TheCBaH__pytorch.models.pt2__efficientnet_v2_l@209890a1__model.json" \
        sigmoid_31 conv2d_191 conv2d_100 features.3 features 1600
    "$exdb" -batch -q "$r18" -ex "render module layer1.0 -o $out/r18.html" >"$out/log" 2>&1 ||
        { bad "resnet18: render module failed"; cat "$out/log"; }
    check_view "resnet18 module layer1.0" "$out/r18.html" relu bn1 conv1 conv1
    # an SVG file opened in a browser shows where the graph starts, never an
    # empty corner (resnet18's flat view by module: the input is 1,950 px
    # from the left) or the middle of a tree (efficientnet_v2_l's module
    # tree, drawn left to right, has its root 29,000 px down)
    eff=$real/TheCBaH__pytorch.models.pt2__efficientnet_v2_l@209890a1__model.json
    "$exdb" -batch -q "$r18" -ex "render flat --by-module -o $out/r18bym.svg" >"$out/log" 2>&1 ||
        { bad "resnet18: render flat --by-module -o .svg failed"; cat "$out/log"; }
    "$exdb" -batch -q "$eff" -ex "render tree -o $out/efftree.svg" >"$out/log" 2>&1 ||
        { bad "efficientnet_v2_l: render tree -o .svg failed"; cat "$out/log"; }
    for pair in r18bym:p_conv1_weight efftree:"&lt;root&gt;"; do
        f=$out/${pair%%:*}.svg
        d=$(timeout "$guard" "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
            --user-data-dir="$out/profile" --virtual-time-budget=3000 --window-size=1400,900 \
            --dump-dom "file://$f" 2>/dev/null)
        svgtag=$(printf '%s\n' "$d" | grep -o '<svg[^>]*>' | head -1)
        n=$(printf '%s' "$svgtag" | sed -n 's/.* data-readable="\([0-9]*\)".*/\1/p')
        st=$(printf '%s' "$svgtag" | sed -n 's/.* data-start="\([^"]*\)".*/\1/p')
        if [ "${n:-0}" -ge 5 ] && [ "$st" = "${pair#*:}" ]; then ok; else
            bad "${pair%%:*}.svg opened in a browser: ${n:-no} readable labels, starts at ${st:-nothing}"
        fi
    done
fi

"$exdb" -batch -q "$ex" -ex "render modules -o $out/mods.html" -ex "render modules --depth 2 -o $out/mods2.html" \
    >"$out/log" 2>&1 || { bad "example: render modules failed"; cat "$out/log"; }
check_tree "example modules" "$out/mods.html" encoder encoder.layers addmm_3 \
    encoder,encoder.layers,encoder.layers.0,encoder.layers.0.attn,encoder.layers.0.attn.v
check_viewer "example modules" "$out/mods.html" relu addmm_4
# render run -o F.html: the outliner replayed; event 78 copies %relu (its
# module opened, the node selected, the frame stack shown); next DEDUP
# goes to the call it redirected
"$exdb" -batch -q "$ex" -ex "render run -o $out/run.html" >"$out/log" 2>&1 || { bad "render run failed"; cat "$out/log"; }
d=$(dom "$out/run.html" "event=78")
if [ "$(body_attr "$d" eventkind)" = COPY ] && [ "$(body_attr "$d" selected)" = relu ] &&
    printf '%s' "$d" | grep -Eq 'frame stack: #0 encoder.layers.0.act +#1 encoder.layers.0' &&
    [ -z "$(body_attr "$d" errors)" ]; then ok; else
    bad "render run: event 78 (selected: $(body_attr "$d" selected); errors: $(body_attr "$d" errors))"
fi
d=$(dom "$out/run.html" "nextkind=DEDUP")
if [ "$(body_attr "$d" eventkind)" = DEDUP ] && [ "$(body_attr "$d" selected)" = "encoder.layers.0.act@1" ]; then ok; else
    bad "render run: next DEDUP (event $(body_attr "$d" event), selected: $(body_attr "$d" selected))"
fi
d=$(dom "$out/mods2.html" "")
if [ "$(body_attr "$d" open)" = "embed,encoder,head" ] && [ -z "$(body_attr "$d" errors)" ]; then
    ok
else
    bad "example modules --depth 2: not opened to depth 2 (open: $(body_attr "$d" open))"
fi
# render tree -o F.html of 80 module_call_graph entries no node runs: a
# run of 16+ empty sibling modules is one box (20 boxes, not 84), as in
# DOT; a search for a module inside a run (m40 of m35 .. m79) goes to the
# run's box, whose panel lists the paths; render module blk's page too
mcg=$root/tests/fixtures/modgraph/mcg_runs.json
"$exdb" -batch -q "$mcg" -ex "unflatten run" -ex "render tree -o $out/mcg.html" \
    -ex "render module blk -o $out/mcgblk.html" >"$out/log" 2>&1 ||
    { bad "mcg_runs: render tree failed"; cat "$out/log"; }
d=$(dom "$out/mcg.html" "search=m40")
if [ "$(body_attr "$d" shown)" = 20 ] && [ "$(body_attr "$d" selected)" = "m35~empty" ] &&
    printf '%s' "$d" | grep -q '^modules: m35 m36 m37' && [ -z "$(body_attr "$d" errors)" ] &&
    grep -q '"blk.m0~empty",[^]]*modules: blk.m0 blk.m1 ' "$out/mcgblk.html"; then ok; else
    bad "mcg_runs tree page: $(body_attr "$d" shown) boxes, search m40 went to $(body_attr "$d" selected) (errors: $(body_attr "$d" errors))"
fi
# a search that matches ordinary boxes (small.m20 .. small.m29) lists the
# run boxes whose paths match too (blk.m2 in blk's run), by the same rules
d=$(dom "$out/mcg.html" "search=m2")
if [ "$(body_attr "$d" ready)" = 1 ] && [ "$(body_attr "$d" hits)" = 11 ] &&
    printf '%s' "$d" | grep -q 'data-go="blk.m0~empty">m0 .. m19 (blk.m2)<' &&
    printf '%s' "$d" | grep -q 'data-go="small.m29">small.m29<' && [ -z "$(body_attr "$d" errors)" ]; then ok; else
    bad "mcg_runs tree page: search m2 found $(body_attr "$d" hits) (want 11: small.m20 .. small.m29 and blk's run box)"
fi
if [ -d "$real" ]; then
    vit=$real/TheCBaH__pytorch.models.pt2__vit_b_16__model.json
    "$exdb" -batch -q "$vit" -ex "render modules -o $out/vit.html" >"$out/log" 2>&1 ||
        { bad "vit_b_16: render modules failed"; cat "$out/log"; }
    check_tree "vit_b_16 modules" "$out/vit.html" encoder encoder.layers addmm_20 \
        encoder,encoder.layers,encoder.layers.encoder_layer_5,encoder.layers.encoder_layer_5.self_attention
    check_viewer "vit_b_16 modules" "$out/vit.html" gelu_3 view_82
    "$exdb" -batch -q "$r18" -ex "render modules -o $out/r18mods.html" >"$out/log" 2>&1 ||
        { bad "resnet18: render modules failed"; cat "$out/log"; }
    check_viewer "resnet18 modules" "$out/r18mods.html" relu_2 add
    # render diff -o F.html: the other program's module view coloured by the
    # diff, the changed modules listed; a changed node's panel shows A's node
    "$exdb" -batch -q "$r18" -ex "render diff $real/TheCBaH__pytorch.models.pt2__resnet18@209890a1__model.json -o $out/diff.html" \
        >"$out/log" 2>&1 || { bad "resnet18: render diff -o .html failed"; cat "$out/log"; }
    d=$(dom "$out/diff.html" "")
    if [ "$(body_attr "$d" changed)" -ge 10 ] 2>/dev/null && [ -z "$(body_attr "$d" errors)" ] &&
        printf '%s' "$d" | grep -q 'fill="#fdd0a2"'; then ok; else
        bad "resnet18 diff page: no changed modules (changed: $(body_attr "$d" changed); errors: $(body_attr "$d" errors))"
    fi
    d=$(dom "$out/diff.html" "go=conv2d&measure=1")
    if printf '%s' "$d" | grep -A3 '<pre id="dtext">' | grep -q 'changed (target args); in A:' &&
        [ "$(body_attr "$d" overflow)" = 0 ]; then ok; else
        bad "resnet18 diff page: conv2d's panel does not show A's node (overflow: $(body_attr "$d" overflow))"
    fi
    # the stride of layer2.0.downsample's convolution: a search over the
    # arguments finds it, and its panel names it
    # ... and shows its line of `print code`, in the module view and the flat page
    for page in r18mods resnet18flat; do
        d=$(dom "$out/$page.html" "go=convolution_7")
        if printf '%s' "$d" | grep -A12 '<pre id="dtext">' | grep -q 'stride=\[2, 2\]' &&
            printf '%s' "$d" | grep -A40 '<pre id="dtext">' | grep -A1 '^print code:' |
            grep -q '^  convolution_7 = torch.ops.aten.convolution.default(relu_4, p_layer2_0_downsample_0_weight, None, \[2, 2\]'; then
            ok
        else
            bad "resnet18 $page: convolution_7's panel does not name its stride or show its print code line"
        fi
    done
    d=$(dom "$out/r18mods.html" "search=stride=[2, 2]")
    if [ "$(body_attr "$d" hits)" -ge 3 ] 2>/dev/null; then ok; else
        bad "resnet18 modules: a search for stride=[2, 2] found $(body_attr "$d" hits) nodes"
    fi
fi
# a transformers LLM export (scripts/make_llm.py: LlamaForCausalLM from a
# config, 2 decoder layers): the module view and the flat page
llm=$root/tests/fixtures/llm_decoder.json
"$exdb" -batch -q "$llm" -ex "render modules -o $out/llm.html" -ex "render flat -o $out/llmflat.html" \
    >"$out/log" 2>&1 || { bad "llm: render failed"; cat "$out/log"; }
check_tree "llm modules" "$out/llm.html" model model.layers silu \
    model,model.layers,model.layers.0,model.layers.0.mlp,model.layers.0.mlp.act_fn
check_viewer "llm modules" "$out/llm.html" silu linear_4
check_view "llm flat" "$out/llmflat.html" silu linear_4 silu silu
"$exdb" -batch -q "$llm" -ex "render tree -o $out/llmtree.html" -ex "step 60" -ex "render frame -o $out/llmframe.html" \
    >"$out/log" 2>&1 || { bad "llm: render tree/frame failed"; cat "$out/log"; }
check_view "llm tree" "$out/llmtree.html" model.layers model model.layers.0.mlp model.layers.0.mlp
check_view "llm frame" "$out/llmframe.html" frame0 frame1 frame0 frame0
# a screenshot of the page as a user opens it
if timeout "$guard" "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$out/profile" --window-size=1200,800 --virtual-time-budget=3000 \
    --screenshot="$out/shot.png" "file://$out/flat.html#search=addmm" >/dev/null 2>&1 &&
    [ "$(head -c 4 "$out/shot.png" | tail -c 3)" = PNG ] && [ "$(wc -c <"$out/shot.png")" -gt 10000 ]; then
    ok
else
    bad "screenshot"
fi
echo "html: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
