# args: tests/fixtures/lint/clean.json
# scripts/ci-lint.exdb (see its header)
source scripts/ci-lint.exdb
