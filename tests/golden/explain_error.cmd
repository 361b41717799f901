# args: -q tests/conformance/corpus/scenarios/err_output_not_found__strict__preserve/program.pt2
# The preserved call c's output mul is computed outside it: the run stops
# with torch's "Could not find output node"; explain gives torch's rule,
# the open frames, the node's nn_module_stack, the pre-flight lint's finding
# and the fix. explain K still explains an event done before the error.
set on-error continue
unflatten run
explain
explain 2
