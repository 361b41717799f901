#!/bin/sh
# run_tmux.sh EXDB - drives exdb's interactive prompt in tmux (send-keys,
# capture-pane): the prompt, Tab completion of commands, subcommands and
# node names, Tab Tab's list in natural order, an empty line repeating the last stepping command, history
# kept in $HOME/.exdb_history across sessions (HOME is a temporary
# directory), until/advance/display completion and displays after a stop,
# Ctrl-C interrupting a long `continue` or `render` back to the prompt, and Ctrl-C at
# an idle prompt cancelling the line (the session, its breakpoints, position
# and displays stay), the gdb habits of issue 16 (completion of start,
# ignore, apropos, aliases...; commands typed at the prompt; gdb's pager:
# Return, c, q, Ctrl-C, set height, set pagination, none in batch mode or
# with commands on a pipe; pipe). First, without tmux, SIGINT with commands
# on a pipe: it stops the command it lands in and the session goes on.
# Prints "tmux: N passed, M failed".
exdb=${1:?usage: run_tmux.sh EXDB}
case $exdb in /*) ;; *) exdb=$(pwd)/$exdb ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
tmp=$(mktemp -d)
pass=0 fail=0 nstart=0 sock=
T() { tmux -L "$sock" "$@"; }
cleanup() {
    [ -n "$sock" ] && T kill-server 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
# a synthetic program big enough that `continue` runs for a while
big=
if command -v python3 >/dev/null 2>&1 &&
    python3 scripts/gen_synth.py --nodes 60000 --out "$tmp/big.json" >/dev/null 2>&1; then
    big=$tmp/big.json
fi

# SIGINT with commands on a pipe (no terminal): SIGINTs land in the
# `continue` (which stops) and may land in the idle read around it, which
# must not be taken for the end of the input: the commands after it still
# run. Driven by states, never by time (issue 22: on a busy machine the
# sanitizer build took longer to load than the signals lasted): the
# commands go through a FIFO; `continue` is sent once the program is loaded,
# SIGINTs follow every 50 ms until exdb says it was interrupted, and only
# then the next command and the end of input.
# wait_for FILE PATTERN [PID]: until FILE holds PATTERN (or PID has ended,
# or 600 s as a last resort against a hang); 0 when it does
wait_for() {
    n=0
    while ! grep -q "$2" "$1" 2>/dev/null; do
        { [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; } && return 1
        [ $n -ge 12000 ] && return 1
        n=$((n + 1))
        sleep 0.05
    done
}
if [ -n "$big" ]; then
    mkfifo "$tmp/cmds"
    env ASAN_OPTIONS=detect_leaks=0 "$exdb" "$big" <"$tmp/cmds" >"$tmp/pipe.out" 2>&1 &
    pid=$!
    exec 3>"$tmp/cmds"
    wait_for "$tmp/pipe.out" "^Loaded " $pid
    echo continue >&3
    n=0
    while ! grep -q "Interrupted after event" "$tmp/pipe.out" && kill -INT "$pid" 2>/dev/null &&
        [ $n -lt 12000 ]; do
        sleep 0.05
        n=$((n + 1))
    done
    echo 'echo after-the-interrupt' >&3
    exec 3>&-
    wait "$pid"
    rc=$?
    if grep -q "Interrupted after event" "$tmp/pipe.out" &&
        grep -q "after-the-interrupt" "$tmp/pipe.out" && [ $rc -eq 0 ]; then
        pass=$((pass + 1))
        echo "ok   pipe: SIGINT stops the command, the session goes on"
    else
        fail=$((fail + 1))
        echo "FAIL pipe: SIGINT stops the command, the session goes on (exit $rc)"
        tail -5 "$tmp/pipe.out" | cut -c1-150 | sed 's/^/     | /'
    fi
else
    echo "skip pipe: SIGINT (python3 scripts/gen_synth.py did not run)"
fi

# Standard input that cannot be read as text (/dev/zero: NUL bytes, one
# endless line) is an error with exit status 1, not a silent end of input.
env ASAN_OPTIONS=detect_leaks=0 "$exdb" -q tests/fixtures/example.json </dev/zero >"$tmp/zero.out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "<stdin>:1: a NUL byte" "$tmp/zero.out"; then
    pass=$((pass + 1))
    echo "ok   pipe: /dev/zero on stdin is an error"
else
    fail=$((fail + 1))
    echo "FAIL pipe: /dev/zero on stdin is an error (exit $rc)"
    tail -3 "$tmp/zero.out" | cut -c1-150 | sed 's/^/     | /'
fi

if ! command -v tmux >/dev/null 2>&1; then
    echo "tmux is not installed: the interactive tests are skipped"
    echo "tmux: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
fi

# start ARGS...: a fresh exdb in a 200x50 window of a tmux server of its
# own (leak checks off: a session killed at the end frees nothing).
start() {
    [ -n "$sock" ] && T kill-server 2>/dev/null
    nstart=$((nstart + 1))
    sock=exdb-test-$$-$nstart
    T new-session -d -x 200 -y 50 \
        "env HOME=$tmp TERM=xterm NO_COLOR=1 ASAN_OPTIONS=detect_leaks=0 $exdb $*; sleep 60"
}
screen() { T capture-pane -p -S -300 2>/dev/null; }
# mark TEXT: echoes TEXT; since TEXT: the screen from its first line with
# TEXT on; check_since MARK NAME TEXT [SECONDS]: as check, after MARK.
mark() {
    T send-keys "echo $1" Enter
    wait_for "$1" >/dev/null
}
since() { screen | awk -v m="$1" 'index($0, m) { f = 1 } f'; }
check_since() {
    n=$(( ${4:-30} * 10 ))
    while [ "$n" -gt 0 ] && ! since "$1" | grep -qF -- "$3"; do
        sleep 0.1
        n=$((n - 1))
    done
    if since "$1" | grep -qF -- "$3"; then ok "$2"; else bad "$2 (expected \"$3\")"; fi
}
# wait_for TEXT [SECONDS]: until the pane shows TEXT (fixed string).
wait_for() {
    n=$(( ${2:-30} * 10 ))
    while [ "$n" -gt 0 ]; do
        screen | grep -qF -- "$1" && return 0
        sleep 0.1
        n=$((n - 1))
    done
    return 1
}
ok() {
    pass=$((pass + 1))
    echo "ok   tmux: $1"
}
bad() {
    fail=$((fail + 1))
    echo "FAIL tmux: $1"
    screen | tail -15 | sed 's/^/     | /'
}
check() { # check NAME TEXT [SECONDS]
    if wait_for "$2" "$3"; then ok "$1"; else bad "$1 (expected \"$2\")"; fi
}

start tests/fixtures/example.json
check "the prompt" "(exdb)" 15

T send-keys "inf" Tab
T send-keys "progr" Tab Enter
check "Tab completes a command and a subcommand" "schema version:    8.20"

T send-keys "print node p_head_b" Tab Enter
check "Tab completes a node name" "%p_head_bias : [num_users=1] = placeholder"

# a second Tab lists the matches in natural order, addmm_9 before addmm_10
# (issue 25; libedit's own list sorts them with strcmp), and the line stays
T send-keys "print node addmm_" Tab Tab
check "Tab Tab lists matches in natural order" "addmm_8   addmm_9   addmm_10  addmm_11"
T send-keys "12" Enter
check "the line stays after the list" "%addmm_12 : [num_users=1]"
# more than 100 matches: asked first, as libedit asks; y lists them
mark list-query-mark
T send-keys "print node " Tab Tab
check_since list-query-mark "more than 100 matches are asked for first" "Display all 102 possibilities? (y or n)"
T send-keys y
check_since list-query-mark "y lists them, naturally sorted" "addmm_4                           mul"
T send-keys C-u

# a stray end at the prompt: gdb's message, and the prompt goes on (issue 25)
T send-keys -l "end" # (the literal word: tmux reads "end" as the End key)
T send-keys Enter
check "a stray end says gdb's message" "This command cannot be used at the top level."
T send-keys "echo alive-after-end" Enter
check "the prompt goes on after a stray end" "alive-after-end"

T send-keys "break module encoder.layers.1.no" Tab
check "Tab completes a module fqn" "(exdb) break module encoder.layers.1.norm1"
T send-keys C-u
T send-keys "load tests/fixtures/unflatten/relu_tw" Tab
check "Tab completes a file name after load" "(exdb) load tests/fixtures/unflatten/relu_twice.json"
T send-keys C-u
# a directory is completed with its '/' and no space, and the next Tab goes
# on inside it (issue 16 item 4: it stopped at "outdir " and then offered
# render's options)
mkdir -p "$tmp/outdir/inner" && : >"$tmp/outdir/inner/pic.svg"
T send-keys "render flat -o $tmp/outd" Tab
check "Tab completes a directory after -o with its /" "(exdb) render flat -o $tmp/outdir/"
if screen | grep -qF "(exdb) render flat -o $tmp/outdir/ "; then bad "no space after a completed directory"; else ok "no space after a completed directory"; fi
T send-keys Tab Tab
check "the next Tab goes on inside the directory" "(exdb) render flat -o $tmp/outdir/inner/pic.svg"
T send-keys C-u
# render's views and options come from its table rows (issue 23: the old
# word list had drifted: no module, tree, frame, --hide, --window, --rankdir)
T send-keys "render tr" Tab
check "Tab completes render tree" "(exdb) render tree"
T send-keys C-u "render tree --ran" Tab
check "Tab completes render's --rankdir" "(exdb) render tree --rankdir"
T send-keys "L" Tab
check "Tab completes --rankdir's value" "(exdb) render tree --rankdir LR"
T send-keys C-u "render frame --wi" Tab
check "Tab completes render frame --window" "(exdb) render frame --window"
T send-keys C-u "render flat --hi" Tab
check "Tab completes render flat --hide" "(exdb) render flat --hide"
T send-keys C-u "render module encoder.layers.1.no" Tab
check "Tab completes render module's fqn" "(exdb) render module encoder.layers.1.norm1"
T send-keys C-u "lint module encoder.layers.1.no" Tab
check "Tab completes lint module's fqn" "(exdb) lint module encoder.layers.1.norm1"
T send-keys C-u

T send-keys "stepi" Enter
wait_for "[1] STEP 0" >/dev/null
T send-keys Enter
check "an empty line repeats the last stepping command" "[2] STEP 1 in <root>"

# until, advance, display (issue 5): completion, the displays after a stop
T send-keys "undis" Tab
check "Tab completes undisplay" "(exdb) undisplay"
T send-keys C-u "advance mod" Tab
check "Tab completes advance's location word" "(exdb) advance module"
T send-keys C-u "display node-m" Tab
check "Tab completes a display expression" "(exdb) display node-map"
T send-keys C-u "display backtrace" Enter
wait_for "1: backtrace =" >/dev/null
T send-keys "until" Enter
wait_for "[3] STEP 2 in <root>" >/dev/null
T send-keys Enter
check "an empty line repeats until, the displays follow" "[4] STEP 3 in <root>"
check "the displays are shown after each stop" "#0  <root>  demo.TinyModel  4 copied"
T send-keys "undisplay" Enter

T send-keys "echo hist-marker-42" Enter
wait_for "hist-marker-42" >/dev/null
T send-keys "quit" Enter
n=0 # until exdb has written its history at the quit (or 30 s)
while [ $n -lt 300 ] && ! grep -q "hist-marker-42" "$tmp/.exdb_history" 2>/dev/null; do
    sleep 0.1
    n=$((n + 1))
done
if grep -q "hist-marker-42" "$tmp/.exdb_history" 2>/dev/null; then
    ok "history is written to \$HOME/.exdb_history"
else
    bad "history is written to \$HOME/.exdb_history"
fi

start tests/fixtures/example.json
wait_for "(exdb)" 15 >/dev/null
T send-keys Up Up
check "history comes back in a new session" "(exdb) echo hist-marker-42"
T send-keys C-u "quit" Enter

# Ctrl-C at an idle prompt cancels the line, as gdb's: the session stays
# with its breakpoints, position and displays.
start tests/fixtures/example.json
wait_for "(exdb)" 15 >/dev/null
T send-keys "break relu" Enter "display backtrace" Enter "stepi 3" Enter
wait_for "[3] STEP 2 in <root>" >/dev/null
T send-keys "print gra"
wait_for "(exdb) print gra" >/dev/null
T send-keys C-c
check "Ctrl-C at the prompt cancels the line" "Quit"
if screen | grep -qF "graph():"; then bad "the cancelled line did not run"; else ok "the cancelled line did not run"; fi
T send-keys "info breakpoints" Enter
check "breakpoints stay after Ctrl-C at the prompt" "breakpoint  keep  y"
T send-keys "stepi" Enter
check "the position stays after Ctrl-C at the prompt" "[4] STEP 3 in <root>"
check "the displays stay after Ctrl-C at the prompt" "#0  <root>  demo.TinyModel  4 copied"
T send-keys C-c C-c
wait_for "(exdb)" >/dev/null
T send-keys "echo still-here" Enter
check "exdb is still running after Ctrl-C twice" "still-here"
T send-keys "quit" Enter

# gdb habits (issue 16, item 5): completion of the new commands, breakpoint
# commands typed at the prompt, the pager, pipe.
start tests/fixtures/example.json
wait_for "(exdb)" 15 >/dev/null
T send-keys "apro" Tab
check "Tab completes apropos" "(exdb) apropos"
T send-keys C-u "ign" Tab
check "Tab completes ignore" "(exdb) ignore"
T send-keys C-u "sta" Tab
check "Tab completes start" "(exdb) start"
T send-keys C-u "set pag" Tab
check "Tab completes set pagination" "(exdb) set pagination"
# the settings table (repl/settings.c) is what completion offers: rankdir
# was missing from completion's own list before it
T send-keys C-u "set rank" Tab
check "Tab completes set rankdir" "(exdb) set rankdir"
T send-keys "L" Tab
check "Tab completes a setting's value" "(exdb) set rankdir LR"
T send-keys C-u "help aliase" Tab
check "Tab completes help aliases" "(exdb) help aliases"
T send-keys C-u "alias pm = print module" Enter "pm encoder.layers.1.no" Tab
check "Tab completes after an alias as after its command" "(exdb) pm encoder.layers.1.norm1"
T send-keys C-u "p" Tab Tab
check "Tab offers an alias with the commands" "pm"
T send-keys C-u "break relu_1" Enter "commands" Enter
check "commands at the prompt says how to end" 'End with a line saying just "end".'
T send-keys "silent" Enter
check "commands asks for each line with >" ">silent"
T send-keys "info frame" Enter
T send-keys -l "end" # (the literal word: tmux reads "end" as the End key)
T send-keys Enter "run" Enter
check "a breakpoint's commands typed at the prompt run at its stop" "Frame #0 (the 14th frame created): encoder.layers.0.act@1"
if screen | grep -q "^Breakpoint 1, "; then bad "silent leaves out the stop message"; else ok "silent leaves out the stop message"; fi
T send-keys "pipe print graph | tail -1" Enter
check "pipe at the prompt" "    return (add, add_3, addmm_13)"
T send-keys "quit" Enter

# the pager: the page is the window's 50 rows unless "set height"
start tests/fixtures/example.json
wait_for "(exdb)" 15 >/dev/null
T send-keys "print graph" Enter
check "the pager stops a long listing at a full screen" "--Type <RET> for more, q to quit, c to continue without paging--"
T send-keys Enter
n=0
while [ $n -lt 300 ] && [ "$(screen | grep -cF -- "--Type <RET>")" -lt 2 ]; do sleep 0.1; n=$((n + 1)); done
if [ "$(screen | grep -cF -- "--Type <RET>")" -ge 2 ]; then ok "Return shows the next page"; else bad "Return shows the next page"; fi
T send-keys "q" Enter
check "q quits the listing" "Quit"
if screen | grep -qF "return (add, add_3, addmm_13)"; then bad "q drops the rest"; else ok "q drops the rest"; fi
mark M1
T send-keys "set height 10" Enter "print tabular" Enter
check_since M1 "set height: a page of 10 rows" "--Type <RET> for more"
T send-keys "c" Enter
check_since M1 "c shows the rest without asking" "output         output"
mark M2
T send-keys "step 30" Enter
check_since M2 "a stepping trace is paged too" "--Type <RET> for more"
T send-keys C-c
check_since M2 "Ctrl-C at the pager quits" "Quit"
T send-keys "echo still-going" Enter
check_since M2 "the session goes on after Ctrl-C at the pager" "still-going"
mark M3
T send-keys "set pagination off" Enter "print graph" Enter
check_since M3 "set pagination off: no pager" "    return (add, add_3, addmm_13)"
if since M3 | grep -qF -- "--Type <RET>"; then bad "no question with pagination off"; else ok "no question with pagination off"; fi
T send-keys "quit" Enter

# while ... end typed at the prompt (issue 25 item 7): the body is asked
# for with ">", and Ctrl-C stops the loop between two commands of its body;
# the session goes on with the variable where the loop left it.
start tests/fixtures/example.json
wait_for "(exdb)" 15 >/dev/null
T send-keys "set \$n = 0" Enter "while \$n < 100000" Enter
wait_for ">" >/dev/null
T send-keys "set \$n = \$n + 1" Enter "lint" Enter
T send-keys -l "end" # (the literal word: tmux reads "end" as the End key)
T send-keys Enter
wait_for "0 errors, 0 warnings, 2 notes." 30 >/dev/null
T send-keys C-c
check "Ctrl-C stops a while loop" "Quit" 30
mark W1
# (echo joins its words with one space: the typed line does not match)
T send-keys "if \$n < 100000" Enter "echo stopped    early" Enter
T send-keys -l "end"
T send-keys Enter
check_since W1 "the loop stopped before its end" "stopped early" 30
T send-keys "quit" Enter

# never in batch mode or with commands on a pipe, even on a terminal
T kill-server 2>/dev/null
nstart=$((nstart + 1))
sock=exdb-test-$$-$nstart
T new-session -d -x 200 -y 20 \
    "printf 'print graph\\necho piped-done\\n' | env HOME=$tmp TERM=xterm NO_COLOR=1 ASAN_OPTIONS=detect_leaks=0 $exdb tests/fixtures/example.json; env HOME=$tmp TERM=xterm NO_COLOR=1 ASAN_OPTIONS=detect_leaks=0 $exdb tests/fixtures/example.json -ex 'print tabular' -ex 'echo batch-done' -batch; sleep 60"
if wait_for "batch-done" 20 && ! screen | grep -qF -- "--Type <RET>" && screen | grep -qF "piped-done"; then
    ok "no pager with commands on a pipe or in batch mode"
else
    bad "no pager with commands on a pipe or in batch mode"
fi

# Ctrl-C during a long continue
# interrupt WORD COMMAND TEXT: Ctrl-C during a long COMMAND, until it says
# TEXT. COMMAND runs in a block whose echo says it is next (a state, not a
# pause: the echo is typed `WORD\ing-N`, printed `WORDing-N`); a Ctrl-C
# landing in the block before COMMAND starts ends the block, which is then
# typed again (5 times at most).
interrupt() {
    tries=0
    while [ $tries -lt 5 ] && ! screen | grep -qF "$3"; do
        tries=$((tries + 1))
        mark "$1-attempt-$tries"
        T send-keys "if 1" Enter "echo $1\\ing-$tries" Enter "$2" Enter
        T send-keys -l "end" # (the literal word: tmux reads "end" as the End key)
        T send-keys Enter
        wait_for "$1ing-$tries" 60 >/dev/null
        n=0
        while [ $n -lt 300 ] && ! since "$1-attempt-$tries" | grep -qF -e "$3" -e "Quit"; do
            T send-keys C-c
            sleep 0.1 # the pace of the keys, not a wait for exdb
            n=$((n + 1))
        done
        wait_for "(exdb)" 10 >/dev/null
    done
}

if [ -n "$big" ]; then
    start "$big"
    wait_for "(exdb)" 60 >/dev/null
    # The IR first: the program (60k nodes) is opened shape first and built
    # in the background, and a Ctrl-C while a command waits for that build
    # stops the wait instead (Quit; tests/shape_repl.py).
    T send-keys "info nodes output" Enter
    wait_for "1 node matches." 120 >/dev/null
    interrupt continu "continue" "Interrupted after event"
    check "Ctrl-C interrupts a long continue" "Interrupted after event" 30
    T send-keys "backtrace" Enter
    check "the session goes on after Ctrl-C" "#0  " 10
    # Ctrl-C during a long render (issue 13 item 13): dot on 60k nodes
    # runs for hours; the layout's child process is killed, nothing is
    # written and the session goes on.
    interrupt render "render flat --force --layout dot -o $tmp/never.svg" "render interrupted"
    check "Ctrl-C interrupts a long render" "never.svg: render interrupted; nothing written" 30
    if [ -e "$tmp/never.svg" ]; then bad "an interrupted render writes nothing"; else ok "an interrupted render writes nothing"; fi
    T send-keys "info program" Enter
    check "the session goes on after an interrupted render" "schema version:" 10
else
    echo "skip tmux: Ctrl-C during continue (python3 scripts/gen_synth.py did not run)"
fi

echo "tmux: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
