# args: -q tests/fixtures/stack_trace_no_code.json
# relu's stack_trace ends with a frame that has no code line ("<frozen
# runpy>", as CPython prints frames it has no source for): that frame is
# kept with an empty code text, and the line of the program is the last
# frame with code.
info lines
info calls fc
info line relu
list source net.py:13
