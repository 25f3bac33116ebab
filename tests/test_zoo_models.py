"""The zoo of inside_nn: every zoo model builds, deterministically and fast, runs forward on its example
inputs without a warning, and has exactly the traits its Spec claims (one check per trait in TRAIT_CHECKS);
and facts about single zoo models (and torch) that the recipes' table alone does not show.

The book's recipes run on every zoo model in tests/test_zoo.py, which imports the helpers defined here
(`built`, `plain_tensors`, ...).
"""

from __future__ import annotations

import copy
import functools
import time
import warnings

import pytest
import torch
from torch import nn
from torch.nn.utils import parametrize

from inside_nn import recipes, zoo

NAMES = sorted(zoo.MODELS)
WRAPPERS = (
    nn.parallel.DistributedDataParallel,
    torch._dynamo.eval_frame.OptimizedModule,
)


@pytest.fixture(scope="module", autouse=True)
def _process_group():
    yield
    zoo.teardown()


@functools.cache
def built(name: str) -> nn.Module:
    """One pristine build per model, shared by the read-only checks (recipes get fresh builds)."""
    return zoo.build(name)


def unwrap(model: nn.Module) -> nn.Module:
    if isinstance(model, nn.parallel.DistributedDataParallel):
        return model.module
    if isinstance(model, WRAPPERS):
        return model._orig_mod
    return model


# ------------------------------------------------------------------------------------------------
# What a model holds besides its registered state: plain tensors, plain lists, unregistered modules.


def _plain_values(module: nn.Module):
    """(name, value) of module's own attributes that nn.Module does not manage."""
    managed = {"_parameters", "_buffers", "_modules"}
    for name, value in vars(module).items():
        if name not in managed:
            yield name, value


def plain_tensors(model: nn.Module) -> list[tuple[str, torch.Tensor]]:
    """Tensors held as plain attributes, or in plain lists/tuples, of any module of model
    (a name with [i] is a list's)."""
    found = []
    for prefix, module in model.named_modules():
        for name, value in _plain_values(module):
            items = value if isinstance(value, (list, tuple)) else [value]
            for i, item in enumerate(items):
                if isinstance(item, torch.Tensor):
                    where = name if item is value else f"{name}[{i}]"
                    found.append((f"{prefix}.{where}".lstrip("."), item))
    return found


def plain_list_modules(model: nn.Module) -> list[tuple[str, nn.Module, bool]]:
    """(name, module, registered) for every module found in a plain list/tuple attribute."""
    registered = {id(m) for m in model.modules()}
    found = []
    for prefix, module in model.named_modules():
        for name, value in _plain_values(module):
            if isinstance(value, (list, tuple)):
                for i, item in enumerate(value):
                    if isinstance(item, nn.Module):
                        found.append(
                            (
                                f"{prefix}.{name}[{i}]".lstrip("."),
                                item,
                                id(item) in registered,
                            )
                        )
    return found


def unregistered_trainables(model: nn.Module) -> list[str]:
    """Leaf tensors with requires_grad that parameters() does not yield: the optimizer never sees them."""
    seen = {id(p) for p in model.parameters()}
    names = []
    for name, t in plain_tensors(model):
        if t.is_leaf and t.requires_grad and id(t) not in seen:
            seen.add(id(t))
            names.append(name)
    for name, module, registered in plain_list_modules(model):
        if not registered:
            names += [f"{name}.{n}" for n, p in module.named_parameters() if p.requires_grad]
    return names


def _registered(model: nn.Module, tensor: torch.Tensor) -> bool:
    return any(tensor is t for t in [*model.parameters(), *model.buffers()])


def _is_lazy(t) -> bool:
    return isinstance(t, nn.parameter.UninitializedTensorMixin)


def _dense_values(t: torch.Tensor) -> torch.Tensor | None:
    """The values of t as a dense real tensor, or None when it has none (meta, lazy)."""
    if t is None or t.is_meta or _is_lazy(t):
        return None
    return t.to_dense() if t.is_sparse else t


def _computed_buffers(name: str) -> list[str]:
    """Buffers that __init__ computes from a formula: not constant, and the same under any seed
    (random buffers such as a codebook or spectral norm's u differ between seeds)."""
    a, b = built(name), zoo.build(name, seed=1)
    bufs_b = dict(b.named_buffers())
    found = []
    for key, buf in a.named_buffers():
        values = _dense_values(buf)
        if values is None or values.numel() < 2 or bool((values == values.flatten()[0]).all()):
            continue
        if torch.equal(values, _dense_values(bufs_b[key])):
            found.append(key)
    return found


