# args: tests/fixtures/modgraph/alias_13.json
# Shared modules nested 13 deep (gen_modgraph.py alias 13: each level's
# module called under a second name sharing the first's children) make a
# tree of 2**13 module paths, which torch's named_modules(
# remove_duplicate=False) in _reorder_submodules would visit one by one:
# exdb stops at its bound on paths (a small multiple of the modules) and
# says so; the session goes on.
set on-error continue
unflatten run
info program
