# args: -q tests/fixtures/example.json
# explain NAME before any run: unflatten runs on the side, as info modules does.
explain p_embed_weight
