#!/bin/sh
# public_headers.sh [CC] - the headers `make install` installs: core's public
# headers (core/public.txt) and the internal ones they still include (found by
# the compiler, -MM), one path a line. The second set is what a public header
# exposes through its own structs (unflatten.h's run, frames and journal).
cd "$(dirname "$0")/.." || exit 2
cc=${1:-cc}
grep -v '^#' core/public.txt | while read -r h; do
    echo "#include \"$h\"" | $cc -I. $(pkg-config --cflags libcjson libzip 2>/dev/null) -MM -x c - 2>/dev/null
done | tr ' \\' '\n\n' | grep '^core/.*\.h$' | sort -u
