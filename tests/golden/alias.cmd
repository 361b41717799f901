# args: tests/fixtures/example.json
# alias NAME = COMMAND [ARGS...]: the words typed after NAME follow ARGS;
# quotes in ARGS are kept; an alias of an alias is what that one runs; made
# again, replaced; it wins over a command it is a prefix of, never over a
# whole name or gdb's short names; help, help aliases, show alias list them.
set on-error continue
alias
alias ib = info breakpoints
alias pm = print module
alias root=print module ""
alias actgraph = pm encoder.layers.0.act
alias br = break module
alias br = break op
ib
pm encoder.layers.0.act
root
actgraph
br aten.relu*
show alias
help pm
help print
help aliases
alias u = until
alias step = next
alias 9x = info
alias bad = nosuch
alias amb = re
alias zz
alias = print graph
