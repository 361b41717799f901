# args: -q tests/fixtures/modgraph/kept_many_users.json
# fc.weight (owned by fc) is read by 11 nodes outside fc: 6 in g, 5 in the
# root (a calls_param_12 program with its stacks moved): g keeps it as an
# input, and explain lists four users and counts the rest.
unflatten run
explain p_fc_weight
