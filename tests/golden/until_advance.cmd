# args: tests/fixtures/example.json
# gdb's until and advance: run to a LOCATION (an event number, a flat node,
# module FQN, exit FQN, op GLOB, event KIND) or until the selected frame
# exits. until stops at LOCATION only in this frame or an outer one, advance
# anywhere; breakpoints still stop both; until alone is next.
set on-error continue
advance module encoder.layers.0.attn
backtrace
# %addmm_1 is copied in encoder.layers.0.attn.k, deeper than this frame:
# until does not stop there, the frame exits first
until addmm_1
backtrace
advance addmm_3
until
until 120
until exit encoder.layers.1
# from the root frame (selected with frame 2) only the breakpoint stops it
frame 2
break module head
advance event sink
delete
# from head, the frame exits first; from the root, SINK is reached
advance event sink
advance event sink
advance event sink
until event dedup
# errors: behind the cursor, already copied, no such node or module
until 3
until addmm_1
advance nosuch_node
advance module nosuch
advance 100000
unflatten run
until 5
