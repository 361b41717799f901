# args: -q tests/conformance/corpus/scenarios/attr_as_submod_input__strict/program.pt2
# The root passes its buffer `const` into layers.0 and layers.1 (torch-made
# scenario attr_as_submod_input): _sink_params keeps %b_const an input of
# both calls (its owner is the enclosing root) and sinks it at the root.
# explain before a decision says what it can explain; info event shows an
# event's detail lines; explain K and explain NAME say it in words.
set on-error continue
explain
unflatten run
info events sink
info event 11
explain 11
explain b_const
explain const
info event 14
explain nonsense
explain 99
