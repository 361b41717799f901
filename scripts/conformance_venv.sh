#!/bin/sh
# conformance_venv.sh - build/venv: torch 2.13.0 (CPU) and the pinned packages
# of tests/conformance/requirements.txt, for `make conformance` and
# `make bench-peer` (scripts/deps.sh conformance calls it).
#
# torch comes only from a wheel on this machine's disk (pip's find-links, as
# our machines are set up): `pip install --no-index torch==2.13.0`. PyPI's
# torch 2.13.0 is a CUDA build of several GB, so nothing is downloaded for it:
# where the wheel is not on disk, this prints one line and exits 3, and the
# callers skip the live comparisons (they do not fail).
# Prints the venv's python on success.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${EXDB_VENV:-$root/build/venv}
py=$venv/bin/python
want=2.13.0
# every pin of requirements.txt and torch $want installed: nothing to do
have_all() {
    "$py" - "$root/tests/conformance/requirements.txt" "$want" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
pins = [l.split("#")[0].strip() for l in open(sys.argv[1])]
pins = [p.split("==") for p in pins if p] + [["torch", sys.argv[2]]]
sys.exit(any(version(n).split("+")[0] != v for n, v in pins))
PY
}
if [ -x "$py" ] && have_all; then
    echo "$py"
    exit 0
fi
[ -x "$py" ] || python3 -m venv "$venv" >&2
if ! "$py" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$want')" 2>/dev/null; then
    if ! "$py" -m pip install -q --disable-pip-version-check --no-index --no-deps "torch==$want" >&2 2>/dev/null; then
        echo "conformance: torch $want is not on this machine's disk (pip install --no-index torch==$want found no wheel); the live comparisons are skipped" >&2
        exit 3
    fi
fi
# torch's own dependencies and the corpus's pure-Python packages; torch is
# already satisfied, so nothing of it is downloaded
"$py" -m pip install -q --disable-pip-version-check "torch==$want" -r "$root/tests/conformance/requirements.txt" >&2 2>&1 |
    grep -v '^WARNING: Location' >&2 || true
"$py" -c "import torch, transformers, tabulate" >&2
echo "$py"
