# args: tests/fixtures/dce/dead_pure.json
# scripts/dce-report.exdb (see its header)
source scripts/dce-report.exdb
