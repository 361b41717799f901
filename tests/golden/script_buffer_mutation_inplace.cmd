# args: tests/conformance/corpus/scenarios/buffer_mutation__strict/program.pt2
# scripts/buffer-mutation.exdb on torch 2.13's default export of a module
# that mutates a buffer: aten.add_ stays in the graph, the signature has no
# BUFFER_MUTATION output, and unflatten re-inserts no copy_.
source scripts/buffer-mutation.exdb
echo not reached
