# args: tests/fixtures/example.json
# set logging on [FILE] / off: the output and the errors are copied to the
# file (colour codes left out), appended to unless "set logging overwrite
# on"; redirect sends them to the file only; show logging; the settings
# changed while logging wait for the next "set logging on"; errors.
set on-error continue
show logging
set logging overwrite on
set logging file /tmp/exdb-golden-log.txt
show logging
set logging on
show logging
info program
set color on
break relu
run
set color off
print node nosuch
set logging off
echo [not in the log]
set logging overwrite off
set logging on
echo [appended]
set logging redirect on
set logging off
set logging overwrite on
set logging on /tmp/exdb-golden-log2.txt
echo [only in the file]
print node nosuch
show logging
set logging off
pipe echo | cat /tmp/exdb-golden-log.txt
pipe echo | cat /tmp/exdb-golden-log2.txt
set logging off
set logging on /nonexistent-dir/x.txt
set logging bogus
set logging
set logging on a b
set logging overwrite maybe
