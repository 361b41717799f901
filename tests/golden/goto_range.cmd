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
# a run that fails at event 6: events past 5 are out of range, 5 is not
load tests/fixtures/lint/unflatten_hazards.json
stepi 2
goto 6
backtrace
goto 5
goto 7
goto 2
# a script stops at the out-of-range goto, having not moved
set on-error stop
goto 1000
echo never
