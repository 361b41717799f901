# args: tests/fixtures/example.json
# scripts/svg-modules.exdb, run in build/ (timings off: they vary).
set timing off
cd build
source ../scripts/svg-modules.exdb
