# args: -q tests/fixtures/describe_odd.json
# print_readable(include_device=True) of an input whose device has an index:
# the annotation ends with str(torch.device("cpu", 0)), "cpu:0".
print readable --device
