# args: tests/conformance/corpus/scenarios/err_output_not_found__strict__preserve/program.pt2
# A run that fails as PyTorch does: where it stopped, the frames, going back.
set on-error continue
break add
run
step
backtrace
list
reverse-stepi
backtrace
continue
goto 3
