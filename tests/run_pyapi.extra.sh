#!/bin/sh
# run_pyapi.extra.sh [EXDB] - the exdb Python package (issue 26) with pytest
# (tests/python) against programs torch 2.13 makes; tests/run.sh runs it
# (EXDB, the sanitizer build, is not used: the wheel's binary is tested).
# make wheel, then a fresh venv build/pyapi with the wheel and pytest (from
# PyPI) that sees torch from the conformance venv (EXDB_VENV, else
# build/venv, which make conformance makes) through a .pth file: that venv is
# read, never changed; ruff and mypy --strict over the Python code. Skipped (said so) when there is no torch venv.
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
tv=${EXDB_VENV:-$root/build/venv}
skip() { echo "pyapi: skipped: $1"; echo "pyapi: 0 passed, 0 failed"; exit 0; }
"$tv/bin/python" -c 'import torch' >/dev/null 2>&1 ||
    skip "no torch in $tv (make conformance makes build/venv; EXDB_VENV names another)"
mkdir -p build
if ! make --no-print-directory wheel >build/pyapi-make.log 2>&1; then
    tail -20 build/pyapi-make.log
    echo "pyapi: 0 passed, 1 failed (make wheel: build/pyapi-make.log)"
    exit 1
fi
whl=$(ls dist/exdb-"$(cat VERSION)"-py3-none-manylinux_*_x86_64.whl | head -1)
venv=build/pyapi
base=$("$tv/bin/python" -c 'import sys; print(sys._base_executable)')
rm -rf "$venv"
"$base" -m venv "$venv" || exit 1
"$venv/bin/pip" install -q pytest ruff mypy "$whl" >build/pyapi-pip.log 2>&1 ||
    { tail -5 build/pyapi-pip.log; echo "pyapi: 0 passed, 1 failed (pip install)"; exit 1; }
site=$("$tv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
mine=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$site" >"$mine/exdb-tests-torch.pth"
out=build/pyapi-pytest.log
# from tests/python, so that `import exdb` is the installed wheel's
(cd tests/python && "$root/$venv/bin/python" -m pytest -q -p no:cacheprovider . 2>&1) | tee "$out" | tail -30
line=$(grep -E '^(=+ )?[0-9]+ (passed|failed)' "$out" | tail -1)
p=$(echo "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
f=0
for n in $(echo "$line" | grep -oE '[0-9]+ (failed|errors?)' | grep -oE '[0-9]+'); do f=$((f + n)); done
# the package, the wheel's scripts and these tests: ruff (pyproject.toml)
for c in check "format --check"; do
    if "$venv/bin/ruff" $c -q . >build/pyapi-ruff.log 2>&1; then
        p=$((${p:-0} + 1))
    else
        cat build/pyapi-ruff.log; echo "FAIL ruff $c"; f=$((f + 1))
    fi
done
# typed: every function of the package annotated (mypy --strict; torch is
# not read: a module of its own, imported only for an ExportedProgram)
if "$venv/bin/mypy" --strict --no-site-packages --ignore-missing-imports \
    --cache-dir=/dev/null python/exdb >build/pyapi-mypy.log 2>&1; then
    p=$((${p:-0} + 1))
else
    cat build/pyapi-mypy.log; echo "FAIL mypy --strict python/exdb"; f=$((f + 1))
fi
echo "pyapi: ${p:-0} passed, ${f:-0} failed"
[ -n "$p" ] && [ "${f:-0}" -eq 0 ]
