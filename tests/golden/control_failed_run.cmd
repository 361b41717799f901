# args: -q tests/fixtures/unflatten/error_no_stack.json
# $_exitcode is 1 after the run stopped at an error; a stray end is no command.
set on-error continue
unflatten run
print $_exitcode
if $_exitcode
  echo the run failed at event
  print $_event
end
end