def _all_tensors(model: nn.Module):
    yield from model.parameters()
    yield from model.buffers()
    yield from (t for _, t in plain_tensors(model))


def _has_own_zero_weight(model: nn.Module) -> bool:
    return any(
        (name.endswith("weight") or p.ndim >= 2) and _dense_values(p) is not None and p.numel() > 0 and not p.any()
        for name, p in model.named_parameters()
    )


TRAIT_CHECKS = {
    "tied": lambda name, m: bool(recipes.tied_groups(m)),
    "shared-module": lambda name, m: len(list(m.named_modules(remove_duplicate=False))) > len(list(m.named_modules())),
    "persistent-buffer": lambda name, m: any(k in m.state_dict() for k, _ in m.named_buffers()),
    "non-persistent-buffer": lambda name, m: any(k not in m.state_dict() for k, _ in m.named_buffers()),
    "int-buffer": lambda name, m: any(
        not b.is_floating_point() and not b.is_complex() and b.dtype != torch.bool for b in m.buffers()
    ),
    "bool-buffer": lambda name, m: any(b.dtype == torch.bool for b in m.buffers()),
    "half-buffer": lambda name, m: any(b.dtype in (torch.float16, torch.bfloat16) for b in m.buffers()),
    "none-buffer": lambda name, m: any(b is None for x in m.modules() for b in x._buffers.values()),
    "computed-buffer": lambda name, m: bool(_computed_buffers(name)),
    "parametrized": lambda name, m: any(parametrize.is_parametrized(x) for x in m.modules()),
    "hook-weight": lambda name, m: any(
        x._forward_pre_hooks and any(isinstance(v, torch.Tensor) for _, v in _plain_values(x)) for x in m.modules()
    ),
    "plain-tensor-attribute": lambda name, m: any("[" not in n for n, _ in plain_tensors(m)),
    "plain-list-aliases-registered": lambda name, m: (
        any(r for *_, r in plain_list_modules(m)) or any("[" in n and _registered(m, t) for n, t in plain_tensors(m))
    ),
    "plain-list-unregistered": lambda name, m: (
        any(not r for *_, r in plain_list_modules(m))
        or any("[" in n and not _registered(m, t) for n, t in plain_tensors(m))
    ),
    "lazy-uninitialized": lambda name, m: any(_is_lazy(t) for t in _all_tensors(m)),
    "meta": lambda name, m: any(t.is_meta for t in _all_tensors(m)),
    "sparse": lambda name, m: any(t.is_sparse for t in _all_tensors(m)),
    "wrapper": lambda name, m: isinstance(m, WRAPPERS),
    "fx": lambda name, m: isinstance(m, torch.fx.GraphModule),
    "batchnorm": lambda name, m: any(isinstance(x, nn.modules.batchnorm._BatchNorm) for x in m.modules()),
    "rnn": lambda name, m: any(isinstance(x, nn.RNNBase) for x in m.modules()),
    "no-reset-parameters-leaf": lambda name, m: any(
        any(p is not None for p in x._parameters.values()) and not hasattr(x, "reset_parameters") for x in m.modules()
    ),
    "frozen": lambda name, m: any(not p.requires_grad for p in m.parameters()),
    "extra-state": lambda name, m: any(type(x).get_extra_state is not nn.Module.get_extra_state for x in m.modules()),
    "zero-init-weight": lambda name, m: _has_own_zero_weight(m),
    "generator": lambda name, m: any(isinstance(v, torch.Generator) for x in m.modules() for _, v in _plain_values(x)),
}


def test_trait_vocabulary_is_checked():
    assert TRAIT_CHECKS.keys() == zoo.TRAITS.keys()


def test_zoo_is_large_and_documented():
    assert len(zoo.MODELS) >= 32
    for name, spec in zoo.MODELS.items():
        assert spec.name == name and name == name.lower() and " " not in name
        assert spec.about and "\n" not in spec.about
        assert spec.traits <= zoo.TRAITS.keys()


@pytest.mark.parametrize("name", NAMES)
def test_traits_are_exactly_the_facts(name):
    model = built(name)
    found = {trait for trait, check in TRAIT_CHECKS.items() if check(name, model)}
    assert found == zoo.MODELS[name].traits


