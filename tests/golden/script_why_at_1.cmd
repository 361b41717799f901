# args: tests/fixtures/example.json
# scripts/why-at-1.exdb (see its header)
source scripts/why-at-1.exdb
