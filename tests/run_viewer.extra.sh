#!/bin/sh
# run_viewer.extra.sh EXDB - the viewer's own code (viz/viewer/): it passes
# scripts/lint_viewer.sh, and each page exdb writes carries its script and
# style byte for byte (the build embeds them: scripts/embed.sh). Prints
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
for pair in flat:svgpage.js flat:svgpage.css mods:modpage.js mods:modpage.css; do
    page=$out/${pair%%:*}.html file=$root/viz/viewer/${pair#*:}
    if [ -s "$page" ] && holds "$page" "$file"; then ok; else
        bad "${pair%%:*}.html does not hold viz/viewer/${pair#*:} (rebuild: make)"
    fi
done
echo "viewer: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
