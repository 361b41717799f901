# args: tests/fixtures/example.json
# Breakpoints on a node, a module enter/exit (globs, FQN@N, conditions), an
# op glob, an event kind, a watchpoint on node_map; continue, run,
# reverse-continue; enable/disable/delete; errors keep the session going.
set on-error continue
info breakpoints
break relu_1
break module encoder.layers.*.act if call == 2
break exit encoder.layers.0.attn
break op aten.relu*
tbreak event sink
watch node-map add_1
info breakpoints
run
continue
continue
continue
backtrace
continue
reverse-continue
reverse-continue
disable 4
continue
continue
continue
continue
continue
info breakpoints
condition 2
condition 2 fqn ~ *1.act@1
enable
delete 1 3 4
info breakpoints
run
continue
break reul
break module nosuch
break op aten.nosuch*
break event nope
break x if call ~ 2
break x if bogus == 1
condition 99
delete 99
watch relu
delete
info breakpoints
continue
