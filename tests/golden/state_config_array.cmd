# args: -q tests/fixtures/unflatten/state_config_array.pt2
# constant_aliasing.pt2 with its weights config's "config" an array:
# the load works, unflatten stops at the STATE step with the member and JSON path.
unflatten run
