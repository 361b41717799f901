# args: tests/fixtures/example.json
# print node with a name that is not in the graph fails before printing
# anything: the nodes before it were left in the output buffer and came
# out at the start of the next command's output (here info facts').
set on-error continue
print node relu nosuch
info facts
