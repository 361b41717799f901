# args: $REAL/TheCBaH__pytorch.models.pt2__resnet18__model.json
# resnet18 exported by torch 2.12 (schema 8.20): the flat graph as PyTorch prints it.
print graph
