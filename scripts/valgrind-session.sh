#!/bin/sh
# valgrind-session.sh [CYCLES] - the long-session test (tests/long_session.py)
# with the release exdb (-O2 -g) under valgrind's memcheck: every read of
# uninitialised or freed memory is an error, and so is memory definitely or
# indirectly lost at exit. CYCLES defaults to 200 (about a minute; the
# ASan+UBSan build does the full 1,000 in make test). Prints valgrind's heap,
# leak and error summaries; exits non-zero when valgrind reported an error
# or a leak, or when a check of the session failed. `make valgrind-session`
# runs it. Needs valgrind (apt-get install valgrind).
set -u
cycles=${1:-200}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind-session: valgrind is not installed (apt-get install valgrind)" >&2
    exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exdb-valgrind-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
log=$tmp/valgrind.log
vg="valgrind --leak-check=full --show-leak-kinds=definite,indirect"
vg="$vg --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --log-file=$log"
# the one known false positive, explained in the file
vg="$vg --suppressions=$root/scripts/valgrind.supp"
# RSS under valgrind is valgrind's own as much as exdb's: reported, loosely bounded.
python3 tests/long_session.py --cycles "$cycles" --max-growth-mib 64 --wrapper "$vg" ./exdb
rc=$?
grep -E 'in use at exit|total heap usage|definitely lost|indirectly lost|possibly lost|ERROR SUMMARY' "$log" |
    sed 's/^==[0-9]*== *//'
grep -q 'ERROR SUMMARY: 0 errors' "$log" || rc=1
exit $rc
