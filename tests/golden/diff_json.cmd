# args: -q --json tests/fixtures/diff/v2.json
# The same diff the other way round, as JSON (docs/json.md "diff").
diff tests/fixtures/diff/v1.json --no-modules
diff module blk blk@1
