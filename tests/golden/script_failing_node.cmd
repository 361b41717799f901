# args: tests/conformance/corpus/scenarios/err_output_not_found__strict__preserve/program.pt2
# scripts/failing-node.exdb (see its header)
source scripts/failing-node.exdb
