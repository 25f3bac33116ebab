"""Wrapped models: DistributedDataParallel (gloo, world size 1), torch.compile and torch.fx."""

from __future__ import annotations

import shutil
import tempfile
import warnings

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

# --------------------------------------------------------------------------------------------------
# Wrappers: DistributedDataParallel (gloo, world size 1), torch.compile, torch.fx.

_OWN_GROUP: dict[str, str] = {}


def _ensure_process_group():
    if dist.is_initialized():
        return
    tmpdir = tempfile.mkdtemp(prefix="inside_nn_zoo_")
    store = dist.FileStore(f"{tmpdir}/store", 1)
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    _OWN_GROUP["tmpdir"] = tmpdir


def teardown() -> None:
    """Destroy the process group that build("ddp") started, if it started one."""
    tmpdir = _OWN_GROUP.pop("tmpdir", None)
    if tmpdir is None:
        return
    if dist.is_initialized():
        dist.destroy_process_group()
    shutil.rmtree(tmpdir, ignore_errors=True)


class ConvBNNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(self.pool(F.relu(self.bn(self.conv(x)))).flatten(1))


def _ddp():
    _ensure_process_group()
    return nn.parallel.DistributedDataParallel(ConvBNNet())


def _compiled():
    # The first torch.compile imports inductor, whose import chain calls the deprecated
    # torch.jit.script_method (torch/utils/mkldnn.py); that warning is torch's, not ours.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "`torch.jit.script_method` is deprecated")
        return torch.compile(ConvBNNet())


class ScaledMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 10)
        self.register_buffer("scale", torch.full((10,), 0.5), persistent=False)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x))) * self.scale


def _fx():
    return torch.fx.symbolic_trace(ScaledMLP())
