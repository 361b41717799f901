# args: -q tests/conformance/corpus/scenarios/multiple_graphs_preserve_signature_no_error__strict/program.pt2
# A torch-made program whose module n is called twice with different
# constants (x + 1, x + 2): dedup refuses, so n and n@1 both stay; explain
# n@1 says which event made it, the first differing node, and the diff to run.
explain n@1
diff module n n@1
explain n@1 --json
