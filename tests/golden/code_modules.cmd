# args: tests/conformance/corpus/scenarios/multiple_graphs_state__strict__preserve/program.pt2
# print code module: ep.module()'s code (fx_pytree.tree_flatten_spec of
# the forward's arguments, get_attr for the lifted state, _guards_fn,
# copy_ for the buffer mutation, pytree.tree_unflatten); module FQN: an
# InterpreterModule's code (get_attr paths like getattr(self.x, "0")), a
# dispatcher's calls, the UnflattenedModule root (call_module); print
# readable module: print_readable() of each.
print code module
info modules
print code module ""
print readable module ""
print code module n
print readable module n@1
set on-error continue
print code module nope
print readable module
