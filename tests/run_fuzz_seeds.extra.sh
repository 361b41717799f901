#!/bin/sh
# run_fuzz_seeds.extra.sh EXDB_BINARY - the fuzzers' seeds wherever the tests
# run (issue 22): tests/fuzz/find_real.sh finds the real programs from
# $REAL_PT2, from shared/real_pt2 beside a folder above the checkout (CI:
# /check/work/main with /check/work/shared), and from a git worktree far
# from its main checkout; tests/fuzz/seeds.sh seeds fuzz_unflatten with the
# adversarial module graphs of scripts/gen_modgraph.py and the loader with
# the real programs it was given, and fuzz_cache with the reopen cache
# entries EXDB_BINARY writes for its 8 programs. Prints
# "fuzz-seeds: N passed, M failed".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/exdb-seeds-XXXXXX")
tmp=$(cd "$tmp" && pwd -P)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0 fail=0
check() { # check NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then
        pass=$((pass + 1))
        echo "ok   fuzz-seeds: $1"
    else
        fail=$((fail + 1))
        echo "FAIL fuzz-seeds: $1 (expected \"$2\", got \"$3\")"
    fi
}
# a checkout at DIR: just the scripts find_real.sh is
copy_to() {
    mkdir -p "$1/tests/fuzz"
    cp "$root/tests/fuzz/find_real.sh" "$1/tests/fuzz/"
}

mkdir -p "$tmp/real" "$tmp/ci/work/shared/real_pt2"
got=$(REAL_PT2=$tmp/real sh "$root/tests/fuzz/find_real.sh")
check "REAL_PT2 names the folder" "$tmp/real" "$got"
REAL_PT2=$tmp/none sh "$root/tests/fuzz/find_real.sh" >/dev/null
check "REAL_PT2 naming no folder finds none (exit 1)" 1 $?

copy_to "$tmp/ci/work/main"
got=$(cd / && env -u REAL_PT2 sh "$tmp/ci/work/main/tests/fuzz/find_real.sh")
check "shared/real_pt2 beside the checkout" "$tmp/ci/work/shared/real_pt2" "$got"
copy_to "$tmp/ci/work/deeper/clone"
got=$(env -u REAL_PT2 sh "$tmp/ci/work/deeper/clone/tests/fuzz/find_real.sh")
check "shared/real_pt2 beside a folder above the checkout" "$tmp/ci/work/shared/real_pt2" "$got"

# a git worktree elsewhere finds the main checkout's ../shared/real_pt2
if command -v git >/dev/null 2>&1; then
    mkdir -p "$tmp/g/shared/real_pt2"
    copy_to "$tmp/g/main"
    (cd "$tmp/g/main" && git init -q && git add -A &&
        git -c user.name=t -c user.email=t@t commit -q -m t &&
        git worktree add -q "$tmp/far/away/wt" 2>/dev/null)
    got=$(env -u REAL_PT2 sh "$tmp/far/away/wt/tests/fuzz/find_real.sh")
    check "a git worktree elsewhere: the main checkout's shared/real_pt2" "$tmp/g/shared/real_pt2" "$got"
fi

# seeds.sh: the adversarial module graphs, and the real programs it is given
if command -v python3 >/dev/null 2>&1; then
    # the bundled example as a "real" program (one more space: its own seed)
    sed 's/^{/{ /' "$root/tests/fixtures/example.json" >"$tmp/real/x__model.json"
    exdb=${1:-}
    case $exdb in /* | "") ;; *) exdb=$(pwd)/$exdb ;; esac
    REAL_PT2=$tmp/real EXDB=$exdb sh "$root/tests/fuzz/seeds.sh" "$tmp/seeds" >"$tmp/seeds.log" 2>&1
    check "seeds.sh runs" 0 $?
    if [ -n "$exdb" ]; then
        n=$(ls "$tmp/seeds/cache" 2>/dev/null | grep -v '^regression_' | grep -c '\.shape$')
        check "fuzz_cache gets the entries exdb writes for its 8 programs" 8 "$n"
        n=$(ls "$tmp/seeds/cache" 2>/dev/null | grep -v '^regression_' | grep -c '\.ir$')
        check "fuzz_cache gets the IR entries exdb writes for its 8 programs" 8 "$n"
    fi
    n=$(ls "$tmp/seeds/unflatten" 2>/dev/null | grep -c '^modgraph_')
    check "fuzz_unflatten gets the 12 adversarial module graphs" 12 "$n"
    for shape in calls_64 alias_20 graphless_6 cycle_5 deep_32 args_65 wide_9; do
        [ -s "$tmp/seeds/unflatten/modgraph_$shape.json" ] && r=yes || r=no
        check "module graph seed $shape" yes "$r"
    done
    found=no
    for f in "$tmp/seeds/load/"*; do
        cmp -s "$f" "$tmp/real/x__model.json" && found=yes
    done
    check "the real programs given are load seeds" yes "$found"
    REAL_PT2=$tmp/none sh "$root/tests/fuzz/seeds.sh" "$tmp/seeds2" >"$tmp/seeds2.log" 2>&1
    grep -q 'no real programs found' "$tmp/seeds2.log" && r=yes || r=no
    check "without real programs seeds.sh says so" yes "$r"
else
    echo "skip fuzz-seeds: seeds.sh (no python3)"
fi
echo "fuzz-seeds: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
