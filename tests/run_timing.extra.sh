#!/bin/sh
# run_timing.extra.sh EXDB - `set timing on` (issue 25 item 8): every command
# says on stderr how long it took ("time: N.NNN s", one line per command);
# by default (render) and off, no command but render does. The times vary,
# so this checks the lines' shape and count, not their values.
exdb=${1:?usage: run_timing.extra.sh EXDB}
cd "$(dirname "$0")/.." || exit 1
pass=0 fail=0
check() { # NAME EXPECTED-COUNT ARGS...
    name=$1 want=$2
    shift 2
    n=$("$exdb" -q tests/fixtures/example.json "$@" -batch 2>&1 >/dev/null | grep -cE '^time: [0-9]+\.[0-9]{3} s$')
    if [ "$n" -eq "$want" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL timing: $name: $n time lines, expected $want"
    fi
}
check "set timing on: each command" 4 -ex 'set timing on' -ex 'info facts' -ex 'print code' -ex 'lint'
check "the default (render): none" 0 -ex 'info facts' -ex 'print code'
check "set timing off: none" 0 -ex 'set timing off' -ex 'info facts'
check "set timing render: none after it" 1 -ex 'set timing on' -ex 'set timing render' -ex 'info facts'
echo "timing: $pass passed, $fail failed"
[ $fail -eq 0 ]
