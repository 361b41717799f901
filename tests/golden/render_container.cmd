# args: tests/fixtures/unflatten/module_list.json
# render module on a module with no graph of its own (a ModuleList iterated
# in forward: unflatten gives `layers` an empty graph) draws its submodules.
set timing off
render module layers -o /tmp/exdb-golden-container.dot
render module layers.1 -o /tmp/exdb-golden-container-1.dot
render module layers -o /tmp/exdb-golden-container.svg
