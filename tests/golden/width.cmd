# args: tests/fixtures/example.json
# set width N: listing lines wider than N columns are cut with "…" (colour
# codes take no column); --all shows them whole; unlimited turns it off.
set width 60
show width
stepi 2
list
print node addmm
info node-map --all
set width unlimited
show width
step
