# args: tests/fixtures/lint/unflatten_hazards.json
# scripts/ci-lint.exdb on a program with errors: exit status 1 at lint.
source scripts/ci-lint.exdb
echo not reached
