# args: --json tests/fixtures/example.json
# --json answers of alias, show alias, apropos, pipe (the shell's text is the
# output, its exit status shell_status), set logging and show.
set on-error continue
alias ib = info breakpoints
show alias
help aliases
apropos ^pipe
pipe print graph | grep -c call_function
pipe echo a | exit 3
set logging overwrite on
set logging on /tmp/exdb-golden-json-log.txt
ib
set logging off
show pagination
set height 30
set height auto
set pagination off
show height
pipe echo | cat /tmp/exdb-golden-json-log.txt
