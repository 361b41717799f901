# args: -q tests/fixtures/tied_embeddings.json
# issue 25 item 8: lint --fail-on error|warning|note (CI fails on warnings);
# the JSON answer counts the findings per severity
set on-error continue
lint
lint --fail-on error
lint --fail-on warning
lint --fail-on note
lint --fail-on bogus
lint --fail-on
lint --fail-on warning --json
