# args: tests/fixtures/example.json
# str(torch.fx.Graph) of the deserialized example program.
print graph
