#!/usr/bin/env python3
"""gen_diff_fixtures.py - the two small programs `diff` is tested on.

Usage: build/venv/bin/python scripts/gen_diff_fixtures.py [OUTDIR]

Exports two versions of one small nn.Module with torch.export.export (no
decompositions) and writes each program's models/model.json, as
torch.export.save stores it, to OUTDIR (tests/fixtures/diff): v1.json and
v2.json. The repository's path in stack traces becomes "<repo>", so the
files do not depend on where they were made. What v2 changes against v1:

  * a node inserted early (x * 2 before everything): every later aten.add
    is renamed (add -> add_1 ...) though it computes the same thing;
  * head: a wider Linear (16 -> 24 outputs): its value's shape changes,
    and the output's;
  * act: nn.ReLU became nn.GELU (class and op change at the same path);
  * a new module extra (a Linear) and a new buffer (steps, mutated);
  * blk is called twice with a different constant (flag), so unflatten
    keeps blk and blk@1 apart; same is called twice identically, so
    _deduplicate_modules merges same@1 into same.
"""
import json
import os
import sys
import tempfile
import zipfile

import torch
import torch.nn as nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x, flag: bool):
        y = self.fc(x)
        return y + 1 if flag else y * 3


class Same(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        return self.fc(x) + x


class V1(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(8, 16)
        self.act = nn.ReLU()
        self.blk = Block()
        self.same = Same()
        self.head = nn.Linear(16, 16)

    def forward(self, x):
        h = self.act(self.inp(x))
        h = self.blk(h, True) + self.blk(h, False)
        h = self.same(self.same(h))
        return self.head(h + 2)


class V2(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(8, 16)
        self.act = nn.GELU()
        self.blk = Block()
        self.same = Same()
        self.extra = nn.Linear(16, 16)
        self.head = nn.Linear(16, 24)
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        x = x * 2
        self.steps.add_(1)
        h = self.act(self.inp(x))
        h = self.blk(h, True) + self.blk(h, False)
        h = self.same(self.same(h))
        h = self.extra(h)
        return self.head(h + 2)


def program_json(model):
    torch.manual_seed(0)
    ep = torch.export.export(model.eval(), (torch.randn(2, 8),))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.pt2")
        torch.export.save(ep, path)
        with zipfile.ZipFile(path) as z:
            name = [n for n in z.namelist() if n.endswith("models/model.json")][0]
            text = z.read(name).decode()
    return text.replace(ROOT, "<repo>")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "fixtures", "diff")
    os.makedirs(out, exist_ok=True)
    for name, cls in (("v1", V1), ("v2", V2)):
        torch.manual_seed(0)
        text = program_json(cls())
        with open(os.path.join(out, name + ".json"), "w") as f:
            f.write(text)
        print("wrote", os.path.join(out, name + ".json"), len(text), "bytes")


if __name__ == "__main__":
    main()
