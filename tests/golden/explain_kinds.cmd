# args: tests/fixtures/modgraph/mcg_3.json
# explain K for the kinds of event the other goldens do not explain: an
# event past the cursor, REORDER adding the empty modules of
# module_call_graph entries no node runs, STATE, ENTER and EXIT of a frame,
# SINK get_attr and erased, IVAL (a buffer mutation _IVals re-inserts),
# ATTRS (a HOP's subgraphs copied).
set on-error continue
goto 2
explain 6
unflatten run
explain 6
explain 4
load tests/fixtures/unflatten/ivals_child2parent_preserved.json
unflatten run
explain 3
explain 6
explain 20
explain 23
load tests/fixtures/unflatten/buffer_mutation.json
unflatten run
explain 13
load tests/fixtures/unflatten/cond.json
unflatten run
explain 11
