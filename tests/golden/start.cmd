# args: tests/fixtures/example.json
# start: as gdb's, a temporary breakpoint on the first flat node that is not
# a placeholder, then run; start again starts over; a breakpoint met before
# that node stops the run first and the temporary one stays.
set on-error continue
start
backtrace
info breakpoints
stepi
start
break event enter
start
info breakpoints
continue
info breakpoints
