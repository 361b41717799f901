# args: tests/conformance/corpus/scenarios/buffer_mutation__strict/program.pt2
# print code frame at a stop: the code of the graph the outliner is
# building; print node shows the node's line of print code; save code
# writes the code as a Python file (refusing to replace a file without
# --force); --json answers carry the code and each node's line.
break module foo
run
step
print code frame
print readable frame
print code frame 1
print readable frame 1
print node add_
save code --force build/golden_code_frame.py
pipe echo | cat build/golden_code_frame.py
set on-error continue
print code frame 5
save code module foo build/golden_code_frame.py
continue
print code frame
save code --force module foo build/golden_code_frame.py
pipe echo | cat build/golden_code_frame.py
save code module foo build/golden_code_frame.py
save code
set output json
print code
print readable
print code module foo
print code module
print node sub
