#!/bin/sh
# run_tmux.extra.sh EXDB - tests/run.sh runs every tests/run_*.extra.sh; the
# interactive tests live in tests/tmux/.
exec "$(dirname "$0")/tmux/run_tmux.sh" "$@"
