# args: -q tests/conformance/corpus/scenarios/multiple_graphs_shared_submodule_1__strict__preserve/program.pt2
# n is called twice with different constants: DEDUP refuses and names the
# first differing node; p's calls merge with n's module (other fqn) and with
# each other (same fqn); DISPATCH says which calls one dispatcher holds and
# which call_module targets lost their "@N".
unflatten run
info events later
info event 26
explain 26
info event 27
explain 28
info event 29
info event 31
explain 32
