# args: tests/conformance/corpus/scenarios/map_unflatten__strict/program.pt2
# node forms across programs: map_impl with its body subgraph, the
# wrap_with_set_grad_enabled HOP, floordiv of sym ints with Sym(2*s62)
# annotations, operator.mul of sym ints, call_torchbind with a custom
# object's get_attr, a tensor subclass accessor op, a user-input mutation
# copied back in ep.module().
print code
print readable
load tests/conformance/corpus/scenarios/set_grad_unflatten__strict/program.pt2
print code
print readable module ""
print code module submod_1
print readable module submod_1
load tests/conformance/corpus/scenarios/dedup_sym_size__nonstrict__preserve/program.pt2
print readable
load tests/conformance/corpus/scenarios/unflatten_asserts__nonstrict/program.pt2
print code
load tests/conformance/corpus/scenarios/constant_obj__nonstrict/program.pt2
print code
print code module
load tests/conformance/corpus/scenarios/aten_to_unflatten_subclass__nonstrict__preserve/program.pt2
print code
load tests/conformance/corpus/scenarios/placeholder_update_preserving__strict__functional/program.pt2
print code module
