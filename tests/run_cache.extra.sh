#!/bin/sh
# run_cache.extra.sh EXDB - the reopen cache (core/export/cache.h;
# docs/json-reader.md, "Reopen cache") in batch sessions, every program
# opened shape first (EXDB_SHAPE_FIRST_MIN=0), the cache in a folder of its
# own: a program opened again from its entry answers byte for byte as from
# its file (info program, then the graph built from the file); the golden
# suite passes with the cache warm (a file opened by several goldens is
# read from its entry from the second on); --no-cache and EXDB_CACHE=0
# neither read nor write it; a file changed between an open from the
# cache and the build is refused as changed on disk; an XDG_CACHE_HOME too
# long for its /exdb gives no cache; the first commands that need the IR
# after a reopen answer as without the cache, built from the IR entry the
# first session wrote (cache_ir.h; EXDB_CACHE_SYNC=1: written before the
# build returns); the forked IR writer (./exdb's) blocks no signal, keeps
# no descriptor of exdb's, ends on SIGTERM, never makes a removed cache
# folder again and is reaped by the next command once it ended; a file-size limit below the entries harms nothing. About
# 21 s (the golden suite once, 2 s for a copied file to leave git's racy
# window, 9 s for the writer's checks on a 100k-node program).
# Prints "cache: N passed, M failed".
exdb=${1:?usage: run_cache.extra.sh EXDB}
case $exdb in /*) ;; *) exdb=$(pwd)/$exdb ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/exdb-cache-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1
pass=0 fail=0
ok() {
    pass=$((pass + 1))
    echo "ok   cache: $1"
}
bad() {
    fail=$((fail + 1))
    echo "FAIL cache: $1"
    sed 's/^/     | /' "$tmp/out" | tail -8
}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export XDG_CACHE_HOME="$tmp/xdg" EXDB_SHAPE_FIRST_MIN=0 EXDB_CACHE_SYNC=1
unset EXDB_CACHE

# a synthetic program whose IR writer lives a few tenths of a second, made
# now so that it has left the racy window (2 s) when the writer's checks
# run at the end
python3 scripts/gen_synth.py --nodes 100000 --out "$tmp/big.json" >/dev/null 2>&1 ||
    echo "cache: python3 scripts/gen_synth.py did not run"

entries() {
    ls "$XDG_CACHE_HOME/exdb" 2>/dev/null | grep -c '\.shape$'
}
# the IR entries (cache_ir.h: written after a build), by inode and name
irs() {
    ls -i "$XDG_CACHE_HOME/exdb" 2>/dev/null | grep '\.ir$'
}

# opened twice: the second from the entry the first wrote
for f in tests/fixtures/example.json tests/fixtures/kwargs.pt2 tests/fixtures/llm_decoder.json; do
    set -- -q "$f" -batch -ex 'info program' -ex 'print graph' -ex 'info program'
    EXDB_CACHE=0 "$exdb" "$@" >"$tmp/whole" 2>&1
    echo "[exit $?]" >>"$tmp/whole"
    before=$(entries)
    "$exdb" "$@" >"$tmp/first" 2>&1
    echo "[exit $?]" >>"$tmp/first"
    after=$(entries)
    "$exdb" "$@" >"$tmp/out" 2>&1
    echo "[exit $?]" >>"$tmp/out"
    if [ "$after" -gt "$before" ] && cmp -s "$tmp/whole" "$tmp/first" &&
        cmp -s "$tmp/whole" "$tmp/out"; then
        ok "$f: the same answers from the cache"
    else
        bad "$f: other answers from the cache (entries $before -> $after)"
    fi
done

# the first commands that need the IR after a reopen (the build reads the
# file the entry stands for): image entries with specs that hold values
# (a constant input, user inputs that are constants, a constant output),
# a text entry (a key repeated on the way to the specs), an archive,
# metadata read lazily and found malformed, programs with subgraphs
# (higher-order ops, nested too: the IR entry holds every graph)
hop=tests/conformance/corpus/scenarios
for f in tests/fixtures/llm_decoder.json tests/fixtures/const_inputs_multi_out.json \
    tests/fixtures/const_output.json tests/fixtures/repeated_key.json tests/fixtures/kwargs.pt2 \
    tests/fixtures/lazy_meta_bad.json $hop/cf_cond_in_map__nonstrict/program.pt2 \
    $hop/cf_cond_in_cond_child__nonstrict/program.pt2 $hop/map_unflatten__strict/program.pt2; do
    set -- -q "$f" -batch -ex 'info program' -ex 'info nodes' -ex 'print graph' -ex 'print code' \
        -ex 'unflatten run' -ex 'info modules' -ex 'lint' -ex 'dce --dry-run' -ex 'dce' \
        -ex 'print readable' -ex 'info signature'
    rm -rf "$XDG_CACHE_HOME"
    EXDB_CACHE=0 "$exdb" "$@" >"$tmp/whole" 2>&1
    echo "[exit $?]" >>"$tmp/whole"
    "$exdb" "$@" >"$tmp/first" 2>&1
    echo "[exit $?]" >>"$tmp/first"
    after=$(entries)
    ir=$(irs)
    "$exdb" "$@" >"$tmp/out" 2>&1
    echo "[exit $?]" >>"$tmp/out"
    # built from the IR entry the first session wrote (the same file: not
    # written again), but lazy_meta_bad.json, whose build is refused
    want_ir=1
    [ "$f" = tests/fixtures/lazy_meta_bad.json ] && want_ir=0
    used=$([ -n "$ir" ] && [ "$ir" = "$(irs)" ] && echo 1 || echo 0)
    if [ "$after" = 1 ] && [ "$used" = "$want_ir" ] && cmp -s "$tmp/whole" "$tmp/first" &&
        cmp -s "$tmp/whole" "$tmp/out"; then
        ok "$f: the IR's first commands after a reopen answer as from the file (IR entry $used)"
    else
        diff "$tmp/whole" "$tmp/out" >>"$tmp/out"
        bad "$f: the IR's first commands after a reopen (entries $after, IR entry used $used)"
    fi
done


# --no-cache and EXDB_CACHE=0: nothing written
rm -rf "$XDG_CACHE_HOME"
"$exdb" -q --no-cache tests/fixtures/example.json -batch -ex 'info cache' >"$tmp/out" 2>&1
EXDB_CACHE=0 "$exdb" -q tests/fixtures/example.json -batch -ex 'info program' >>"$tmp/out" 2>&1
if [ ! -e "$XDG_CACHE_HOME" ] && grep -q '^Reopen cache: off' "$tmp/out"; then
    ok "--no-cache and EXDB_CACHE=0 leave no cache"
else
    bad "--no-cache or EXDB_CACHE=0 wrote a cache"
fi

# an XDG_CACHE_HOME too long for its /exdb: no cache (cut short, the
# folder would have been XDG_CACHE_HOME/ex), whatever the path's length
mkdir -p "$tmp/t"
x=$tmp/t/
while [ ${#x} -lt 4090 ]; do x="$x./"; done
[ ${#x} -lt 4091 ] && x="$x/"
x="$x." # 4,092 characters naming $tmp/t: $x/exdb is 4,097
XDG_CACHE_HOME=$x "$exdb" -q tests/fixtures/example.json -batch -ex 'info program' \
    -ex 'info cache' >"$tmp/out" 2>&1
if [ ! -e "$tmp/t/ex" ] && grep -q '^Reopen cache: off' "$tmp/out"; then
    ok "an XDG_CACHE_HOME too long: no cache, none cut short"
else
    bad "an XDG_CACHE_HOME too long: a cache in a folder cut short"
fi

# the golden suite, the cache warming as it goes
rm -rf "$XDG_CACHE_HOME"
sh tests/run_golden.sh "$exdb" >"$tmp/out" 2>&1
if grep -qE '^golden: [0-9]+ passed, 0 failed' "$tmp/out" && [ "$(entries)" -gt 0 ]; then
    ok "the golden suite with the cache warm ($(entries) entries)"
else
    bad "the golden suite with the cache"
fi

# a file changed between an open from the cache and the build
# (a copy has no entry until its inode is 2 s old: wait for the entry)
rm -rf "$XDG_CACHE_HOME"
f=$tmp/p.json
cp tests/fixtures/llm_decoder.json "$f"
n=0
while [ "$(entries)" = 0 ] && [ $n -lt 100 ]; do
    sleep 0.2
    "$exdb" -q "$f" -batch -ex 'info program' >/dev/null 2>&1
    n=$((n + 1))
done
"$exdb" -q "$f" -batch -ex 'info cache' -ex 'shell printf " " >> '"$f" -ex 'print graph' \
    >"$tmp/out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "changed on disk since it was loaded; load it again" "$tmp/out"; then
    ok "a file changed after a cached open: refused by the build"
else
    bad "a file changed after a cached open (exit $rc)"
fi

# the IR entry's writer (forked after the build) of the release build
# ./exdb (the sanitizer build's core has EXDB_FAULT: no fork), 7 s: caught
# as its child
# (exdb then waits in a shell command for $tmp/go) and stopped: w its pid,
# or empty when it ended before it was seen; bg exdb's
catch_writer() {
    rm -f "$tmp/go" "$tmp/inshell"
    # a descriptor past 1023 open in exdb (as a harness with many files)
    bash -c 'exec "$@" 1500>/dev/null' sh env -u EXDB_CACHE_SYNC "$root/exdb" -q "$tmp/big.json" \
        -batch -ex 'info program' -ex 'info nodes add_1' \
        -ex "shell touch $tmp/inshell; while [ ! -e $tmp/go ]; do sleep 0.05; done" \
        >"$tmp/out" 2>&1 &
    bg=$!
    w=
    while [ -z "$w" ] && kill -0 $bg 2>/dev/null; do
        last=$([ -e "$tmp/inshell" ] && echo 1)
        w=$(pgrep -P $bg -x exdb)
        [ -n "$last" ] && break
    done
    [ -n "$w" ] && kill -STOP "$w"
}
# waits for exdb ($bg) and for the writer w to be gone (reaped)
writer_gone() {
    touch "$tmp/go"
    wait $bg
    while [ -e "/proc/$1" ]; do sleep 0.05; done
}
if [ ! -x "$root/exdb" ] || [ ! -s "$tmp/big.json" ]; then
    echo "skip cache: the IR writer (no ./exdb, or no synthetic program)"
else
    rm -rf "$XDG_CACHE_HOME"
    catch_writer
    if [ -z "$w" ]; then
        bad "the IR writer: not seen (it ended before it was caught)"
    else
        blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' "/proc/$w/status")
        fd1500=$([ -e "/proc/$w/fd/1500" ] && echo 1 || echo 0)
        kill -TERM "$w"
        kill -CONT "$w"
        writer_gone "$w"
        if [ "$blk" = 0000000000000000 ] && [ $fd1500 = 0 ] && [ -z "$(irs)" ]; then
            ok "the IR writer: no signal blocked, no descriptor of exdb's kept, SIGTERM ends it"
        else
            bad "the IR writer: blocked $blk, holds descriptor 1500: $fd1500, IR entry after SIGTERM: $(irs)"
        fi
    fi
    # the folder removed while the writer works: not made again
    rm -rf "$XDG_CACHE_HOME"
    catch_writer
    if [ -n "$w" ]; then
        rm -rf "$XDG_CACHE_HOME"
        kill -CONT "$w"
        writer_gone "$w"
        if [ ! -e "$XDG_CACHE_HOME" ]; then
            ok "the IR writer: a cache folder removed is not made again"
        else
            bad "the IR writer: the cache folder removed was made again"
        fi
    else
        bad "the IR writer: not seen (it ended before it was caught)"
    fi
    # a writer that ended is reaped by the session's next command: no
    # zombie left while the session goes on (the first shell waits for the
    # writer to end, the second lists exdb's children after a command)
    rm -rf "$XDG_CACHE_HOME" "$tmp/zw" "$tmp/zleft"
    env -u EXDB_CACHE_SYNC "$root/exdb" -q "$tmp/big.json" -batch -ex 'info program' \
        -ex 'info nodes add_1' \
        -ex "shell w=\$(pgrep -P \$PPID -x exdb); while [ -n \"\$w\" ] && [ -e /proc/\$w ] && ! grep -q '^State:.*Z' /proc/\$w/status; do sleep 0.05; done; echo \"w=\$w\" >$tmp/zw" \
        -ex 'info program' -ex "shell pgrep -P \$PPID -x exdb >$tmp/zleft; echo end >>$tmp/zleft" \
        >"$tmp/out" 2>&1
    if grep -q '^w=[0-9]' "$tmp/zw" 2>/dev/null && [ "$(cat "$tmp/zleft" 2>/dev/null)" = end ]; then
        ok "the IR writer: reaped once it ended, by the next command"
    else
        bad "the IR writer: $(cat "$tmp/zw" 2>/dev/null), left as exdb's children: $(tr '\n' ' ' <"$tmp/zleft" 2>/dev/null)"
    fi
fi

# a file-size limit (ulimit -f) below the entries: none written, exdb not
# ended by SIGXFSZ, no temporary file left
rm -rf "$XDG_CACHE_HOME"
(
    ulimit -f 1
    "$exdb" -q tests/fixtures/llm_decoder.json -batch -ex 'info program' -ex 'print code' \
        >/dev/null 2>&1 # (a file here would pass the limit)
)
rc=$?
if [ $rc = 0 ] && [ -z "$(ls "$XDG_CACHE_HOME/exdb" 2>/dev/null)" ]; then
    ok "a file-size limit below the entries: no entry, exdb unharmed"
else
    bad "a file-size limit below the entries (exit $rc, left: $(ls "$XDG_CACHE_HOME/exdb" 2>/dev/null))"
fi
echo "cache: $pass passed, $fail failed"
[ "$fail" = 0 ]
