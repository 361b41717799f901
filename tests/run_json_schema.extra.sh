#!/bin/sh
# run_json_schema.extra.sh EXDB - every command's --json answer against the
# schema in docs/json-schema.json (docs/json.md): every command of the
# command table on the bundled example, every fixture and conformance
# program, and a real torchvision program from ../shared/real_pt2 when it
# is there (REAL_PT2 overrides). Standard library Python only.
root=$(cd "$(dirname "$0")/.." && pwd)
REAL=${REAL_PT2:-$(cd "$root/.." && pwd)/shared/real_pt2}
exec python3 "$root/tests/json_schema_check.py" "$1" "$REAL"
