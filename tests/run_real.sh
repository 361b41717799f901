#!/bin/sh
# run_real.sh EXDB - every program PyTorch wrote in ../shared/real_pt2 loads,
# and its counts, names and signature kinds equal what Python's json module
# reads from the same file (scripts/real_expect.py).
exdb=${1:?usage: run_real.sh EXDB}
dir=${REAL_PT2:-$(cd "$(dirname "$0")/../.." && pwd)/shared/real_pt2}
if [ ! -d "$dir" ]; then
    echo "real: $dir not found: the real-program tests are skipped"
    echo "real: 0 passed, 0 failed"
    exit 0
fi
here=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$dir"/*__model.json; do
    [ -e "$f" ] || continue
    python3 "$here/scripts/real_expect.py" "$f" >"$tmp/want" 2>&1
    "$exdb" "$f" -ex 'info facts' -batch >"$tmp/got.all" 2>&1
    rc=$?
    grep -v '^Loaded ' "$tmp/got.all" >"$tmp/got"
    # Files without node names (schema < 8.16): PyTorch derives them; the
    # digest is then checked by the golden print-graph test instead.
    if grep -q '^node_names_sha1 -$' "$tmp/want"; then
        grep -v '^node_names_sha1' "$tmp/want" >"$tmp/w2" && mv "$tmp/w2" "$tmp/want"
        grep -v '^node_names_sha1' "$tmp/got" >"$tmp/g2" && mv "$tmp/g2" "$tmp/got"
    fi
    if [ $rc -eq 0 ] && cmp -s "$tmp/want" "$tmp/got"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL real: $(basename "$f") (exit $rc)"
        diff "$tmp/want" "$tmp/got" | head -20
    fi
done
echo "real: $pass passed, $fail failed"
[ $fail -eq 0 ]
