# args: -q tests/fixtures/example.json
# render's options are table rows parsed by one parser (issue 23): one error
# text for every view, render diff included; a view refuses another's option
set on-error continue
render flat --depth 3 -o x.dot
render modules --depth 0 -o x.dot
render modules --depth x -o x.dot
render modules --depth
render flat -o
render flat --output
render frame --window 0 -o x.dot
render diff --layout
render diff tests/fixtures/tied_embeddings.json --rankdir
render tree --hide params -o x.dot
render tree --bogus -o x.dot
render flat --hide bogus -o x.dot
render flat --hide -o x.dot
render modules --layout bogus -o x.dot
render modules --rankdir sideways -o x.dot
render modules --limit none -o x.dot
render module -o x.dot
render module a b -o x.dot
render tree extra -o x.dot
render flat --by-module
render nosuch
