#!/bin/sh
# run_wheel.extra.sh [EXDB] - the wheel on a bare Debian (issue 26); tests/run.sh
# runs it (EXDB, the sanitizer build, is not used: the wheel is the release build).
# make wheel, then a minimal Debian root with only python3 and its venv module
# (tests/wheel/bareroot.sh: debootstrap once, kept in build/bareroot), the
# wheel pip-installed into a venv there, and a session run in the root
# (chroot): load a .pt2, unflatten run, lint, print code, render modules as
# SVG and HTML, save; the Python API; the bundled libraries and no Graphviz,
# libzip or cJSON in the root. Skipped (said so) without root or debootstrap,
# or when the root cannot be built. /proc is mounted in the root only inside
# each command's private mount namespace (tests/wheel/inroot.sh).
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { # check NAME CMD... : CMD's success
    name=$1; shift
    if "$@" >/dev/null 2>&1; then ok "$name"; else bad "$name"; fi
}
finish() { echo "wheel: $pass passed, $fail failed"; [ $fail -eq 0 ]; exit; }
skip() { echo "wheel: the bare-root test is skipped: $1"; finish; }

[ "$(id -u)" = 0 ] || skip "it needs root (chroot)"
command -v debootstrap >/dev/null 2>&1 || skip "no debootstrap (apt-get install debootstrap)"
start=$(date +%s)
mkdir -p build
if ! make --no-print-directory wheel >build/wheel-make.log 2>&1; then
    tail -20 build/wheel-make.log
    bad "make wheel (build/wheel-make.log)"
    finish
fi
whl=$(ls dist/exdb-"$(cat VERSION)"-py3-none-manylinux_*_x86_64.whl 2>/dev/null | head -1)
check "make wheel: $whl" test -f "$whl"
check "auditwheel show: $whl is manylinux" sh -c \
    "build/pytools/bin/auditwheel show '$whl' | tr '\\n' ' ' | grep -q 'consistent with the following platform tag: \"manylinux_'"
names=$(build/pytools/bin/python -m zipfile -l "$whl")
for lib in libcgraph libgvc libcdt libpathplan libzip libedit libcjson libxxhash \
    libgvplugin_dot_layout libgvplugin_neato_layout libgvplugin_core libglib-2.0; do
    check "the wheel carries $lib" sh -c "echo '$names' | grep -q 'exdb.libs/$lib-'"
done

bare=build/bareroot
tests/wheel/bareroot.sh "$bare" || skip "the Debian root could not be built (debootstrap; mirror?)"
for lib in libcgraph libgvc libzip libcjson libedit; do
    check "the root has no $lib" sh -c "! ls $bare/usr/lib/*/$lib.so* $bare/lib/*/$lib.so*"
done
check "the root has no dot" test ! -e "$bare/usr/bin/dot"

work=$bare/tmp/exdb-wheel-test
trap '[ -n "$EXDB_KEEP" ] || rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP
rm -rf "$work" && mkdir -p "$work"
cp "$whl" "$work/" && cp tests/fixtures/source/tinynet.pt2 "$work/"
cp tests/wheel/session.py "$work/"
inroot() { tests/wheel/inroot.sh "$bare" "$@"; }
t0=$(date +%s)
check "python3 -m venv in the root" inroot python3 -m venv /tmp/exdb-wheel-test/venv
check "pip install the wheel in the root (no index)" inroot /tmp/exdb-wheel-test/venv/bin/pip \
    install -q --no-index "/tmp/exdb-wheel-test/$(basename "$whl")"
t1=$(date +%s)
check "exdb --version in the root" sh -c \
    "tests/wheel/inroot.sh '$bare' /tmp/exdb-wheel-test/venv/bin/exdb --version | grep -qx 'exdb $(cat VERSION)'"
inroot sh -c 'cd /tmp/exdb-wheel-test && venv/bin/exdb -batch tinynet.pt2 -ex "unflatten run" \
    -ex lint -ex "print code" -ex "render modules -o x.svg" -ex "render modules -o x.html" \
    -ex "render flat --layout sfdp -o s.svg" \
    -ex "save out.pt2"' >"$work/session.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok "the session in the root (exit 0)" || { bad "the session in the root (exit $rc)"; cat "$work/session.out"; }
check "unflatten run" grep -q "^unflatten complete: 58 events, 10 modules" "$work/session.out"
check "lint" grep -q "^0 errors, 0 warnings" "$work/session.out"
check "print code" grep -q "^def forward(self, " "$work/session.out"
check "render modules -o x.svg" grep -q "^Wrote x.svg: " "$work/session.out"
check "x.svg is an SVG" grep -q "<svg" "$work/x.svg"
check "render modules -o x.html" grep -q "^Wrote x.html: " "$work/session.out"
check "x.html is the viewer" grep -q "<html" "$work/x.html"
check "render flat --layout sfdp (the neato plugin's sfdp)" grep -q "sfdp layout" "$work/session.out"
check "s.svg is an SVG" grep -q "<svg" "$work/s.svg"
check "save out.pt2" test -s "$work/out.pt2"
check "out.pt2 loads again" inroot /tmp/exdb-wheel-test/venv/bin/exdb -batch \
    /tmp/exdb-wheel-test/out.pt2 -ex "info program"
check "no Graphviz warning in the session" sh -c "! grep -qE '^(Warning|Error): |could not' '$work/session.out'"
if inroot /tmp/exdb-wheel-test/venv/bin/python /tmp/exdb-wheel-test/session.py \
    /tmp/exdb-wheel-test >"$work/py.out" 2>&1; then
    ok "the Python API in the root (exdb.run, render, show, Error, python -m exdb)"
else
    bad "the Python API in the root"; cat "$work/py.out"
fi
end=$(date +%s)
echo "wheel: pip install to the session's end $((end - t0)) s (venv and install $((t1 - t0)) s); the whole test $((end - start)) s"
finish
