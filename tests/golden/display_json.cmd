# args: --json tests/fixtures/example.json
# In JSON mode the displays are the stopping command's "displays" array,
# each with its number, expression, the command's data and output.
set on-error continue
display backtrace
display node-map
stepi 3
info display
undisplay 2
goto 1
display nonsense
