#!/bin/sh
# run_viz.extra.sh EXDB - every view of every real program renders
# (tests/viz/render_all.sh); tests/run.sh runs it.
exec "$(dirname "$0")/viz/render_all.sh" "$@"
