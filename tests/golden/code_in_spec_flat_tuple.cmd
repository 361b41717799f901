# args: -q tests/fixtures/in_spec_flat_tuple.json
# tests/malformed/_valid.json whose root in_spec is a tuple of the inputs
# themselves, not (args, kwargs): _PyTreeCodeGen.gen_fn_def flattens the
# list of forward's arguments ("x, = fx_pytree.tree_flatten_spec([x],
# self._in_spec)") instead of the (args, kwargs) pair.
print code module
