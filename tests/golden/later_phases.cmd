# args: tests/fixtures/example.json
# After outlining, list shows the later phases' decisions around the cursor
# (done events, => the next decision, the phases still ahead); info events
# lists the event log (a range, a kind, or "later").
set on-error continue
goto 159
list
goto 165
list
list
list 10
goto 185
list
set listsize 4
list
list
unflatten run
list
info events later
info events 150-160
info events sink 180-
info events dedup
goto 170
info events 168-
info events nosuch
stepi 2
reverse-stepi
