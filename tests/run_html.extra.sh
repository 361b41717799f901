#!/bin/sh
# run_html.extra.sh EXDB - the HTML viewer in headless Chromium
# (tests/viz/html_chromium.sh); tests/run.sh runs it.
exec "$(dirname "$0")/viz/html_chromium.sh" "$@"
