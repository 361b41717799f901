# args: tests/fixtures/example.json
# A unique prefix of every subcommand of every command that takes one; an
# exact name wins over a longer one it starts (info node, not node-map); an
# ambiguous prefix is an error naming what it starts.
set on-error continue
# info
i prog
info sig
info module-c
info fa
info node relu_2
info node-m
info no
info mod
# set and show
set lis 3
show lis
set on-e cont
show on-e
show lay
show render
# break, tbreak, until, advance, watch
b mod encoder.layers.0.act
tb ex encoder.layers.0.norm1
b op aten.relu*
b ev sink
watch node relu
i b
i w
delete
advance mod encoder.layers.0.attn
until ex encoder.layers.0.attn
# info about the outliner, now that it runs
info fr
info node-m
info pl
info seen-n
info seen-m
info iv
info e 1-3
info ev 1-3 copy
# display and its delete/enable/disable
display node-m
display fr
display in fr
display mod
disable disp 1
enable disp 1
delete disp 1 2
info d
undisplay
# print
p node x
p fr
p mod embed
p m embed
# lint and dce
lint modul encoder.layers.0.act
lint a
unflatten ru
dce --dry-run mod encoder.layers.0.act
dce a --dry-run
# unflatten, render
unflatten res
unflatten r
set timing off
render tr -o /tmp/exdb-golden-prefix-tree.dot
render fl -o /tmp/exdb-golden-prefix-flat.dot
render fr -o /tmp/exdb-golden-prefix-frame.dot
render mod encoder.layers.0.act -o /tmp/exdb-golden-prefix-module.dot
# print graph and tabular of a small program
load tests/fixtures/unflatten/relu_twice.json
p g
p t
