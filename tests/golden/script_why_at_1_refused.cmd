# args: -q tests/conformance/corpus/scenarios/multiple_graphs_preserve_signature_no_error__strict/program.pt2
# scripts/why-at-1.exdb where dedup refuses: n and n@1 keep calls=1 each and
# the DEDUP line says where they differ.
source scripts/why-at-1.exdb
