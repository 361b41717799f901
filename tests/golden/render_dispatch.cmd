# args: tests/fixtures/unflatten/dispatch.json
# a dispatcher (InterpreterModuleDispatcher): its calls in the tree, one
# cluster per call in the module view (timings off: they vary). A call is
# named n, n@1, n@2 and numbered 1 to 3 as bt and print module name them;
# render module takes the name (issue 16 items 11, 12); the tree counts the
# one DEDUP redirect the events show (item 13).
set timing off
info modules
render tree -o /tmp/exdb-golden-dtree.dot
render module n -o /tmp/exdb-golden-dn.dot
render module n@1 -o /tmp/exdb-golden-dn1.dot
pipe echo | grep -o 'label="n[^"]*"' /tmp/exdb-golden-dn.dot /tmp/exdb-golden-dn1.dot
pipe echo | grep -o 'label="module[^"]*"' /tmp/exdb-golden-dn.dot /tmp/exdb-golden-dn1.dot
pipe echo | grep -o 'label="[^"]*call[^"]*"' /tmp/exdb-golden-dtree.dot
print module n@1
# break takes the same names; render frame numbers frames as bt does
break module n@1
run
bt
render frame -o /tmp/exdb-golden-dframe.dot
pipe echo | grep -o 'label="#[^"]*"' /tmp/exdb-golden-dframe.dot
set on-error continue
render module n@3 -o /tmp/exdb-golden-dn3.dot
