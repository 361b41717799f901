# args: tests/fixtures/unflatten/error_no_stack.json
# lint all on a program unflatten rejects: the flat findings (the pre-flight
# predicts the failure), then the failure itself as an unflatten.failed
# finding, text and --json; lint module has no modules to look at.
set on-error continue
lint all
lint all --json
lint module ""
dce all
