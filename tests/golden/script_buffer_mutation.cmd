# args: tests/fixtures/example.json
# scripts/buffer-mutation.exdb (see its header)
source scripts/buffer-mutation.exdb
