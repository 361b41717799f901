#!/bin/sh
# lint_viewer.sh [FILE...] - checks the viewer's JavaScript and CSS
# (viz/viewer/, embedded into exdb by scripts/embed.sh): every script
# parses (node --check; skipped without node), runs in strict mode and
# asks nothing of the network (no fetch, XMLHttpRequest, WebSocket,
# EventSource, sendBeacon, import(), no http(s) address but the SVG and
# XLink namespaces); every stylesheet has balanced braces and no @import
# or url(); no file has tabs, trailing spaces or lines over 120 columns.
# Prints one line per problem (FILE:LINE: what) and "viewer lint: N files,
# M problems"; exits 1 when there is a problem.
cd "$(dirname "$0")/.." || exit 2
[ $# -gt 0 ] || set -- viz/viewer/*.js viz/viewer/*.css
bad=0
problem() {
    echo "$1"
    bad=$((bad + 1))
}
for f in "$@"; do
    out=$(grep -n "$(printf '\t')" "$f" | cut -d: -f1 | sed "s|^|$f:|;s|$|: a tab|")
    [ -z "$out" ] || problem "$out"
    out=$(grep -n ' $' "$f" | cut -d: -f1 | sed "s|^|$f:|;s|$|: trailing spaces|")
    [ -z "$out" ] || problem "$out"
    out=$(awk -v f="$f" 'length($0) > 120 { print f ":" FNR ": " length($0) " columns" }' "$f")
    [ -z "$out" ] || problem "$out"
    case $f in
    *.js)
        if command -v node >/dev/null 2>&1; then
            out=$(node --check "$f" 2>&1) || problem "$f: does not parse: $out"
        fi
        grep -q "^'use strict';" "$f" || problem "$f: no 'use strict'"
        out=$(grep -nE '\b(fetch|XMLHttpRequest|WebSocket|EventSource|sendBeacon|importScripts)\b|\bimport\(' "$f")
        [ -z "$out" ] || problem "$f: asks the network: $out"
        out=$(grep -noE "https?://[^'\" ]*" "$f" | grep -vE 'http://www\.w3\.org/(2000/svg|1999/xlink)$')
        [ -z "$out" ] || problem "$f: names an address: $out"
        ;;
    *.css)
        out=$(grep -nE '@import|url\(' "$f" | grep -v 'url(#')
        [ -z "$out" ] || problem "$f: loads something: $out"
        open=$(tr -cd '{' <"$f" | wc -c) close=$(tr -cd '}' <"$f" | wc -c)
        [ "$open" -eq "$close" ] || problem "$f: $open '{' but $close '}'"
        ;;
    esac
done
echo "viewer lint: $# files, $bad problems"
[ "$bad" -eq 0 ]
