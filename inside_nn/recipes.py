"""The book's recipes as small functions, written the way the chapters teach them.

Each does what its chapter shows and no more: the tests (tests/test_zoo.py) run every recipe on every
model of `inside_nn.zoo` and record, model by model, where a recipe stops working and why.
"""

from __future__ import annotations

import copy
import dataclasses
from collections import OrderedDict

import torch
from torch import nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

__all__ = [
    "count_parameters",
    "freeze",
    "init_weights",
    "materialize_from_meta",
    "meta_leftovers",
    "reset_all",
    "reset_like_constructors",
    "snapshot",
    "strip_prefixes",
    "tied_groups",
    "to_device",
]


def count_parameters(model: nn.Module) -> int:
    """How many numbers the model's parameters hold (Parameter management, chapter 1)."""
    return sum(p.numel() for p in model.parameters())


def freeze(module: nn.Module) -> None:
    """Make every parameter of module untrainable (Parameter management, chapter 1)."""
    for parameter in module.parameters():
        parameter.requires_grad_(False)


def snapshot(model: nn.Module) -> dict:
    """A copy of model.state_dict() that later training does not change (chapter 1).

    Tensors are cloned; anything else a module saves (get_extra_state's `_extra_state`) is deep-copied.
    """
    return {
        name: value.clone() if isinstance(value, torch.Tensor) else copy.deepcopy(value)
        for name, value in model.state_dict().items()
    }


def tied_groups(model: nn.Module) -> set[frozenset[str]]:
    """Names that share one Parameter, one frozenset per shared Parameter (chapter 8)."""
    names_of: dict[int, list[str]] = {}
    for name, parameter in model.named_parameters(remove_duplicate=False):
        names_of.setdefault(id(parameter), []).append(name)
    return {frozenset(names) for names in names_of.values() if len(names) > 1}


def strip_prefixes(state_dict, prefixes=("module.", "_orig_mod.")) -> OrderedDict:
    """A copy of state_dict without the DDP / torch.compile prefixes, `_metadata` included (chapter 5).

    A prefix is stripped only while every name carries it: a model's own child may be called `module`.
    """
    result = OrderedDict(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(state_dict._metadata)
    while result:
        prefix = next((p for p in prefixes if all(k.startswith(p) for k in result)), None)
        if prefix is None:
            break
        consume_prefix_in_state_dict_if_present(result, prefix)
    return result


def reset_all(model: nn.Module) -> None:
    """Redraw every module's default initialization, children first (Parameter initialization, ch. 2)."""
    for child in model.children():
        reset_all(child)
    if hasattr(model, "reset_parameters"):
        model.reset_parameters()


NORMS = (nn.LayerNorm, nn.GroupNorm, nn.modules.batchnorm._BatchNorm)


def init_weights(module: nn.Module) -> None:
    """For model.apply: Xavier for Linear, Kaiming for Conv, zero biases, ones and zeros for norms
    (Parameter initialization, chapter 2)."""
    if isinstance(module, nn.Linear):
        nn.init.xavier_uniform_(module.weight)
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
        nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
        if module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, NORMS) and module.weight is not None:
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)


def reset_like_constructors(module: nn.Module) -> None:
    """Run each module's own reset again, children first, as the constructors ran
    (chapter 2): reset_parameters(), or the private _reset_parameters() of
    nn.MultiheadAttention and nn.Transformer (no torch class defines both)."""
    for child in module.children():
        reset_like_constructors(child)
    if hasattr(module, "reset_parameters"):
        module.reset_parameters()
    elif hasattr(module, "_reset_parameters"):  # MultiheadAttention, Transformer
        module._reset_parameters()


_reset_like_constructors = reset_like_constructors  # the name chapter 3's code used


def materialize_from_meta(model: nn.Module, device) -> nn.Module:
    """Give a model built on `meta` real storage and its values (Building on the meta device, chapter 3.1):
    to_empty, each module's own reset children first, computed buffers again, and the tie last."""
    model.to_empty(device=device)
    reset_like_constructors(model)
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    return model


def meta_leftovers(model: nn.Module) -> list[str]:
    """Names of parameters and buffers still on `meta`: the check after loading with assign=True
    (Building on the meta device, chapter 3.1)."""
    named = [*model.named_parameters(), *model.named_buffers()]
    return [name for name, tensor in named if tensor.is_meta]


def to_device(obj, device, non_blocking: bool = False):
    """obj with every tensor moved to device; dicts, lists, tuples, namedtuples and dataclasses are
    rebuilt, anything else is returned as it is (GPUs, chapter 6)."""

    def move(value):
        if isinstance(value, torch.Tensor):
            return value.to(device, non_blocking=non_blocking)
        if isinstance(value, dict):  # dict, OrderedDict, ...: the same type, the same order
            return type(value)((key, move(item)) for key, item in value.items())
        if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
            return type(value)(*(move(item) for item in value))
        if isinstance(value, (list, tuple)):
            return type(value)(move(item) for item in value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {f.name: move(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
            return dataclasses.replace(value, **changes)
        return value  # numbers, strings, None: unchanged

    return move(obj)
