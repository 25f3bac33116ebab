"""inside_nn: the code that the book "Inside nn.Module" hands to its readers.

- `inside_nn.inspect_module`: `inspect_module(model)`, chapter 8's report on a model's state.
- `inside_nn.checkpoint`: saving and loading checkpoints that survive crashes and hostile files.
- `inside_nn.ddp_check`: `check_ddp(build, make_inputs)`, chapter 7's observations of DDP on CPU ranks.
- `inside_nn.zoo`: small builds of real architectures, written as their code bases write them.
- `inside_nn.exercises`: the checkers of every chapter's exercises, on one harness.

Only torch is required; the exercises also use NumPy and safetensors where a chapter does.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

__version__ = "0.3.0"

__all__ = ["__version__", "pick_device"]


def pick_device() -> torch.device:
    """BOOK_DEVICE if set, else the current accelerator (CUDA, MPS, XPU, ...), else the CPU."""
    import torch  # here, so that `inside-nn --help` works where torch is not installed yet

    if os.environ.get("BOOK_DEVICE"):
        return torch.device(os.environ["BOOK_DEVICE"])
    if torch.accelerator.is_available():
        return torch.accelerator.current_accelerator()
    return torch.device("cpu")
