# args: tests/fixtures/source/tinynet.pt2
# Source lines as gdb shows C: a node's line (the innermost frame of its
# stack_trace), its module stack with the line each module was called at,
# the lines of a module, the calls of a module, list source through
# substitute-path (the traces name /tmp/exdb-tinynet-origin, which gen.py
# removed), break line with a file suffix, and STEP lines and bt ending in
# "at FILE:LINE".
set on-error continue
info line relu
info line %linear_1
info line x
info line nosuch
info lines
info lines blocks.0
info lines norm
info lines nosuch
info calls norm
info calls blocks.1.fc
info calls blocks
info calls ""
list source relu
set substitute-path /tmp/exdb-tinynet-origin tests/fixtures/source
show substitute-path
list source relu
list source tinynet.py:29
list source nosuch.py:3
set listsize 4
list source add
set listsize 10
break line tinynet.py:14
break line net.py:14
break line tinynet.py:99
break line tinynet.py
run
bt
continue
bt
list source
info breakpoints
delete
restart
step 13
set substitute-path /tmp/exdb-tinynet-origin
show substitute-path
set substitute-path /tmp/exdb-tinynet-origin
