# args: tests/fixtures/example.json
# print code module on an ATEN-dialect program: ep.module() first removes
# the dead code (_remove_effect_tokens ends with eliminate_dead_code), so
# the unused getitems of native_layer_norm that print code shows are gone;
# bare JSON has no example inputs, so no _guards_fn; the buffer mutations
# become copy_ nodes. print node: a node's line of print code.
pipe print code | grep -c unused
pipe print code module | grep -c unused
print code module
print node relu getitem
