# args: tests/fixtures/example.json
# lint module FQN / lint all: FX's Graph.lint with the owning module on the
# unflattened graphs (get_attr/call_module targets resolve on the module).
# With the run stopped part way, lint builds a finished tree aside: the
# stepping position (event 3) does not move. Unknown modules are errors.
set on-error continue
stepi 3
lint module encoder.norm
lint module ""
lint all
lint module encoder.layers.0.act
backtrace
lint module encoder.nope
lint module
lint bogus
