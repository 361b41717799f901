# args: -q tests/fixtures/example.json
# Stepping commands before the run has a frame: reverse-finish and
# reverse-next at event 0 stay there, next before the root frame exists
# steps one event, as step does.
set on-error continue
reverse-finish
reverse-next
next
next
