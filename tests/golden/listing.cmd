# args: tests/fixtures/example.json
# Long listings are cut at "set max-lines" with a "(N more lines)" line;
# --all shows everything.
set max-lines 5
print graph
print tabular
info seen-nodes
stepi 12
info seen-nodes
info seen-nodes --all
set max-lines unlimited
show max-lines
