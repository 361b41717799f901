# args: --json -q tests/fixtures/example.json -ex "echo first" -ex "goto 999999" -ex "echo never"
# --json: a failing -ex command stops the -ex list with one object naming it
# (line: which -ex); the script after it (this file) does not run.
echo never either
