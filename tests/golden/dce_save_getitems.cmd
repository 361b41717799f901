# args: tests/fixtures/example.json
# dce removes only _unused_ getitems of multi-output ops that stay: the
# format keeps them as the ops' outputs, so save writes the program as
# loaded (byte for byte: see tests/unit/test_save.c) and a reload has the
# getitems again (102 nodes).
dce
save --dry-run
save --force build/golden_dce_save_getitems.json
load build/golden_dce_save_getitems.json
echo
# some of each: var_mean's node and both its getitems go from the file,
# max.dim's dead getitem stays there
load tests/fixtures/dce/getitems.json
dce --dry-run
dce
save --dry-run
undo
save --dry-run
# --dry-run writes nothing, so it takes no FILE
save build/x.json --dry-run
