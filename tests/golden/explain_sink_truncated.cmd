# args: -q tests/fixtures/lint/not_a_stack_state.json
# unflatten_hazards.json with its stacks edited so the run completes: %mul
# (in b.c after _fix_nn_module_stacks cut its stack ['', 'b', 'b.c', 'd'])
# reads a.weight, owned by a: b.c and b keep the parameter as an input, and
# explain says the cut stack put the use outside the owner.
unflatten run
info events sink
explain p_a_weight
