# args: $REAL/TheCBaH__pytorch.models.pt2__resnet18@209890a1__model.json
# resnet18 exported by torch 2.9 (schema 8.14): nodes carry no names, so
# multi-output nodes are named by FX rules, as PyTorch's deserializer does.
print graph
info program
