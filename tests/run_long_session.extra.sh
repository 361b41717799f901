#!/bin/sh
# run_long_session.extra.sh EXDB_BINARY - the long-session test
# (tests/long_session.py): LONG_CYCLES (1,000) cycles of load, unflatten,
# stepping forwards and back, lint, dce, undo, render and reloading another
# program, through exdb's command loop. Under the ASan+UBSan build of make
# test, LeakSanitizer checks the exit and RSS is printed after the first
# cycle, after the warm-up (100 cycles) and at the end; growth after the
# warm-up above 16 MiB fails. ASan's quarantine of freed memory is cut to
# 16 MiB here, or its filling up would look like growth. valgrind:
# `make valgrind-session`. Prints "long-session: N passed, M failed".
set -u
if [ $# -ne 1 ]; then
    echo "usage: $0 EXDB_BINARY" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}:quarantine_size_mb=16"
exec python3 "$root/tests/long_session.py" --cycles "${LONG_CYCLES:-1000}" "$1"
