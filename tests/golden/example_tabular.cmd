# args: tests/fixtures/example.json
# Graph.print_tabular()
print tabular
