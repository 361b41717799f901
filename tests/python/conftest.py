"""Programs made by torch for the exdb package's tests (tests/run_pyapi.extra.sh)."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")


class Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)
        self.act = torch.nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x)) + x


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = torch.nn.Linear(4, 8)
        self.blocks = torch.nn.Sequential(Block(), Block())
        self.norm = torch.nn.LayerNorm(8)
        self.register_buffer("scale", torch.ones(8))

    def forward(self, x):
        h = self.norm(self.blocks(self.stem(x)))
        return (h * self.scale).sum(-1)


@pytest.fixture(scope="session")
def ep():
    """An ExportedProgram: Net (Linear, a Sequential of two Blocks, LayerNorm, a buffer)."""
    return torch.export.export(Net().eval(), (torch.randn(3, 4),))


@pytest.fixture(scope="session")
def pt2(ep, tmp_path_factory) -> Path:
    """The same program saved by torch.export.save."""
    path = tmp_path_factory.mktemp("prog") / "net.pt2"
    torch.export.save(ep, str(path))
    return path
