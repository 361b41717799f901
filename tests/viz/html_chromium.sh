#!/bin/sh
# html_chromium.sh EXDB - the HTML viewer in headless Chromium (Debian's
# chromium; scripts/deps.sh test installs it). Renders pages of the bundled
# example (flat, tree, frame) and, when ../shared/real_pt2 is there, of
# resnet18's module layer1.0; loads them with `chromium --headless
# --dump-dom` and checks what the page's script recorded on <body>
# (viz/html.c): it ran without errors, a search finds the node and zooms to
# it (centred, marked), a click on
# a node's shape shows its details, zooming changes the view box, the
# fonts the SVG names are installed and no label overflows its shape. Also
# takes a screenshot and checks the page needs no network.
# Prints "html: N passed, M failed"; skips (0 passed, 0 failed) without
# chromium.
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

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $1"
}

# dom FILE FRAGMENT: the page's DOM after its script ran.
dom() {
    timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$out/profile" --virtual-time-budget=3000 \
        --dump-dom "file://$1#$2" 2>/dev/null
}

# body_attr DOM NAME: the value of <body data-NAME="...">.
body_attr() {
    printf '%s\n' "$1" | grep -o '<body[^>]*>' | head -1 |
        sed -n "s/.* data-$2=\"\([^\"]*\)\".*/\1/p"
}

# check_page NAME FILE NODE SEARCH DETAIL [ZOOM]: search SEARCH finds NODE
# and goes to it (the view box centred on it, at most ZOOM times the whole
# picture's width: 1 when it is small); a click on NODE shows DETAIL in
# the details panel; zoom works.
check_page() {
    name=$1 file=$2 node=$3 search=$4 detail=$5
    if [ ! -s "$file" ]; then
        bad "$name: no page"
        return
    fi
    # self-contained: no scripts, styles or images from elsewhere
    if grep -Eq '(src|href)="(https?:)?//' "$file" || grep -q '@import' "$file"; then
        bad "$name: the page loads something from the network"
    else
        ok
    fi
    d=$(dom "$file" "search=$search")
    if [ "$(body_attr "$d" ready)" = 1 ] && [ -z "$(body_attr "$d" errors)" ]; then
        ok
    else
        bad "$name: the script did not run cleanly (errors: $(body_attr "$d" errors))"
    fi
    hits=$(body_attr "$d" hits)
    if [ "${hits:-0}" -ge 1 ] && printf '%s' "$d" | grep -q "<g id=\"$node\" class=\"node hit"; then
        ok
    else
        bad "$name: search \"$search\" did not mark $node (hits: ${hits:-none})"
    fi
    # the search went to the match: zoomed in, centred on it, marked current
    vb=$(body_attr "$d" viewbox) home=$(body_attr "$d" home)
    at=$(grep -A12 "<g id=\"$node\" class=\"node\"" "$file" | grep -m1 -o '<text[^>]* x="[^"]*" y="[^"]*"' |
        sed 's/.* x="\([^"]*\)" y="\([^"]*\)".*/\1 \2/')
    tr=$(grep -o 'id="graph0"[^>]*' "$file" | sed 's/.*translate(\([^ ]*\) \([^)]*\)).*/\1 \2/')
    if echo "$vb $home $at $tr" | awk -v zoom="${6:-1}" '{ cx = $1 + $3 / 2; cy = $2 + $4 / 2; x = $9 + $11; y = $10 + $12
            exit !(NF == 12 && $3 <= $7 * zoom && cx - x < 2 && x - cx < 2 && cy - y < 30 && y - cy < 30) }' &&
        printf '%s' "$d" | grep -q "<g id=\"$node\" class=\"node hit cur"; then
        ok
    else
        bad "$name: search \"$search\" did not zoom to $node (view box $vb of $home, node at $at + $tr)"
    fi
    d=$(dom "$file" "click=$node")
    if [ "$(body_attr "$d" selected)" = "$node" ] &&
        printf '%s' "$d" | grep -A3 '<pre id="dtext">' | grep -qF -- "$detail"; then
        ok
    else
        bad "$name: a click on $node did not show its details ($detail)"
    fi
    # the fonts the SVG names are installed (Graphviz measured the labels
    # with them, the browser draws them), and every label fits its shape
    fonts=$(grep -o 'font-family="[^",]*' "$file" | sed 's/.*="//' | sort -u)
    missing=$(printf '%s\n' "$fonts" | while IFS= read -r f; do
        [ -z "$f" ] || fc-list "$f" family 2>/dev/null | grep -q . || printf ' "%s"' "$f"
    done)
    if [ -n "$fonts" ] && [ -z "$missing" ]; then
        ok
    else
        bad "$name: the SVG names fonts that are not installed:${missing:- none named}"
    fi
    d=$(dom "$file" "measure=1")
    if [ "$(body_attr "$d" overflow)" = 0 ]; then
        ok
    else
        bad "$name: $(body_attr "$d" overflow) labels overflow their shapes"
    fi
    d=$(dom "$file" "zoom=2")
    vb=$(body_attr "$d" viewbox) home=$(body_attr "$d" home)
    if [ -n "$vb" ] && [ "$vb" != "$home" ]; then
        ok
    else
        bad "$name: zoom did not change the view box ($home -> $vb)"
    fi
}

ex=$root/tests/fixtures/example.json
if ! "$exdb" -batch -q "$ex" -ex "render flat -o $out/flat.html" -ex "render tree -o $out/tree.html" \
    -ex "step 60" -ex "render frame -o $out/frame.html" >"$out/log" 2>&1; then
    bad "example: render failed"
    cat "$out/log"
fi
check_page "example flat" "$out/flat.html" addmm addm "value: f32[8, 32] torch.float32"
check_page "example tree" "$out/tree.html" encoder encod "InterpreterModule"
check_page "example frame" "$out/frame.html" frame0 frame0 "#0 "

if [ -d "$real" ]; then
    r18=$real/TheCBaH__pytorch.models.pt2__resnet18__model.json
    "$exdb" -batch -q "$r18" -ex "render module layer1.0 -o $out/r18.html" >"$out/log" 2>&1 ||
        { bad "resnet18: render failed"; cat "$out/log"; }
    check_page "resnet18 module layer1.0" "$out/r18.html" conv1 conv "child module: layer1.0.conv1"
    # a big picture: the search zooms in to the node (it only panned)
    "$exdb" -batch -q "$r18" -ex "render flat -o $out/r18flat.html" >"$out/log" 2>&1 ||
        { bad "resnet18: render flat failed"; cat "$out/log"; }
    check_page "resnet18 flat" "$out/r18flat.html" convolution_12 convolution_12 \
        "value: f32[1, 256, 14, 14] torch.float32" 0.1
fi

# a screenshot of the page as a user opens it
if timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$out/profile" --window-size=1200,800 --virtual-time-budget=3000 \
    --screenshot="$out/shot.png" "file://$out/flat.html#search=addmm" >/dev/null 2>&1 &&
    [ "$(head -c 4 "$out/shot.png" | tail -c 3)" = PNG ] && [ "$(wc -c <"$out/shot.png")" -gt 10000 ]; then
    ok
else
    bad "screenshot"
fi
echo "html: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
