# args: tests/fixtures/example.json
# One node of each kind, then a typo: did-you-mean, and the script stops (exit 1).
print node x
print node relu
p node getitem
print node add
print node rleu
echo not reached
