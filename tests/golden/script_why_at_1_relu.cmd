# args: tests/fixtures/unflatten/relu_twice.json
# scripts/why-at-1.exdb on resnet's BasicBlock pattern: relu and relu@1.
source scripts/why-at-1.exdb
