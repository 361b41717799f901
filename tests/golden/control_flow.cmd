# args: -q tests/fixtures/example.json
# gdb's if/else/while/end and convenience variables in a script (issue 25
# item 7): $_event, $_exitcode, $_nodes, $lint_errors, set $NAME = EXPR.
set on-error continue
print $_event
print $_exitcode
print $_isvoid($_exitcode)
print $_nodes
set $i = 0
while $i < 3
  stepi
  if $i == 1
    echo second step
  else
    echo another step
  end
  set $i = $i + 1
end
print $i
print $_event * 10 + $i
print ($i + 1) * 2 - 1 == 7 && !0
lint
print $lint_errors
if $lint_errors == 0 && $_isvoid($_exitcode)
  echo lint is clean, the run is not finished
end
unflatten run
if $_exitcode == 0
  echo unflatten completed at event
  print $_event
else
  echo unflatten failed
end
# errors: each one line, the script goes on
print $nope
print $nope + 1
set $_event = 3
set $x 1
print $x
if 1 +
end
while (1
end
print $i / ($i - 3)
# an error in a body ends the whole block
if 1
  echo before the error
  print $nope + 1
  echo not printed
end
# a loop that never ends stops at its cap with an error
set $n = 0
while 1
  set $n = $n + 1
end
print $n
