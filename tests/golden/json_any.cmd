# args: -q tests/fixtures/example.json
# Any command ending in --json answers that one command as JSON (issue 23);
# lint declares its own --json (the findings as an array), which it keeps.
set on-error continue
info facts --json
show listsize   --json
print node relu --json
info nosuch --json
echo "--json"
echo text again
lint --json
