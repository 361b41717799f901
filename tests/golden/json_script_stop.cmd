# args: --json -q tests/fixtures/example.json
# --json and on-error stop: the first failing command ends the script, and one
# object says so (the script, the line, the command, its error, how many
# commands did not run), so tools see why the rest is missing.
echo before
print node rleu
# the commands below never run
echo after
info program
