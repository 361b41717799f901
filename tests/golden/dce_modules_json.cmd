# args: tests/fixtures/unflatten/dispatch.json
# dce all/module in JSON mode (the removed nodes as data, with their module),
# on a program whose repeated module becomes an InterpreterModuleDispatcher;
# then flat dce after module dce (the module edits go with the run) and undo.
set output json
dce all --dry-run
dce module "" --dry-run
dce all
undo
dce all
dce
undo
