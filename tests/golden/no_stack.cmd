# args: -q tests/conformance/corpus/scenarios/stack_removed_relu__nonstrict/program.pt2
# relu was saved without nn_module_stack: torch.export.load gives it {} and
# _fix_nn_module_stacks raises ValueError before outlining (issue 25). The
# run stops there with torch's message, lint predicts it, explain names the
# node and says why in words.
set on-error continue
unflatten run
lint
explain
