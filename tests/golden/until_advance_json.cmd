# args: --json tests/fixtures/example.json
# until/advance answer with "reason": "location" (reached), "frame-exit" (the
# selected frame exited first), "breakpoint" or "end".
set on-error continue
advance module encoder.layers.0.attn
until addmm_1
advance 120
break module head
advance event sink
until 3
