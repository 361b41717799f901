# args: tests/fixtures/unflatten/cond.json
# --json and `set output json` for module lint, on a program with a
# higher-order op (cond): its branch subgraphs are linted flat (the
# program's) and per module (m1's GraphModule children), each finding would
# name them in "graph".
lint --json
lint all --json
lint module m1 --json
lint module m1.true_graph_0
set output json
lint module m1
lint all
