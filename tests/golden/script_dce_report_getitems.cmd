# args: tests/fixtures/example.json
# scripts/dce-report.exdb where every dead node is an _unused_ getitem of a
# native_layer_norm that stays: dce and save say the file is the program as
# loaded.
source scripts/dce-report.exdb
