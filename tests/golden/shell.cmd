# args: -q
# shell COMMAND and !COMMAND (issue 25 item 7, as gdb's): the rest of the
# line to /bin/sh -c; not a terminal here, so what it prints is the output
shell echo hi $((1 + 2))
!echo there
!echo to-stderr >&2
shell exit 3
echo still here
shell echo '--json'
shell printf 'a|b\n' | tr '|' ' '
!exit 4 --json
