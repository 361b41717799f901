# args: tests/fixtures/unflatten/dispatch.json
# a dispatcher (InterpreterModuleDispatcher): its calls in the tree, one
# cluster per call in the module view (timings off: they vary).
set timing off
info modules
render tree -o /tmp/exdb-golden-dtree.dot
render module n -o /tmp/exdb-golden-dn.dot
