# args: -q tests/fixtures/example.json -ex 'set $k = 2' -ex 'while $k > 0' -ex 'stepi' -ex 'set $k = $k - 1' -ex 'end' -ex 'if $_event == 2' -ex 'echo two events' -ex 'else' -ex 'echo not two' -ex 'end'
# if/while bodies from the -ex list (read up to "end", never from standard
# input); then an "if" whose "end" never comes fails at the end of the input.
print $k
if 1
  echo never run
