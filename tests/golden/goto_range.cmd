# args: tests/fixtures/example.json
# goto K past the last event (or past an event that fails) is an error and
# the run stays where it was; in a script it stops there, not moved.
set on-error continue
stepi 3
goto 99999
backtrace
goto 186
info events 3-
goto 185
goto 3
# a run that fails at event 5: events past 4 are out of range, 4 is not
load tests/conformance/corpus/scenarios/err_output_not_found__strict__preserve/program.pt2
stepi 2
goto 5
backtrace
goto 4
goto 6
goto 2
# a script stops at the out-of-range goto, having not moved
set on-error stop
goto 1000
echo never
