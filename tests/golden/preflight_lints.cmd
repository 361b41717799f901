# args: tests/fixtures/unflatten/call_graph_first_fqn.json
# The pre-flight lint's findings for two programs unflatten refuses: a
# module_call_graph that does not start with the root entry (torch:
# "expected first fqn to be empty string, got 'm0'") and a node whose
# nn_module_stack does not start at the root module.
set on-error continue
unflatten run
lint
load tests/fixtures/unflatten/stack_no_root.json
unflatten run
lint
