# args: -q tests/fixtures/example.json
# info users NODE [--depth N]: FX's node.users, then theirs level by level
# (breadth first, each node once, indented by level), as find prints them;
# a node without users, a bad depth, a missing node.
set on-error continue
info users relu
info users addmm_4 --depth 2
info users addmm --depth 3
inf us output
info users relu --depth 0
info users
info users nosuch
info users relu --json
