# args: -q tests/conformance/corpus/scenarios/sink_mutated_elsewhere__strict__functional/program.pt2
# c mutates a.buf through an unregistered reference (torch-made scenario
# sink_mutated_elsewhere, functional IR): _sink_params keeps the buffer an
# input of c, and explain says the program returns its new value.
explain a.buf
