# args: tests/fixtures/example.json
# render flat --hide (issue 16 item 17): any comma list of params, buffers,
# constants (state), getitems, dead; the title counts what is hidden; a
# hidden getitem's users read the producer through "[i]". set rankdir and
# --rankdir: TB, LR or auto (each view's own). Timings off: they vary.
set timing off
render flat --hide params,buffers,constants,getitems,dead -o /tmp/exdb-golden-hide.dot
pipe echo | awk '{ sub(/\\$/, ""); printf "%s", $0 }' /tmp/exdb-golden-hide.dot | grep -o 'hidden: [^"]*'
pipe echo | grep -c 'label="\[0\]"' /tmp/exdb-golden-hide.dot
render flat --hide state -o /tmp/exdb-golden-hide2.dot
render flat --hide dead,getitems -o /tmp/exdb-golden-hide3.svg
show rankdir
set rankdir LR
show rankdir
render tree -o /tmp/exdb-golden-hide-tree.dot
pipe echo | grep -o 'rankdir=[A-Z]*' /tmp/exdb-golden-hide-tree.dot
render tree --rankdir TB -o /tmp/exdb-golden-hide-tree.dot
pipe echo | grep -o 'rankdir=[A-Z]*' /tmp/exdb-golden-hide-tree.dot
set on-error continue
render flat --hide params,nope -o /tmp/exdb-golden-hide.dot
render flat --hide -o /tmp/exdb-golden-hide.dot
render tree --hide dead -o /tmp/exdb-golden-hide.dot
set rankdir BT
