# args: tests/fixtures/example.json
# torch.export.unflatten of the example: the module tree, a module with a
# buffer mutation (copy_ back into calls), the root, and a layer whose ReLU is
# called twice (deduplicated: two calls to act).
info modules
print module encoder.layers.0.attn
print module ""
print module encoder.layers.0
print module encoder.layers.0.act
print module nope
