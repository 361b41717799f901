# args: -q
# apropos REGEX: commands whose name, usage, summary or aliases match show as
# "NAME, ALIASES -- SUMMARY"; when only help lines match, they follow; case
# is ignored; no match says so; a bad expression is an error.
set on-error continue
apropos watchpoint
apropos NODE_MAP
apropos ^re(start|verse-s)
alias bt2 = backtrace
apropos bt2
apropos qqqq
apropos (
