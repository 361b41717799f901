# args: tests/fixtures/modgraph/mcg_runs.json
# module_call_graph entries no node runs become empty modules
# (_reorder_submodules): 20 under blk, 15 under small, 45 under the root
# (the fixture is `scripts/gen_modgraph.py mcg 80` with m0-m19 renamed
# blk.m0-blk.m19 and m20-m34 small.m20-small.m34). render tree draws a run
# of 16 or more empty sibling paths as one box, "first .. last" and how
# many (issue 22: 40k such entries drew 40k boxes, 1.4 KB of Graphviz
# each), a shorter run one box a path; info modules still lists each.
set timing off
unflatten run
render tree -o /tmp/exdb-golden-mcg-tree.dot
pipe echo | grep -o 'label="[^"]*"' /tmp/exdb-golden-mcg-tree.dot
pipe echo | grep -c 'tooltip="blk.m0 .. blk.m19' /tmp/exdb-golden-mcg-tree.dot
render module blk -o /tmp/exdb-golden-mcg-blk.dot
pipe echo | grep -o 'label="[^"]*"' /tmp/exdb-golden-mcg-blk.dot
pipe info modules | grep -c Module
