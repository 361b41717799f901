# args: -q tests/fixtures/dce_dead_first.json
# a program without inputs whose first node (zeros) is dead: dce removes the
# graph's head and undo puts it back at the head (eliminate_dead_code, then
# the same graph as before).
dce
undo
print graph
