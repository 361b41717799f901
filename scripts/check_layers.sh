#!/bin/sh
# check_layers.sh - the include direction of issue 14: each folder may
# include headers of its own layer and the layers below it, never above:
#
#   core/base <- core/format <- core/fx <- core/export <- core/unflatten <- viz <- repl
#
# Prints every include that runs back up (FILE:LINE: ... includes ...) and
# exits 1 when there is one. The Makefile runs it before building the library.
#
# repl/ and viz/ include only core's public headers (core/public.txt: as
# SQLite's btree.h beside btreeInt.h, the rest of a core folder is internal
# to core/): an include of an internal one fails too.
cd "$(dirname "$0")/.." || exit 2
rank() {
    case $1 in
    core/base/*) echo 0 ;;
    core/format/*) echo 1 ;;
    core/fx/*) echo 2 ;;
    core/export/*) echo 3 ;;
    core/unflatten/*) echo 4 ;;
    viz/*) echo 5 ;;
    repl/*) echo 6 ;;
    *) echo 9 ;;
    esac
}
bad=0
for f in core/*/*.[ch] viz/*.[ch] repl/*.[ch]; do
    [ -f "$f" ] || continue
    me=$(rank "$f")
    if [ "$me" = 9 ]; then
        echo "$f: not in a layer folder (core/base, format, fx, export, unflatten, viz, repl)" >&2
        bad=1
        continue
    fi
    grep -n '^#include "' "$f" | while IFS= read -r line; do
        inc=${line#*\"}
        inc=${inc%%\"*}
        case $inc in */*) ;; *) inc=$(dirname "$f")/$inc ;; esac
        them=$(rank "$inc")
        if [ "$them" -gt "$me" ]; then
            echo "$f:${line%%:*}: includes $inc, a layer above it" >&2
            echo x
        fi
    done | grep -q x && bad=1
done
public=$(grep -v '^#' core/public.txt)
for f in viz/*.[ch] repl/*.[ch]; do
    [ -f "$f" ] || continue
    grep -n '^#include "core/' "$f" | while IFS= read -r line; do
        inc=${line#*\"}
        inc=${inc%%\"*}
        if ! printf '%s\n' "$public" | grep -qxF "$inc"; then
            echo "$f:${line%%:*}: includes $inc, internal to core/ (core/public.txt lists the public headers)" >&2
            echo x
        fi
    done | grep -q x && bad=1
done
exit $bad
