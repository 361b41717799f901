# args: --json tests/fixtures/example.json
# list after outlining answers "decisions" (done events with their number,
# the pending work of the current phase, the phases ahead); info events
# answers "events".
goto 185
set listsize 5
list
info events 184-188
