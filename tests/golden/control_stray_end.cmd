# args: -q tests/fixtures/example.json
# A stray end or else at the top level, as gdb 13 says it (gdb -batch -ex end:
# "This command cannot be used at the top level."; gdb has no top-level else
# command). With on-error continue the script goes on; the exit status is 1.
set on-error continue
end
else
echo still here
if 1
  echo in the body
end
end
