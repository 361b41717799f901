#!/bin/sh
# html_100k.sh - make bench runs the HTML viewer's checks on the 100k
# synthetic program's pages (tests/viz/html_chromium.sh with HTML_100K=1:
# the module, flat and tree views' first screens, a search, an input link),
# too slow for make test (10-40 s a load on a busy 2-core machine), and
# prints how long they took. Skipped without chromium.
out=${1:-build/bench}
command -v chromium >/dev/null 2>&1 || { echo "(html 100k checks: no chromium, skipped)"; exit 0; }
echo
t0=$(date +%s)
HTML_100K=1 tests/viz/html_chromium.sh ./exdb "$out/synth_100k.json" | sed 's/^/  /'
echo "html 100k checks: $(($(date +%s) - t0)) s"
