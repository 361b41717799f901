# args: tests/fixtures/kwargs.pt2
# Keyword-only inputs in the unlifted module (ep.module()): torch 2.13 made
# the fixture from
#     class M(torch.nn.Module):
#         def forward(self, x, *, scale, shift=None):
#             return x * scale + (shift if shift is not None else 0)
#     torch.export.export(M(), (torch.randn(2, 3),), {"scale": ..., "shift": ...})
# and prints ep.module().code as "print code module" does here, the
# keyword names in the dict of tree_flatten_spec.
print code module
print readable module
info signature
# Without forward_arg_names (the same program as JSON, with no example
# inputs, so no _guards_fn either): the positional inputs are named arg_0,
# ...; torch 2.13, with forward_arg_names set to None, prints
# "def forward(self, arg_0, scale, shift):" and the same flatten line.
load tests/fixtures/kwargs_no_arg_names.json
print code module
