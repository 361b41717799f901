# args: tests/fixtures/example.json
# pipe COMMAND | SHELL-COMMAND (and "| COMMAND | SHELL"): the command's output
# is the shell command's input; -d DELIM when the command holds a "|"; the
# shell's text is passed untouched; an alias may start the command; errors.
set on-error continue
break relu
pipe info breakpoints | tr a-z A-Z
| info breakpoints | tr a-z A-Z
pipe print graph | grep -c 'call_function\[target=torch.ops.aten.relu'
pipe -d XX print node relu XX grep users
pipe print graph | head -2
alias pg = pipe print graph
pg | awk 'END { print NR " lines" }'
pipe print node nosuch | cat
pipe echo x
pipe | wc
pipe echo a |
pipe -d
pipe echo a | exit 3
echo [still here]
