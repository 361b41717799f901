# args: tests/fixtures/dce/dead_pure.json
# Small texts: a count of one in the singular (1 output, 1 entry, 1 leaf,
# 1 node copied); info modules names a plain Module's class from
# nn_module_stack, or says that none does; print node of a buffer-mutation
# output and of the output node shows their signature roles; a display's
# value is always on the lines under "N: EXPR =", 0 entries or more.
info program
info module-call-graph
stepi
info frame
load tests/fixtures/unflatten/call_gap_nested.json
info modules
load tests/fixtures/unflatten/param_list_dict.json
info modules
load tests/fixtures/example.json
print node add output
display node-map
advance module encoder.layers.0.attn.q
stepi
# the JSON answer of info modules: stack_class for a plain module
load tests/fixtures/unflatten/call_gap.json
set output json
info modules
