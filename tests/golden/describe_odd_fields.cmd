# args: -q tests/fixtures/describe_odd.json
# tests/malformed/_valid.json with the fields no torch-made fixture has
# together: a "dialect" and no "verifiers" (schema 5 style), a device with
# an index, a node without nn_module_stack, custom and unknown metadata
# keys: info program and info node show each.
info program
info node linear
info node relu
info node x
