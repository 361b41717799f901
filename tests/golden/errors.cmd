# args: -q
# Errors keep the session alive with on-error continue; the exit status is still 1.
set on-error continue
info program
foo
print
in
info nonsense
load /nonexistent/model.pt2
load tests/fixtures/example.md
echo "quoted  words" and\ escapes
help print
help load
show
