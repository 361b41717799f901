# args: tests/fixtures/example.json
# dce after an unflatten run: the run is rebuilt from the edited graph (LayerNorm
# modules lose their two dead getitems: 8 nodes, then 6), and undo brings them back.
unflatten run
print module encoder.norm
dce
print module encoder.norm
undo
print module encoder.norm
