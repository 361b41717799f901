# args: $REAL/TheCBaH__pytorch.models.pt2__resnet18__model.json
# scripts/buffer-mutation.exdb on torchvision's resnet18, exported in eval
# mode: its 60 buffers are read, never mutated; no signature dump.
source scripts/buffer-mutation.exdb
