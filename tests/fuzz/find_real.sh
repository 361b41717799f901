#!/bin/sh
# find_real.sh - prints the folder of the real programs the fuzz seeds are
# made from, or nothing (exit 1) when there is none: $REAL_PT2 when set;
# else the first shared/real_pt2 beside the repository or beside any folder
# above it (../shared/real_pt2, ../../shared/real_pt2, ...); else the one
# beside the main worktree of this git repository (a `git worktree` or a
# clone elsewhere still finds the programs of the checkout it came from).
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${REAL_PT2:-}" ]; then
    [ -d "$REAL_PT2" ] && { (cd "$REAL_PT2" && pwd); exit 0; }
    exit 1
fi
d=$root
while :; do
    up=$(dirname "$d")
    [ -d "$up/shared/real_pt2" ] && { (cd "$up/shared/real_pt2" && pwd); exit 0; }
    [ "$up" = "$d" ] && break
    d=$up
done
common=$(git -C "$root" rev-parse --path-format=absolute --git-common-dir 2>/dev/null) || exit 1
main=$(dirname "$common")
[ -d "$main/../shared/real_pt2" ] && { (cd "$main/../shared/real_pt2" && pwd); exit 0; }
exit 1
