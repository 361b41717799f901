# args: --json tests/fixtures/unflatten/dispatch.json
# --json answers carry the data beside the text (docs/json.md): a node with
# structured args, users, value, module stack and signature role; the graph
# as a node list; a dispatcher's graphs, one per call; the module tree; the
# signature and the module call graph's preserved signatures; settings; the
# written file and its counts (timing off: the time a render took is no
# transcript's business).
set on-error continue
print node add_1 output
info signature
info module-call-graph
info modules
print module n
print module n@1
restart
step 2
print frame
show listsize
set listsize 3
save --dry-run
set timing off
render tree -o /tmp/exdb-golden-json-data.dot
pipe echo | rm -f /tmp/exdb-golden-json-data.dot
help undo
echo done
