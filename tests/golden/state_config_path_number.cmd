# args: -q tests/fixtures/unflatten/state_config_path_number.pt2
# constant_aliasing.pt2 with a constants config entry whose path_name is a number:
# the load works, unflatten stops at the STATE step with the member and JSON path.
unflatten run
