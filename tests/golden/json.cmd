# args: --json tests/fixtures/example.json
# --json: every command answers one JSON object per line (also errors).
set on-error continue
info program
stepi 2
step
break module encoder.layers.0.act
continue
backtrace
info breakpoints
info node-map
list
set max-lines 2
info seen-modules
nosuch
print node rleu
goto 5
show output
