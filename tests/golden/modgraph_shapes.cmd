# args: tests/fixtures/modgraph/calls_param_12.json
# Module-tree shapes of scripts/gen_modgraph.py (small copies of the bench's
# and the fuzzer's): a Linear called 12 times whose one weight the calls
# share (_assign_attr sets it on every call variant fc, fc@1 ... fc@11: more
# than fit its list inline); module_call_graph entries no node runs (torch's
# _reorder_submodules adds an empty Module for each); shared modules nested
# (each level called under a second name); a module its own descendant
# (torch: RecursionError); modules without a graph between graph modules.
set on-error continue
unflatten run
info modules
print code module fc
load tests/fixtures/modgraph/mcg_3.json
unflatten run
info modules
load tests/fixtures/modgraph/alias_3.json
unflatten run
info modules
load tests/fixtures/modgraph/cycle_3.json
unflatten run
load tests/fixtures/modgraph/graphless_2.json
unflatten run
info modules
print code module g0.h0
