# args: tests/fixtures/lint/unflatten_hazards.json
# set output json mid-session; lint's findings come as data; a sourced
# script's commands answer one object each; the failing one stops the run.
echo text until here
set output json
source scripts/ci-lint.exdb
