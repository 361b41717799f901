# args: -q tests/fixtures/const_inputs_multi_out.json
# diff of a program with constant user inputs (shown with their value) and
# a node whose outputs hold None and a tensor list, against the program it
# was made from and against one with a torchbind object input (its class).
diff tests/malformed/_valid.json
diff tests/fixtures/unflatten/constant_obj.json
