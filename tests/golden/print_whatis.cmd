# args: -q tests/fixtures/example.json
# issue 25 item 7: print NAME prints what NAME names (a node, a glob of
# nodes, a module), whatis NAME says what it is in one line, w is backtrace,
# info module FQN / info modules FQN [--full]
set on-error continue
p relu
p relu_*
p encoder.layers.0.act
p nosuch
p embed.weight
whatis relu
whatis p_embed_weight
whatis embed.weight
whatis encoder.layers.0
whatis ""
whatis nosuch
info module encoder.layers.0.attn
info module ""
info module nope
info modules encoder.layers.1
info modules encoder.layers.0.attn --full
info modules nope
step 3
p 2
w
whatis relu --json
info module encoder.norm --json
