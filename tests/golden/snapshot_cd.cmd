# args: -q tests/conformance/corpus/scenarios/tied_embeddings__nonstrict/program.pt2
# A loaded program is a snapshot of its file (issue 13, item 3): after a cd
# the relative path it was loaded by names nothing, yet unflatten's STATE
# phase, lint's state checks, render and dce all still use the archive's
# weights config as read at load time (emb.weight and head.weight are one
# tensor: a get_attr in emb, no lint notes). Before, the run stopped at
# event 7 with "No such file or directory".
set timing off
cd tests/golden
run
print module emb
lint all
render tree -o /tmp/exdb-golden-snapshot.dot
dce all
