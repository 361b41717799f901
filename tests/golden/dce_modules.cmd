# args: tests/fixtures/example.json
# dce module FQN / dce all on the finished module tree (created on demand,
# as print module does), undo, and what stepping does to module edits:
# going back rebuilds the run from the flat graph, which discards them
# (a note says so; undo has nothing left). A run stopped part way is
# refused; a flat dce after a module dce drops the run with its edits.
set on-error continue
dce module encoder.norm --dry-run
dce module encoder.norm
print module encoder.norm
lint module encoder.norm
undo
print module encoder.norm
dce module nope
dce all --dry-run
dce all
info modules
undo
dce all
reverse-stepi
undo
print module encoder.norm
restart
stepi 2
dce module encoder.norm
continue
dce module encoder.norm
dce
undo
print module encoder.norm
