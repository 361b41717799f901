# args: tests/fixtures/example.json
# ignore N COUNT: the next COUNT crossings of breakpoint N pass (each still a
# hit); info breakpoints shows the count left; 0 stops again; watchpoints too;
# reverse-continue passes a breakpoint with a count left and keeps the count.
set on-error continue
break module encoder.layers.*.act
ignore 1 2
info breakpoints
run
info breakpoints
ignore 1 1
info breakpoints
continue
ignore 1 0
info breakpoints
run
continue
ignore 1 1
reverse-continue
info breakpoints
delete 1
watch node-map relu
ignore 2 1
run
info breakpoints
ignore 9 1
ignore 2 x
ignore 2
