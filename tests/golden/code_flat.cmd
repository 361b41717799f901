# args: tests/conformance/corpus/scenarios/cond_with_module_stack_dynamic__nonstrict/program.pt2
# print code / print readable, byte for byte as torch 2.13's
# ep.graph_module.code and print_readable(): placeholders, get_attr of
# HOP subgraphs, torch.ops.higher_order.cond, operator.getitem as cond[0],
# a comparison of sym ints (gt = sym_size_int_1 > 4), values set to None
# after their last use, "# File:" and "# No stacktrace" comments, sym
# sizes in annotations (f32[s77, 4], Sym(s77 > 4)), the nested class of
# each HOP subgraph; with --stride --device; --color's escapes.
print code
print readable
print readable --stride --device
pipe print readable --color | head -3 | od -c | head -5
set on-error continue
print readable --bogus
print code extra words
