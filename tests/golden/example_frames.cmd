# args: tests/fixtures/example.json
# Frames: select with frame/up/down, inspect node_map, node_to_placeholder,
# the partial graph, seen_nodes, seen_modules, _IVals; list the flat nodes
# around the cursor.
set on-error continue
frame
goto 63
backtrace
frame 1
info frame
up
down 2
down
info frame 0
info node-map
info placeholders 1
print frame
print frame 1
frame 9
list
list
list
list relu_1
list 0
set listsize 4
list
info seen-nodes
info seen-modules
info ivals
finish
up
finish
unflatten run
backtrace
set on-error continue
frame
info seen-modules
