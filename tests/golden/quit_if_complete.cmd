# args: tests/fixtures/unflatten/relu_twice.json
# quit-if-complete does nothing with no run, with a run stopped part way
# (at a breakpoint) or failed (see script_failing_node); once the run is
# complete it prints its text and quits with status 0, so the rest of the
# script does not run.
quit-if-complete not printed: no run yet
tbreak module relu
run
quit-if-complete not printed: stopped at a breakpoint
continue
quit-if-complete "the run completed: nothing to inspect"
echo not reached
