# args: tests/fixtures/arg_kinds.json
# Argument kinds no torch-made fixture has, in one node: a SymFloat and a
# SymBool given as constants (one and a list each), a list of float lists,
# nested tensors, a device with an index, a complex, an operator, a dict of
# arguments (a keyword), a SymInt constant, a list of int lists; printed as
# FX prints them (graph, code, readable), through lint, unflatten and diff.
set on-error continue
print graph
print code
print readable
lint
info node kinds_default_unused
unflatten run
print code module ''
diff tests/fixtures/arg_kinds.json
