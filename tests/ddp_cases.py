"""Models and inputs for tests/test_ddp_check.py: the ranks import this file (FILE.py:function targets).

Each planted defect is one model; `MatrixModel` is chapter 7's asker's model, with `matrix` a plain attribute
or a buffer. Inputs take the rank, so that every rank trains on its own batch.
"""

from __future__ import annotations

import torch
import torch.distributed as dist
from torch import nn

from inside_nn import zoo


class MatrixModel(nn.Module):
    def __init__(self, as_buffer: bool, decay: float = 0.9):
        super().__init__()
        self.proj, self.decay = nn.Linear(3, 3), decay
        if as_buffer:
            self.register_buffer("matrix", torch.zeros(2, 3))
        else:
            self.matrix = torch.zeros(2, 3)

    def forward(self, x):
        with torch.no_grad():
            self.matrix.lerp_(x.mean(dim=0), 1 - self.decay)
        return self.proj(x)


def matrix_plain() -> nn.Module:
    return MatrixModel(as_buffer=False)


def matrix_buffer() -> nn.Module:
    return MatrixModel(as_buffer=True)


def matrix_inputs(rank: int) -> torch.Tensor:
    return torch.randn(4, 2, 3, generator=torch.Generator().manual_seed(rank))


class Counting(nn.Module):
    """A Linear and a plain tensor attribute that counts the inputs' mean: it differs between ranks."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.seen = torch.zeros(4)

    def forward(self, x):
        self.seen = self.seen + x.mean(dim=0).detach()
        return self.proj(x)


class LateBuffer(nn.Module):
    """Registers `count` in its first forward, after DDP was built: DDP never syncs it (no other buffer)."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        if "count" not in self._buffers:
            self.register_buffer("count", torch.zeros(1))
        self.count += x.mean()
        return self.proj(x)


class Unused(nn.Module):
    """A head that forward never calls."""

    def __init__(self):
        super().__init__()
        self.proj, self.head = nn.Linear(4, 4), nn.Linear(4, 2)

    def forward(self, x):
        return self.proj(x)


class RankBranch(nn.Module):
    """Rank 0 also runs `extra`: its parameters get a gradient on rank 0 only."""

    def __init__(self):
        super().__init__()
        self.proj, self.extra = nn.Linear(4, 4), nn.Linear(4, 4)

    def forward(self, x):
        x = self.proj(x)
        return self.extra(x) if dist.get_rank() == 0 else x


class Healthy(nn.Module):
    """Conv, BatchNorm and a head, every output in a dict: DDP keeps everything in step."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU())
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        features = self.body(x)
        return {"features": features, "logits": self.head(features)}


def counting() -> nn.Module:
    return Counting()


def late_buffer() -> nn.Module:
    return LateBuffer()


def unused() -> nn.Module:
    return Unused()


def rank_branch() -> nn.Module:
    return RankBranch()


def healthy() -> nn.Module:
    return Healthy()


def vector_inputs(rank: int) -> torch.Tensor:
    return torch.randn(3, 4, generator=torch.Generator().manual_seed(10 + rank))


def fails_on_rank_1(rank: int) -> torch.Tensor:
    if rank == 1:
        raise ValueError("no batch for rank 1")
    return vector_inputs(rank)


def zoo_build(name: str) -> nn.Module:
    """A zoo model built from the rank's own seed (zoo.build would seed every rank alike)."""
    return zoo.MODELS[name].build()


def zoo_inputs(name: str, rank: int) -> tuple:
    return zoo.inputs(name, seed=rank)


def sleepy() -> nn.Module:
    """Touches the file DDP_CHECK_MARKER names (the ranks are running), then builds nothing for a minute."""
    import os
    import time
    from pathlib import Path

    Path(os.environ["DDP_CHECK_MARKER"]).touch()
    time.sleep(60)
    return Healthy()


class LateBesideBuffer(LateBuffer):
    """The same late `count`, beside a buffer DDP saw: DDP re-reads the buffers at each sync, so it syncs it."""

    def __init__(self):
        super().__init__()
        self.register_buffer("early", torch.zeros(1))


def late_beside_buffer() -> nn.Module:
    return LateBesideBuffer()


class Ignored(nn.Module):
    """A buffer and a Linear that DDP is told to ignore: each rank updates and trains its own."""

    def __init__(self):
        super().__init__()
        self.proj, self.own = nn.Linear(4, 4), nn.Linear(4, 4)
        self.register_buffer("local", torch.zeros(4))
        self._ddp_params_and_buffers_to_ignore = ["local", "own.weight", "own.bias"]

    def forward(self, x):
        if self.training:
            self.local.lerp_(x.mean(dim=0).detach(), 0.5)
        return self.own(self.proj(x - self.local))


class Reducing(nn.Module):
    """Normalises by the global batch size: all_reduce in training forwards only, or in every forward."""

    def __init__(self, always: bool):
        super().__init__()
        self.proj, self.always = nn.Linear(4, 4), always

    def forward(self, x):
        n = torch.tensor([float(x.shape[0])])
        if self.training or self.always:
            dist.all_reduce(n)
        return self.proj(x) / n


class Scaled(nn.Module):
    """A Python float set from the batch in each training forward: each rank keeps its own."""

    def __init__(self):
        super().__init__()
        self.proj, self.scale, self.steps = nn.Linear(4, 4), 1.0, 0

    def forward(self, x):
        if self.training:
            self.scale, self.steps = float(x.abs().mean()), self.steps + 1
        return self.proj(x) * self.scale


class FrozenUpdated(nn.Module):
    """A frozen Parameter updated in forward (a codebook's EMA): DDP's reducer leaves it out."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.codebook = nn.Parameter(torch.zeros(4), requires_grad=False)

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.codebook.lerp_(x.mean(dim=0), 0.5)
        return self.proj(x) + self.codebook


def ignored() -> nn.Module:
    return Ignored()


def reduces_in_training() -> nn.Module:
    return Reducing(always=False)


def reduces_always() -> nn.Module:
    return Reducing(always=True)


def scaled() -> nn.Module:
    return Scaled()


def frozen_updated() -> nn.Module:
    return FrozenUpdated()
