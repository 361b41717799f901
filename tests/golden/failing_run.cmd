# args: tests/fixtures/lint/unflatten_hazards.json
# A run that fails as PyTorch does: where it stopped, the frames, going back.
set on-error continue
break sin
run
step
backtrace
list
reverse-stepi
backtrace
continue
goto 3
