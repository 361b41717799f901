# args: tests/fixtures/example.json
# render module/tree/frame: messages and errors (timings off: they vary).
set timing off
render tree -o /tmp/exdb-golden-tree.dot
render module encoder.layers.0 -o /tmp/exdb-golden-module.dot
render module "" -o /tmp/exdb-golden-root.svg
render module encoder.layers.0.attn -o /tmp/exdb-golden-attn.html
set on-error continue
render module nosuch -o /tmp/exdb-golden-x.dot
render module -o /tmp/exdb-golden-x.dot
render tree --window 3 -o /tmp/exdb-golden-x.dot
render frame --window 0 -o /tmp/exdb-golden-x.dot
render frame -o /tmp/exdb-golden-x.txt
# the frame view at the start, inside a module, and bounded by --window
render frame -o /tmp/exdb-golden-frame0.dot
break native_layer_norm
run
bt
render frame -o /tmp/exdb-golden-frame.dot
render frame --window 2 -o /tmp/exdb-golden-frame2.svg
# module and tree leave the stepping position alone
render tree -o /tmp/exdb-golden-tree2.dot
bt
