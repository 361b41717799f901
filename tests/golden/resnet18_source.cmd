# args: $REAL/TheCBaH__pytorch.models.pt2__resnet18__model.json
# Source lines and search on a real program (torchvision's resnet18, torch
# 2.12): a node's line and its modules' call lines, a block's lines, the two
# calls of a ReLU used twice, find with combined filters, break line with a
# file suffix, and the trace's line text where the file is not here.
info line relu_1
info lines layer1.0
info calls layer1.0.relu
find --op call_function --module 'layer2.0*' --target 'aten.conv*'
find --shape 1,512,*,* --users 1 --target '*relu*'
find --line resnet.py:102
break line resnet.py:102
run
bt
list source
