# args: tests/fixtures/example.json
# Stepping the outliner: events, the frame stack, going back.
unflatten restart
stepi 3
backtrace
step
step
next
backtrace
frame
finish
reverse-stepi 4
backtrace
goto 2
unflatten run
