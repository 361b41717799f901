#!/bin/sh
# run_conformance.extra.sh EXDB - exdb against torch 2.13's own answers on the
# committed scenario programs (tests/conformance/corpus/scenarios: each a
# .pt2 torch wrote and the answers torch gave; tests/conformance/README.md),
# after the harness's self-test (every check must notice a changed answer).
# No torch needed: `make conformance` regenerates them and adds the random
# programs and the transformers architectures.
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$root/tests/conformance/corpus/scenarios
exec python3 "$root/tests/conformance/compare.py" "$1" "$corpus" --selftest "$corpus/nested__strict"
