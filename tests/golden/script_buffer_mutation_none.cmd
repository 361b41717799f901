# args: tests/fixtures/unflatten/nested.json
# scripts/buffer-mutation.exdb on a program with a buffer it does not mutate
# (as every eval-mode export): no copy_ to stop at, so it says there are no
# buffer mutations and ends with status 0.
source scripts/buffer-mutation.exdb
echo not reached
