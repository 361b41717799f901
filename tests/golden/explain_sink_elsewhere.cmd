# args: -q tests/conformance/corpus/scenarios/sink_elsewhere__strict/program.pt2
# c reads a.v and a.w through an unregistered reference, and b.w is a.w
# (torch-made scenario sink_elsewhere): _sink_params keeps both inputs of c,
# a.v owned by a sibling (outside c), a.w one tensor under two names none
# of which is in c; the event, explain K and explain NAME say why.
unflatten run
info event 23
explain 23
explain p_a_w
explain a.v
