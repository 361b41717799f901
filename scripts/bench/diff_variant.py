#!/usr/bin/env python3
"""diff_variant.py IN OUT - a copy of a synthetic program (scripts/gen_synth.py)
with a few changes, for the diff row of `make bench`: the first three
aten.gelu become aten.relu (changed targets), the first layer norm's eps
changes (changed args). Text replacement, so 100k nodes take a second."""
import sys

text = open(sys.argv[1]).read()
text = text.replace('"torch.ops.aten.gelu.default"', '"torch.ops.aten.relu.default"', 3)
text = text.replace('{"as_float": 1e-05}', '{"as_float": 1e-06}', 1)
with open(sys.argv[2], "w") as f:
    f.write(text)