@pytest.mark.parametrize("name", NAMES)
def test_build_is_deterministic_fast_and_runs(name):
    rng = torch.get_rng_state()
    builds, seconds = [], []
    for _ in range(2):
        start = time.perf_counter()
        builds.append(zoo.build(name, seed=3))
        seconds.append(time.perf_counter() - start)
    model, again = builds
    assert torch.equal(torch.get_rng_state(), rng)  # the caller's RNG is untouched
    # The first build of a kind may import (torch.compile: inductor; meta: the decompositions).
    assert min(seconds) < 1.0
    a, b = model.state_dict(), again.state_dict()
    assert a.keys() == b.keys()
    for key in a:
        va, vb = a[key], b[key]
        if isinstance(va, torch.Tensor) and _dense_values(va) is not None:
            assert torch.equal(_dense_values(va), _dense_values(vb)), key
        elif not isinstance(va, torch.Tensor):
            assert va == vb, key
    inputs = zoo.inputs(name, seed=3)
    if inputs:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            model(*inputs)


# ------------------------------------------------------------------------------------------------
# Facts about single zoo models (and torch) that the table alone does not show.


def test_written_as_their_code_bases_write_them():
    gpt2 = built("gpt2")
    attn = gpt2.transformer.h[0].attn
    assert attn.c_attn.weight.shape == (16, 48)  # Conv1D: (in, out)
    assert gpt2.lm_head.weight is gpt2.transformer.wte.weight
    assert gpt2.state_dict()["transformer.h.0.attn.bias"].dtype == torch.bool
    llama = built("llama").model.layers[0].self_attn
    assert llama.k_proj.out_features < llama.q_proj.out_features  # grouped-query attention
    assert recipes.tied_groups(built("t5")) == {
        frozenset(
            {
                "shared.weight",
                "encoder.embed_tokens.weight",
                "decoder.embed_tokens.weight",
            }
        )
    }
    fpn = built("fpn")
    assert fpn.lateral_convs[0] is fpn.fpn_lateral4 and fpn.output_convs[-1] is fpn.fpn_output2
    resnet = built("resnet")
    assert not resnet.layer1[0].bn2.weight.any() and resnet.layer1[0].bn1.weight.all()
    assert built("darts").arch_parameters()[0] is built("darts").alphas_normal
    assert built("swin").layers[0][0].attn_mask is None
    assert built("swin").layers[0][1].attn_mask is not None


def test_fx_makes_a_non_persistent_buffer_persistent():
    # torch.fx's GraphModule copies a traced buffer with a plain register_buffer(name, tensor)
    assert "scale" not in zoo.ScaledMLP().state_dict()
    assert "scale" in built("fx").state_dict()


def test_tcn_init_weights_is_undone_by_the_weight_norm_hook():
    """locuslab TCN writes normal_(0, 0.01) into conv.weight after weight_norm; the pre-hook
    recomputes conv.weight from weight_g and weight_v before every forward, so the write is lost."""
    model = zoo.build("weight-norm-hook")
    conv = model.network[0].conv1
    assert conv.weight.std() < 0.02
    model(*zoo.inputs("weight-norm-hook"))
    assert conv.weight.std() > 0.1


def test_snapshot_copies_extra_state():
    model = zoo.build("extra-state")
    snap = recipes.snapshot(model)
    before = copy.deepcopy(snap["conv1._extra_state"])
    model(*zoo.inputs("extra-state"))  # forward updates the amax history
    assert model.conv1.get_extra_state() != before
    assert snap["conv1._extra_state"] == before


def test_to_device_drops_a_state_dicts_metadata_but_strip_prefixes_keeps_it():
    state = built("ddp").state_dict()
    assert hasattr(state, "_metadata")
    assert not hasattr(recipes.to_device(state, "cpu"), "_metadata")
    stripped = recipes.strip_prefixes(state)
    assert "module" not in stripped._metadata and "conv" in stripped._metadata


def test_teardown_ends_only_the_zoos_process_group():
    import torch.distributed as dist

    built("ddp")
    assert dist.is_initialized()
    zoo.teardown()
    assert not dist.is_initialized()
    zoo.teardown()  # nothing left to end
    assert isinstance(zoo.build("ddp"), nn.parallel.DistributedDataParallel)
