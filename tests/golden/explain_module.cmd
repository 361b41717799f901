# args: -q tests/fixtures/example.json
# explain MODULE (issue 25 item 5): with no run yet it runs unflatten on the
# side; act is called twice per layer, so encoder.layers.0.act@1 is the
# frame of its second call, which DEDUP merged back into act.
set on-error continue
explain encoder.layers.0.act@1
explain encoder.layers.0.act
explain encoder.layers.0.nosuch
