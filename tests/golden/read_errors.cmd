# args: -q tests/fixtures/example.json
# A read error is an error, not the end of a script (issue 13 item 10): a
# directory, a line of NUL bytes (/dev/zero grew to 4 GB before).
set on-error continue
source tests
source /dev/zero
echo still here
# the lines `commands` reads are read the same way (a NUL byte inside its list)
source tests/fixtures/scripts/nul_in_commands.exdb
