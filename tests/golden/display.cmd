# args: tests/fixtures/example.json
# gdb's display: expressions shown after every stop, "N: EXPR =" and the
# value on the next lines (always, node-map's "0 entries" too); display/json
# shows the command's JSON answer; info display, undisplay, delete display.
set on-error continue
display node-map
display frame
display/json backtrace
display node addmm
info display
step
undisplay 2 4
advance module encoder.layers.0.attn.q
next
disable display 1
info display
display
enable display 1
display
delete display 1 3
info display
display info frame
display list
finish
reverse-step
goto 160
# refused: an unknown expression, a moving command, a missing node, a bad format
display nonsense
display step
display node rleu
display/x node-map
undisplay 99
undisplay
info display
stepi
