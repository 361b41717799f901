#!/bin/sh
# alloc_sites.sh - lists the allocation sites of core/ and viz/ as the fault
# walk names them (tests/faults/fault_walk.c, --sites): one "FILE:LINE" per
# call that core/base/fault.h counts, i.e. a call of malloc, calloc,
# realloc, strdup or strndup (wrapped by the -include of fault.h), of
# exdb_arena_alloc, _calloc, _strdup, _strndup or _printf (which count their
# caller: core/base/arena.c) or of exdb_mem_take. Helpers built on these
# (exdb_grow, exdb_arena_grow, the strbuf calls) are one site each: the
# call inside the helper. Comments and the definitions in core/base/fault.c
# and arena.c are not calls. With -c, prints the count only.
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
list=$(for f in core/*/*.c core/*/*.h viz/*.c viz/*.h; do
    case $f in core/base/fault.[ch]) continue ;; esac
    # strip /* */ and // comments, string and character literals, keep line numbers
    awk -v f="$f" '
        {
            line = $0
            out = ""
            while (length(line) > 0) {
                if (incomment) {
                    i = index(line, "*/")
                    if (!i) { line = ""; break }
                    line = substr(line, i + 2); incomment = 0; continue
                }
                c = substr(line, 1, 1); c2 = substr(line, 1, 2)
                if (c2 == "/*") { incomment = 1; line = substr(line, 3); continue }
                if (c2 == "//") break
                if (c == "\047") {
                    # skip a character literal (a quote in one is no string)
                    j = 2
                    while (j <= length(line)) {
                        d = substr(line, j, 1)
                        if (d == "\\") { j += 2; continue }
                        if (d == "\047") break
                        j++
                    }
                    out = out "0"; line = substr(line, j + 1); continue
                }
                if (c == "\"") {
                    # skip a string literal
                    j = 2
                    while (j <= length(line)) {
                        d = substr(line, j, 1)
                        if (d == "\\") { j += 2; continue }
                        if (d == "\"") break
                        j++
                    }
                    out = out "\"\""; line = substr(line, j + 1); continue
                }
                out = out c; line = substr(line, 2)
            }
            if (out ~ /(^|[^A-Za-z0-9_])(malloc|calloc|realloc|strdup|strndup|exdb_arena_(alloc|calloc|strdup|strndup|printf)|exdb_mem_take|exdb_filemap_map(_at)?)[ \t]*\(/ &&
                out !~ /^int exdb_filemap_map(_at)?\(/ &&
                out !~ /^(static )?(void|char) \*(exdb_arena_(alloc|calloc|strdup|strndup|printf)|exdb_mem_take)\(/)
                print f ":" NR
        }' "$f"
done)
if [ "${1:-}" = -c ]; then
    echo "$list" | grep -c .
else
    echo "$list"
fi
