# args: -q tests/fixtures/sig_names_targets.json
# tests/malformed/_valid.json with two signature faults torch's verifier
# (_verify_exported_program_signature) and ep.module() would meet: a
# user_input_mutation output naming no user input, and forward_arg_names
# with more names than the root in_spec has arguments.
lint
