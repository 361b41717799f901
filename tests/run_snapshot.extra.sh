#!/bin/sh
# run_snapshot.extra.sh EXDB - a loaded program is a snapshot of its file
# (core/export/snapshot.h; issue 13, items 2 and 3): one session on a 100k-node
# program (scripts/gen_synth.py) whose file is then edited in place keeping
# its size, put back, moved, replaced, and deleted, with a `cd` between.
# What exdb shows never changes; `save` writes the program as loaded or
# refuses, naming the file and why, and never writes anything else. Then a
# second session on the program as a stored .pt2 truncated mid-session.
# Prints "snapshot: N passed, M failed".
exdb=${1:?usage: run_snapshot.extra.sh EXDB}
case $exdb in /*) ;; *) exdb=$(pwd)/$exdb ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/exdb-snapshot-XXXXXX)
pass=0 fail=0
pid=
cleanup() {
    exec 3>&- 2>/dev/null
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
ok() {
    pass=$((pass + 1))
    echo "ok   snapshot: $1"
}
bad() {
    fail=$((fail + 1))
    echo "FAIL snapshot: $1"
    tail -5 "$tmp/log" | sed 's/^/     | /'
}
if ! python3 "$root/scripts/gen_synth.py" --nodes 100000 --out "$tmp/prog.json" >/dev/null 2>&1; then
    echo "snapshot: 0 passed, 1 failed (python3 scripts/gen_synth.py did not run)"
    exit 1
fi
cp "$tmp/prog.json" "$tmp/orig.json"
mkdir "$tmp/elsewhere"

# One session fed through a FIFO; say CMD runs a command and waits for it.
mkfifo "$tmp/in"
cd "$tmp" || exit 1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:detect_leaks=0
"$exdb" -q prog.json <"$tmp/in" >"$tmp/log" 2>&1 &
pid=$!
exec 3>"$tmp/in"
n=0
say() {
    n=$((n + 1))
    printf '%s\necho @@%s\n' "$1" "$n" >&3
    k=0
    while ! grep -qx "@@$n" "$tmp/log" && [ $k -lt 1200 ]; do
        k=$((k + 1))
        sleep 0.1
    done
    # the command's output: between the previous mark and this one
    sed -n "/^@@$((n - 1))\$/,/^@@$n\$/p" "$tmp/log" | sed '1d;$d' >"$tmp/last"
    [ $n = 1 ] && sed '/^@@1$/,$d' "$tmp/log" >"$tmp/last"
}
said() { grep -qF -- "$1" "$tmp/last"; }
same() { cmp -s "$1" "$tmp/orig.json"; }
# end_session WHAT: quits the session on fd 3 and checks its exit (0 or 1).
end_session() {
    echo quit >&3
    exec 3>&-
    wait $pid
    rc=$?
    pid=
    if [ $rc = 0 ] || [ $rc = 1 ]; then
        ok "$1 ends normally (exit $rc)"
    else
        bad "$1 ended with $rc"
    fi
}

say "set on-error continue"
say "dce"
say "info facts"
cp "$tmp/last" "$tmp/facts.txt"

# edited in place, the size kept: one byte of a node name
python3 - "$tmp/prog.json" <<'EOF'
import sys
with open(sys.argv[1], 'r+b') as f:
    data = f.read()
    at = data.index(b'"name": "') + 9
    f.seek(at)
    f.write(b'Z')
EOF
say "save out1.json"
if said "prog.json: changed on disk since the program was loaded (its program differs)" &&
    said "load it again" && [ ! -e out1.json ]; then
    ok "edited in place keeping the size: save refuses, nothing written"
else
    bad "edited in place"
fi

# the same bytes again (a new modification time): the content decides
cp "$tmp/orig.json" "$tmp/prog.json"
say "save out2.json"
if said "Saved out2.json" && same out2.json; then
    ok "the original bytes back: save writes the program as loaded"
else
    bad "original bytes back"
fi

mv prog.json moved.json
say "save out3.json"
if said "prog.json: the file the program was loaded from cannot be read (No such file or directory)" &&
    [ ! -e out3.json ]; then
    ok "moved away: save refuses, nothing written"
else
    bad "moved away"
fi

# another file under the name, then a cd: save goes by the absolute path
cp moved.json prog.json
printf ' ' >>prog.json
say "cd elsewhere"
say "save out4.json"
if said "changed on disk since the program was loaded" && [ ! -e elsewhere/out4.json ]; then
    ok "replaced by another file of the same name: save refuses"
else
    bad "replaced"
fi
mv moved.json prog.json
say "save out5.json"
if said "Saved out5.json" && same elsewhere/out5.json; then
    ok "after a cd: save writes from the file loaded (its absolute path)"
else
    bad "after a cd"
fi

rm prog.json
say "save out6.json"
say "info facts"
if [ ! -e elsewhere/out6.json ] && [ -s "$tmp/facts.txt" ] && cmp -s "$tmp/last" "$tmp/facts.txt"; then
    ok "deleted: save refuses; what exdb shows is unchanged"
else
    bad "deleted"
fi
end_session "the session"

# A .pt2 archive whose program member is stored (mapped at its offset,
# core/format/container_map.c) truncated in place mid-session, as
# torch.export.save rewrites a file ("wb"): a command that reads the
# program's text again gives the one-line error, and the session goes on.
# (6,000 nodes: over EXDB_LAZY_META_MIN, so node metadata is read at first use)
python3 "$root/scripts/gen_synth.py" --nodes 6000 --out "$tmp/small.json" >/dev/null 2>&1
python3 - "$tmp/small.json" "$tmp/prog.pt2" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_STORED) as z:
    z.writestr("prog/archive_format", "pt2")
    z.writestr("prog/archive_version", "0")
    z.write(sys.argv[1], "prog/models/model.json")
    z.writestr("prog/extra/notes.txt", "hello")
EOF
rm -f "$tmp/in" "$tmp/log"
mkfifo "$tmp/in"
"$exdb" -q prog.pt2 <"$tmp/in" >"$tmp/log" 2>&1 &
pid=$!
exec 3>"$tmp/in"
n=0
say "set on-error continue"
say "info program"
python3 -c 'import sys; f = open(sys.argv[1], "wb"); f.write(b"PK"); f.close()' "$tmp/prog.pt2"
say "find --line nosuch.py:1"
if said "prog.pt2: models/model.json changed on disk since it was loaded; load it again"; then
    ok ".pt2 truncated mid-session: a read of its text gives the one-line error"
else
    bad ".pt2 truncated mid-session"
fi
say "info program"
if said "graph nodes:"; then
    ok ".pt2 truncated mid-session: the session goes on"
else
    bad ".pt2 truncated: the session after"
fi
end_session "the .pt2 session"

echo "snapshot: $pass passed, $fail failed"
[ $fail -eq 0 ]
