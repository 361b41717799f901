# args: -q tests/conformance/corpus/scenarios/no_unroll_p__strict__preserve/program.pt2
# Stepping back after a module dce rebuilds the run from the flat graph
# (the journal has no record of dce's edits): the removed nodes are back,
# undo has nothing left, and the rebuilt run steps and finishes as before.
set on-error continue
unflatten run
dce all
reverse-stepi
undo
dce all --dry-run
goto 10
continue
dce all --dry-run
