# args: tests/fixtures/example.json
# Stepping the outliner as gdb steps a program: step prints each event in
# the words of PyTorch's _ModuleFrame trace (STEP, copying, Creating new
# stack frame for, outlining); next steps over child frames, finish runs
# until the frame exits, reverse-* replay backwards, goto jumps.
backtrace
restart
stepi 3
backtrace
step
step 2
goto 57
step 3
backtrace
next
finish
reverse-stepi 4
reverse-step
reverse-next
reverse-finish
next 2
goto 2
unflatten run
step
