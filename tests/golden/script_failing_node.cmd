# args: tests/fixtures/lint/unflatten_hazards.json
# scripts/failing-node.exdb (see its header)
source scripts/failing-node.exdb
