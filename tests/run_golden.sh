#!/bin/sh
# run_golden.sh EXDB - golden transcripts: tests/golden/NAME.cmd is a script
# whose first line is "# args: ARGS" (the exdb command line; $REAL stands for
# ../shared/real_pt2); the rest are commands run with -x SCRIPT -batch --echo.
# The expected output (stdout and stderr merged, then "[exit N]") is NAME.out:
# each command's "(exdb) CMD" line (--echo) above its answer, so the .out
# reads as the session it checks.
# UPDATE=1 rewrites the .out files (review the diff before committing!).
# EXDB_TEST_NAME=GLOB runs only the goldens whose name matches (make test
# T=golden/GLOB; with UPDATE=1 it rewrites only those).
exdb=${1:?usage: run_golden.sh EXDB}
case $exdb in /*) ;; *) exdb=$(pwd)/$exdb ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
REAL=${REAL_PT2:-$(cd "$root/.." && pwd)/shared/real_pt2}
cd "$root" || exit 1
pass=0 fail=0 skip=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for cmd in tests/golden/*.cmd; do
    [ -e "$cmd" ] || continue
    name=${cmd%.cmd}
    # shellcheck disable=SC2254
    case ${name##*/} in ${EXDB_TEST_NAME:-*}) ;; *) continue ;; esac
    args=$(sed -n '1s/^# args: *//p' "$cmd")
    case $args in *'$REAL'*)
        if [ ! -d "$REAL" ]; then
            skip=$((skip + 1))
            echo "skip golden: $(basename "$name") (needs $REAL)"
            continue
        fi ;;
    esac
    args=$(printf '%s' "$args" | sed "s#\\\$REAL#$REAL#g")
    # shellcheck disable=SC2086
    (eval "set -- $args"; "$exdb" --echo "$@" -x "$cmd" -batch) >"$tmp" 2>&1
    echo "[exit $?]" >>"$tmp"
    # machine paths would make transcripts depend on where the repo lives;
    # the corpus programs' stack traces hold the path of the checkout that
    # exported them (tests/conformance, its build/venv)
    sed -i "s#$REAL/##g; s#$root/##g; s#/[^ \"]*/\(tests/conformance/\)#\1#g; s#/[^ \"]*/\(build/venv/\)#\1#g" "$tmp"
    if [ -n "$UPDATE" ]; then
        cp "$tmp" "$name.out"
        pass=$((pass + 1))
    elif cmp -s "$tmp" "$name.out"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL golden: $(basename "$name")"
        diff "$name.out" "$tmp" | head -20
    fi
done
echo "golden: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
