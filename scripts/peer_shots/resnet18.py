"""resnet18.py [OUT.pt2] - torchvision's resnet18 written out (torchvision is not needed):
the same module names, exported with torch.export and saved: the program of the README's
exdb / Netron / Model Explorer comparison."""
import sys
import torch
from torch import nn
class BasicBlock(nn.Module):
    def __init__(self, inp, out, stride=1, down=False):
        super().__init__()
        self.conv1 = nn.Conv2d(inp, out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(out)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(out, out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(out)
        self.downsample = nn.Sequential(nn.Conv2d(inp, out, 1, stride, bias=False), nn.BatchNorm2d(out)) if down else None
    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)
class ResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        def layer(i, o, s):
            return nn.Sequential(BasicBlock(i, o, s, s != 1 or i != o), BasicBlock(o, o))
        self.layer1, self.layer2 = layer(64, 64, 1), layer(64, 128, 2)
        self.layer3, self.layer4 = layer(128, 256, 2), layer(256, 512, 2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512, 1000)
    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))
ep = torch.export.export(ResNet().eval(), (torch.randn(1, 3, 224, 224),))
torch.export.save(ep, sys.argv[1] if len(sys.argv) > 1 else "resnet18.pt2")
print("ok")
