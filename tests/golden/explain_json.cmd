# args: -q --json tests/conformance/corpus/scenarios/submodule_ordering__strict/program.pt2
# --json: every event object carries "detail" (SINK's placeholders, DEDUP's
# comparison, DISPATCH's calls and elided targets, REORDER's moves);
# info event answers {"event": ...}, explain {"explain": {subject, event,
# text}}.
unflatten run
info event 20
info event 23
info event 24
info event 25
explain 25
explain p_mod1_weight
