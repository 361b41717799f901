# args: tests/fixtures/lint/clean.json
# scripts/failing-node.exdb on a program that unflattens: it says so and
# ends there with status 0, without the finished tree's frame and node_map.
source scripts/failing-node.exdb
echo not reached
