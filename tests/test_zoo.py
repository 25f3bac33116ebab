"""The book's recipes run on every model of inside_nn's zoo.

Every recipe of inside_nn.recipes runs on every zoo model; `recipe_outcomes()` returns what happens,
and EXPECTED records, per recipe, the models where it does not simply work: the table a chapter quotes
("holds on N of M zoo models; stops on X because Y"). A change in torch's behaviour fails a test here.
The zoo itself, and the helpers that read what a model holds, are tests/test_zoo_models.py's.
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter

import pytest
import torch
from conftest import NOTEBOOK_DIR, load_notebook
from test_zoo_models import (
    NAMES,
    _dense_values,
    _is_lazy,
    _registered,
    built,
    plain_list_modules,
    plain_tensors,
    unregistered_trainables,
    unwrap,
)
from torch import nn

from inside_nn import recipes, zoo

# What torch raises where a recipe, or a step of a probe, stops; anything else fails the test.
PROBE_ERRORS = (RuntimeError, ValueError, NotImplementedError, IndexError, TypeError)


@pytest.fixture(scope="module", autouse=True)
def _process_group():
    yield
    zoo.teardown()


# ------------------------------------------------------------------------------------------------
# The recipes on every zoo model. Each probe returns "ok" (the recipe simply works), "ok: ..."
# (it works and reports something), or what goes wrong.


def _where(model: nn.Module, names) -> str:
    """'Owner.attr×n, ...' for dotted names: the class of the owning module and the attribute."""
    counts = Counter()
    for name in names:
        path, _, attr = name.rpartition(".")
        try:
            owner = type(model.get_submodule(path)).__name__
        except AttributeError:  # a plain list's entry: keep the written name, indices folded
            owner, attr = "", re.sub(r"\[\d+\]", "[i]", name)
        counts[f"{owner}.{attr}".lstrip(".")] += 1
    return ", ".join(f"{k}×{n}" if n > 1 else k for k, n in sorted(counts.items()))


def _fresh(name: str) -> nn.Module:
    return zoo.build(name)


@contextlib.contextmanager
def _garbage_is_deterministic():
    """torch.empty fills memory with NaN (floats) and the largest value (ints, True for bools) in
    deterministic mode, so what to_empty leaves is the same on every run."""
    was = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(was)


def _nan_fill(model: nn.Module) -> set[str]:
    filled = set()
    with torch.no_grad():
        for name, p in model.named_parameters(remove_duplicate=False):
            if _dense_values(p) is not None and p.is_floating_point():
                p.fill_(float("nan"))
                filled.add(name)
    return filled


def _zero_weights(model: nn.Module) -> list[str]:
    return [
        name
        for name, p in model.named_parameters()
        if (name.endswith("weight") or p.ndim >= 2) and _dense_values(p) is not None and not p.any()
    ]


def _init_probe(name: str, apply) -> str:
    """Fill every parameter with NaN, apply the (re)initialization, and see what it did not reach;
    on a fresh build, see which zero-initialized weights it redraws."""
    model = _fresh(name)
    zero = _zero_weights(model)
    filled = _nan_fill(model)
    try:
        apply(model)
    except PROBE_ERRORS as err:
        return f"raises {type(err).__name__}"
    params = dict(model.named_parameters(remove_duplicate=False))
    left = [n for n in filled if params[n].isnan().any()]
    # Ties: count each Parameter once, under its first name.
    left = [n for n, p in model.named_parameters() if n in left]
    fresh = _fresh(name)
    apply(fresh)
    undone = [n for n in zero if n in dict(fresh.named_parameters()) and fresh.get_parameter(n).any()]
    parts = []
    if left:
        parts.append(f"leaves {len(left)} of {len(list(model.parameters()))}: {_where(model, left)}")
    if undone:
        parts.append(f"undoes zero init: {_where(model, undone)}")
    return "; ".join(parts) or "ok"


def probe_count_parameters(name: str) -> str:
    model = _fresh(name)
    try:
        recipes.count_parameters(model)
    except PROBE_ERRORS as err:
        return f"raises {type(err).__name__}"
    missed = unregistered_trainables(model)
    return f"misses {_where(model, missed)}" if missed else "ok"


def probe_freeze(name: str) -> str:
    model = _fresh(name)
    was_lazy = any(_is_lazy(p) for p in model.parameters())
    try:
        recipes.freeze(model)
    except PROBE_ERRORS as err:
        return f"raises {type(err).__name__}"
    if was_lazy:  # the dry run replaces the uninitialized parameters: does the freeze survive it?
        with torch.no_grad():
            model(*zoo.inputs(name))
    left = [n for n, p in model.named_parameters() if p.requires_grad]
    left += unregistered_trainables(model)
    return f"leaves trainable {_where(model, left)}" if left else "ok"


def probe_snapshot(name: str) -> str:
    model = _fresh(name)
    try:
        snap = recipes.snapshot(model)
    except PROBE_ERRORS as err:
        return f"raises {type(err).__name__}"
    state = model.state_dict()
    if list(snap) != list(state):
        return "other keys than state_dict()"
    kept = {
        k: _dense_values(v).clone()
        for k, v in snap.items()
        if isinstance(v, torch.Tensor) and _dense_values(v) is not None
    }
    with torch.no_grad():  # train a little, in place: every value changes
        for v in state.values():
            if isinstance(v, torch.Tensor) and _dense_values(v) is not None and not v.is_sparse:
                if v.dtype == torch.bool:
                    v.logical_not_()
                else:
                    v.add_(1)
    changed = [k for k, v in kept.items() if not torch.equal(v, _dense_values(snap[k]))]
    return f"follows the model: {changed}" if changed else "ok"


def _storage_groups(model: nn.Module) -> set[frozenset[str]]:
    """The truth tied_groups is after: names whose parameters share memory (or are one object)."""
    groups: dict[object, list[str]] = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        values = _dense_values(p)
        key = id(p) if values is None else values.untyped_storage().data_ptr()
        groups.setdefault(key, []).append(name)
    return {frozenset(names) for names in groups.values() if len(names) > 1}


def probe_tied_groups(name: str) -> str:
    model = _fresh(name)
    try:
        found = recipes.tied_groups(model)
    except PROBE_ERRORS as err:
        return f"raises {type(err).__name__}"
    truth = _storage_groups(model)
    if found != truth:
        return f"finds {sorted(map(sorted, found))}, memory says {sorted(map(sorted, truth))}"
    return f"ok: {len(found)} group(s)" if found else "ok"


def probe_strip_prefixes(name: str) -> str:
    model = _fresh(name)
    try:
        out = recipes.strip_prefixes(model.state_dict())
    except PROBE_ERRORS as err:
        return f"raises {type(err).__name__}"
    inner = unwrap(model).state_dict()
    if list(out) != list(inner):
        return f"keys differ: {sorted(set(out) ^ set(inner))[:4]}"
    if out._metadata.keys() != inner._metadata.keys():
        return f"_metadata differs: {sorted(set(out._metadata) ^ set(inner._metadata))[:4]}"
    return "ok: prefix stripped" if unwrap(model) is not model else "ok"


def probe_reset_all(name: str) -> str:
    return _init_probe(name, recipes.reset_all)


def probe_init_weights(name: str) -> str:
    return _init_probe(name, lambda model: model.apply(recipes.init_weights))


def _build_on_meta(name: str) -> nn.Module:
    with torch.random.fork_rng(devices=[]), torch.device("meta"):
        torch.manual_seed(0)
        return zoo.MODELS[name].build()


def _meta_elsewhere(model: nn.Module) -> list[str]:
    """Tensors on meta that registration does not reach: plain attributes, unregistered modules."""
    names, seen = [], set()
    for n, t in plain_tensors(model):
        if t.is_meta and not _registered(model, t) and id(t) not in seen:
            seen.add(id(t))
            names.append(n)
    for lname, module, registered in plain_list_modules(model):
        if not registered:
            names += [f"{lname}.{n}" for n, t in module.state_dict().items() if t.is_meta]
    return names


def probe_materialize_from_meta(name: str) -> str:
    try:
        model = _build_on_meta(name)
    except PROBE_ERRORS as err:
        return f"cannot build on meta: {type(err).__name__}"
    try:
        with _garbage_is_deterministic():
            recipes.materialize_from_meta(model, "cpu")
    except PROBE_ERRORS as err:
        return f"raises {type(err).__name__}"
    real = built(name)
    real_buffers = dict(real.named_buffers())
    parts = []
    garbage = [
        n
        for n, p in model.named_parameters()
        if _dense_values(p) is not None and p.is_floating_point() and p.isnan().any()
    ]
    if garbage:
        parts.append(f"leaves garbage in {_where(model, garbage)}")
    bad = []
    for n, b in model.named_buffers():
        values, truth = _dense_values(b), _dense_values(real_buffers[n])
        if values is None or truth is None:
            continue
        if (
            (values.is_floating_point() and values.isnan().any() and not truth.isnan().any())
            or not values.is_floating_point()
            and not torch.equal(values, truth)
        ):
            bad.append(n)
    if bad:
        parts.append(f"garbage buffers {_where(model, bad)}")
    undone = [n for n in _zero_weights(real) if n not in garbage and model.get_parameter(n).any()]
    if undone:
        parts.append(f"undoes zero init: {_where(model, undone)}")
    if recipes.tied_groups(model) != recipes.tied_groups(real):
        parts.append(f"unties {sorted(map(sorted, recipes.tied_groups(real)))}")
    elsewhere = _meta_elsewhere(model)
    if elsewhere:
        parts.append(f"leaves on meta {_where(model, elsewhere)}")
    inputs = zoo.inputs(name)
    if inputs:
        try:
            model(*inputs)
        except PROBE_ERRORS as err:
            parts.append(f"forward raises {type(err).__name__}")
    return "; ".join(parts) or "ok"


def probe_meta_leftovers(name: str) -> str:
    """The chapter 3 load: build on meta, load_state_dict(assign=True), then look for meta."""
    try:
        model = _build_on_meta(name)
    except PROBE_ERRORS as err:
        return f"cannot build on meta: {type(err).__name__}"
    try:
        model.load_state_dict(built(name).state_dict(), assign=True)
    except PROBE_ERRORS as err:
        return f"load with assign=True raises {type(err).__name__}"
    try:
        found = recipes.meta_leftovers(model)
    except PROBE_ERRORS as err:
        return f"raises {type(err).__name__}"
    registered = [n for n, t in [*model.named_parameters(), *model.named_buffers()] if t.is_meta]
    missed = [n for n in registered if n not in found] + _meta_elsewhere(model)
    if missed:
        return f"misses {_where(model, missed)}" + (f"; finds {_where(model, found)}" if found else "")
    return f"ok: finds {_where(model, found)}" if found else "ok"


def probe_to_device(name: str) -> str:
    model = _fresh(name)
    state = model.state_dict()
    try:
        moved = recipes.to_device(state, torch.device("meta"))
        moved_inputs = recipes.to_device(zoo.inputs(name), torch.device("meta"))
    except PROBE_ERRORS as err:
        return f"raises {type(err).__name__}"
    tensors = [
        v for v in [*moved.values(), *torch.utils._pytree.tree_leaves(moved_inputs)] if isinstance(v, torch.Tensor)
    ]
    if type(moved) is not type(state) or list(moved) != list(state):
        return "changes the mapping"
    if not all(t.is_meta for t in tensors):
        return "leaves tensors behind"
    return "ok"


PROBES = {
    "count_parameters": probe_count_parameters,
    "freeze": probe_freeze,
    "snapshot": probe_snapshot,
    "tied_groups": probe_tied_groups,
    "strip_prefixes": probe_strip_prefixes,
    "reset_all": probe_reset_all,
    "init_weights": probe_init_weights,
    "materialize_from_meta": probe_materialize_from_meta,
    "meta_leftovers": probe_meta_leftovers,
    "to_device": probe_to_device,
}


# The table a chapter quotes: per recipe, every model where the outcome is not a plain "ok", with why.
# Each entry is asserted exactly by test_recipe_outcomes, so a change in torch (or in the zoo) shows.
_PARAMETRIZED = (
    "reset_parameters() writes into the computed `weight`, which parametrize recomputes from "
    "parametrizations.weight.original* on every access"
)
_HOOKED = (
    "reset_parameters() writes into the plain `weight` attribute, which the forward pre-hook "
    "recomputes from the real Parameters"
)
_MHA = "nn.MultiheadAttention has only the private _reset_parameters()"
_LAZY_META = "cannot build on meta: "
EXPECTED: dict[str, dict[str, tuple[str, str]]] = {
    "count_parameters": {
        "darts": (
            "misses DartsNetwork.alphas_normal, DartsNetwork.alphas_reduce",
            "the architecture weights are plain tensors in a plain list, not Parameters",
        ),
        "lazy-cnn": (
            "raises ValueError",
            "numel() of an UninitializedParameter raises",
        ),
        "moe-list": (
            "misses experts[i].w1.weight×4, experts[i].w2.weight×4, experts[i].w3.weight×4",
            "experts in a plain list are not submodules",
        ),
    },
    "freeze": {
        "darts": (
            "leaves trainable DartsNetwork.alphas_normal, DartsNetwork.alphas_reduce",
            "parameters() does not yield the plain-tensor alphas",
        ),
        "lazy-cnn": (
            "raises ValueError",
            "requires_grad_() on an UninitializedParameter raises before the dry run",
        ),
        "moe-list": (
            ("leaves trainable experts[i].w1.weight×4, experts[i].w2.weight×4, experts[i].w3.weight×4"),
            "experts in a plain list are not submodules",
        ),
    },
    "snapshot": {
        "lazy-cnn": (
            "raises ValueError",
            "state_dict() holds the UninitializedParameters and clone() on them raises",
        ),
    },
    "tied_groups": {
        "gpt2": ("ok: 1 group(s)", "lm_head.weight is transformer.wte.weight"),
        "lstm-lm": ("ok: 1 group(s)", "decoder.weight is encoder.weight"),
        "t5": ("ok: 1 group(s)", "shared, encoder.embed_tokens, decoder.embed_tokens"),
        "weight-norm-hook": (
            "ok: 12 group(s)",
            "every conv is registered twice (conv1 and net.0), so each of its Parameters is",
        ),
    },
    "strip_prefixes": {
        "compiled": ("ok: prefix stripped", "_orig_mod. removed, _metadata keys too"),
        "ddp": ("ok: prefix stripped", "module. removed, _metadata keys too"),
    },
    "reset_all": {
        "gpt2": (
            "leaves 16 of 28: Conv1D.bias×8, Conv1D.weight×8",
            "transformers' Conv1D has no reset_parameters(); HF initializes in _init_weights",
        ),
        "llama": (
            "leaves 5 of 21: LlamaRMSNorm.weight×5",
            "LlamaRMSNorm has no reset_parameters()",
        ),
        "lora": (
            (
                "leaves 6 of 8: LoRAParametrization.lora_A×2, LoRAParametrization.lora_B×2, "
                "ParametrizationList.original×2"
            ),
            "the LoRA parametrization has no reset_parameters(); " + _PARAMETRIZED,
        ),
        "meta-half": (
            "leaves 2 of 15: MultiheadAttention.in_proj_bias, MultiheadAttention.in_proj_weight",
            _MHA,
        ),
        "noisy-router": (
            "leaves 2 of 2: NoisyTopKRouter.w_gate, NoisyTopKRouter.w_noise",
            "the router owns Parameters but has no reset_parameters()",
        ),
        "orthogonal": ("leaves 1 of 2: ParametrizationList.original", _PARAMETRIZED),
        "prune": ("leaves 1 of 4: Linear.weight_orig", _HOOKED),
        "resnet": (
            "undoes zero init: BatchNorm2d.weight×4",
            "BatchNorm2d.reset_parameters() sets every weight to 1: zero_init_residual is gone",
        ),
        "resnet-bottleneck": (
            "undoes zero init: BatchNorm2d.weight×4",
            "BatchNorm2d.reset_parameters() sets every bn3.weight to 1",
        ),
        "spectral-norm": (
            "leaves 3 of 6: ParametrizationList.original×3",
            _PARAMETRIZED,
        ),
        "swin": (
            "leaves 2 of 34: WindowAttention.relative_position_bias_table×2",
            "WindowAttention has no reset_parameters(); the table is drawn in __init__",
        ),
        "t5": (
            "leaves 12 of 47: T5LayerNorm.weight×12",
            "T5LayerNorm has no reset_parameters()",
        ),
        "transformer": (
            ("leaves 4 of 27: MultiheadAttention.in_proj_bias×2, MultiheadAttention.in_proj_weight×2"),
            _MHA,
        ),
        "vit": (
            ("leaves 6 of 36: LayerScale.gamma×4, VisionTransformer.cls_token, VisionTransformer.pos_embed"),
            "LayerScale and VisionTransformer own Parameters but have no reset_parameters()",
        ),
        "weight-norm": (
            "leaves 4 of 6: ParametrizationList.original0×2, ParametrizationList.original1×2",
            _PARAMETRIZED,
        ),
        "weight-norm-hook": (
            "leaves 8 of 14: Conv1d.weight_g×4, Conv1d.weight_v×4",
            _HOOKED,
        ),
    },
    "init_weights": {
        "bert": ("leaves 3 of 39: Embedding.weight×3", "no branch for nn.Embedding"),
        "gcn-attr": (
            "leaves 4 of 4: GraphConvolution.bias×2, GraphConvolution.weight×2",
            "GraphConvolution is neither Linear nor Conv",
        ),
        "gcn-buffer": (
            "leaves 4 of 4: GraphConvolution.bias×2, GraphConvolution.weight×2",
            "GraphConvolution is neither Linear nor Conv",
        ),
        "gpt2": (
            "leaves 17 of 28: Conv1D.bias×8, Conv1D.weight×8, Embedding.weight",
            "Conv1D is not nn.Linear; wpe is an Embedding (wte is reached through the tied lm_head)",
        ),
        "gru": (
            (
                "leaves 17 of 17: Embedding.weight, GRU.bias_hh_l0, GRU.bias_hh_l0_reverse, "
                "GRU.bias_hh_l1, GRU.bias_hh_l1_reverse, GRU.bias_ih_l0, GRU.bias_ih_l0_reverse, "
                "GRU.bias_ih_l1, GRU.bias_ih_l1_reverse, GRU.weight_hh_l0, GRU.weight_hh_l0_reverse, "
                "GRU.weight_hh_l1, GRU.weight_hh_l1_reverse, GRU.weight_ih_l0, "
                "GRU.weight_ih_l0_reverse, GRU.weight_ih_l1, GRU.weight_ih_l1_reverse"
            ),
            "no branch for nn.RNNBase or nn.Embedding",
        ),
        "lazy-cnn": (
            "raises RuntimeError",
            "xavier_uniform_ reads the shape of an UninitializedParameter",
        ),
        "llama": (
            "leaves 6 of 21: Embedding.weight, LlamaRMSNorm.weight×5",
            "no branch for nn.Embedding or a custom RMSNorm",
        ),
        "lora": (
            (
                "leaves 6 of 8: LoRAParametrization.lora_A×2, LoRAParametrization.lora_B×2, "
                "ParametrizationList.original×2"
            ),
            "xavier_uniform_ writes into the computed weight; the LoRA factors are not Linear",
        ),
        "lstm-lm": (
            (
                "leaves 8 of 10: LSTM.bias_hh_l0, LSTM.bias_hh_l1, LSTM.bias_ih_l0, LSTM.bias_ih_l1, "
                "LSTM.weight_hh_l0, LSTM.weight_hh_l1, LSTM.weight_ih_l0, LSTM.weight_ih_l1"
            ),
            "no branch for nn.RNNBase (the embedding is reached through the tied decoder)",
        ),
        "meta-half": (
            ("leaves 3 of 15: Embedding.weight, MultiheadAttention.in_proj_bias, MultiheadAttention.in_proj_weight"),
            "no branch for nn.Embedding or nn.MultiheadAttention's in_proj_weight",
        ),
        "noisy-router": (
            "leaves 2 of 2: NoisyTopKRouter.w_gate, NoisyTopKRouter.w_noise",
            "the router's Parameters belong to no Linear",
        ),
        "orthogonal": ("leaves 1 of 2: ParametrizationList.original", _PARAMETRIZED),
        "prune": ("leaves 1 of 4: Linear.weight_orig", _HOOKED),
        "resnet": (
            "undoes zero init: BatchNorm2d.weight×4",
            "the norm branch sets every BatchNorm weight to 1: zero_init_residual is gone",
        ),
        "resnet-bottleneck": (
            "undoes zero init: BatchNorm2d.weight×4",
            "the norm branch sets every bn3.weight to 1",
        ),
        "spectral-norm": (
            "leaves 3 of 6: ParametrizationList.original×3",
            _PARAMETRIZED,
        ),
        "swin": (
            "leaves 2 of 34: WindowAttention.relative_position_bias_table×2",
            "the bias table belongs to no Linear",
        ),
        "t5": (
            "leaves 15 of 47: Embedding.weight×3, T5LayerNorm.weight×12",
            "no branch for nn.Embedding (one Parameter, three names) or T5LayerNorm",
        ),
        "transformer": (
            (
                "leaves 5 of 27: Embedding.weight, MultiheadAttention.in_proj_bias×2, "
                "MultiheadAttention.in_proj_weight×2"
            ),
            "no branch for nn.Embedding or nn.MultiheadAttention's in_proj_weight",
        ),
        "vit": (
            ("leaves 6 of 36: LayerScale.gamma×4, VisionTransformer.cls_token, VisionTransformer.pos_embed"),
            "LayerScale.gamma, cls_token and pos_embed belong to no Linear",
        ),
        "vq-ema": (
            "leaves 2 of 4: ConvTranspose2d.bias, ConvTranspose2d.weight",
            "nn.ConvTranspose2d is not one of Conv1d/2d/3d",
        ),
        "weight-norm": (
            "leaves 4 of 6: ParametrizationList.original0×2, ParametrizationList.original1×2",
            _PARAMETRIZED,
        ),
        "weight-norm-hook": (
            "leaves 8 of 14: Conv1d.weight_g×4, Conv1d.weight_v×4",
            _HOOKED,
        ),
    },
    "materialize_from_meta": {
        "bert": (
            ("garbage buffers BertEmbeddings.position_ids, BertEmbeddings.token_type_ids; forward raises IndexError"),
            "both are computed in __init__ and BERT has no init_buffers()",
        ),
        "darts": (
            ("leaves on meta DartsNetwork.alphas_normal, DartsNetwork.alphas_reduce; forward raises RuntimeError"),
            "to_empty() moves registered tensors only",
        ),
        "ddp": (
            _LAZY_META + "RuntimeError",
            "DDP's _verify_param_shape_across_processes calls Tensor.item()",
        ),
        "fx": (
            "garbage buffers ScaledMLP.scale",
            "computed in __init__; the GraphModule copied it as a plain (persistent) buffer",
        ),
        "gcn-attr": (
            _LAZY_META + "NotImplementedError",
            "building the sparse adjacency copies values out of a meta tensor",
        ),
        "gcn-buffer": (
            _LAZY_META + "NotImplementedError",
            "building the sparse adjacency copies values out of a meta tensor",
        ),
        "gpt2": (
            (
                "leaves garbage in Conv1D.bias×8, Conv1D.weight×8; "
                "garbage buffers GPT2Attention.bias×2, GPT2Attention.masked_bias×2"
            ),
            (
                "Conv1D has no reset_parameters(); the causal mask and masked_bias are computed in "
                "__init__ (tie_weights() does restore the tie)"
            ),
        ),
        "lazy-cnn": (
            "raises ValueError",
            "to_empty() on an UninitializedParameter raises",
        ),
        "llama": (
            (
                "leaves garbage in LlamaRMSNorm.weight×5; garbage buffers "
                "LlamaRotaryEmbedding.cos_cached×2, LlamaRotaryEmbedding.inv_freq×2, "
                "LlamaRotaryEmbedding.sin_cached×2"
            ),
            "RMSNorm has no reset_parameters(); the rotary buffers are computed in __init__",
        ),
        "lora": (
            (
                "leaves garbage in LoRAParametrization.lora_A×2, LoRAParametrization.lora_B×2, "
                "ParametrizationList.original×2"
            ),
            _PARAMETRIZED,
        ),
        "lstm-lm": (
            "unties [['decoder.weight', 'encoder.weight']]",
            ("to_empty() gives each name its own Parameter; RNNModel ties in __init__ and has no tie_weights() method"),
        ),
        "moe-list": (
            ("leaves on meta experts[i].w1.weight×4, experts[i].w2.weight×4, experts[i].w3.weight×4"),
            "to_empty() does not reach modules in a plain list",
        ),
        "noisy-router": (
            "leaves garbage in NoisyTopKRouter.w_gate, NoisyTopKRouter.w_noise",
            "no reset_parameters()",
        ),
        "orthogonal": (
            _LAZY_META + "RuntimeError",
            "orthogonal() checks _is_orthogonal(weight) with Tensor.item()",
        ),
        "prune": (
            ("leaves garbage in Linear.weight_orig; garbage buffers Linear.weight_mask; leaves on meta Linear.weight"),
            _HOOKED + "; no reset recomputes the mask; the plain weight stays on meta until forward",
        ),
        "qat": (
            (
                "garbage buffers FakeQuantize.fake_quant_enabled×2, FakeQuantize.observer_enabled×2, "
                "FakeQuantize.scale×2, FakeQuantize.zero_point×2, MovingAverageMinMaxObserver.eps×2, "
                "MovingAverageMinMaxObserver.max_val×2, MovingAverageMinMaxObserver.min_val×2, "
                "QATNet.num_batches_tracked"
            ),
            "FakeQuantize and its observer set their buffers in __init__ only",
        ),
        "resnet": (
            "undoes zero init: BatchNorm2d.weight×4",
            "zero_init_residual (and the kaiming loop) are __init__ code, not reset_parameters()",
        ),
        "resnet-bottleneck": (
            "undoes zero init: BatchNorm2d.weight×4",
            "zero_init_residual is __init__ code, not reset_parameters()",
        ),
        "spectral-norm": (
            (
                "leaves garbage in ParametrizationList.original×3; "
                "garbage buffers _SpectralNorm._u×3, _SpectralNorm._v×3"
            ),
            _PARAMETRIZED + "; _u and _v come from a power iteration in __init__",
        ),
        "spectral-norm-hook": (
            (
                "leaves garbage in Conv2d.weight_orig×2, Linear.weight_orig; "
                "garbage buffers Conv2d.weight_u×2, Conv2d.weight_v×2, Linear.weight_u, "
                "Linear.weight_v; leaves on meta Conv2d.weight×2, Linear.weight"
            ),
            _HOOKED + "; u and v come from __init__; the plain weight stays on meta",
        ),
        "swin": (
            (
                "leaves garbage in WindowAttention.relative_position_bias_table×2; "
                "garbage buffers SwinTransformerBlock.attn_mask, "
                "WindowAttention.relative_position_index×2; forward raises IndexError"
            ),
            "no reset for the bias table; the index and the mask are computed in __init__",
        ),
        "t5": (
            "leaves garbage in T5LayerNorm.weight×12",
            "T5LayerNorm has no reset_parameters() (the shared embedding stays shared)",
        ),
        "vit": (
            ("leaves garbage in LayerScale.gamma×4, VisionTransformer.cls_token, VisionTransformer.pos_embed"),
            "no reset_parameters() on LayerScale or VisionTransformer",
        ),
        "vq-ema": (
            "garbage buffers Quantize.cluster_size, Quantize.embed, Quantize.embed_avg",
            "the EMA codebook is drawn in __init__; Quantize has no reset",
        ),
        "weight-norm": (
            ("leaves garbage in ParametrizationList.original0×2, ParametrizationList.original1×2"),
            _PARAMETRIZED,
        ),
        "weight-norm-hook": (
            ("leaves garbage in Conv1d.weight_g×4, Conv1d.weight_v×4; leaves on meta Conv1d.weight×4"),
            _HOOKED + "; the plain weight stays on meta until forward",
        ),
    },
    "meta_leftovers": {
        "bert": (
            "ok: finds BertEmbeddings.token_type_ids",
            "non-persistent: not in the checkpoint, so assign=True leaves it on meta",
        ),
        "darts": (
            "misses DartsNetwork.alphas_normal, DartsNetwork.alphas_reduce",
            "it checks registered tensors only",
        ),
        "ddp": (
            _LAZY_META + "RuntimeError",
            "DDP's _verify_param_shape_across_processes calls Tensor.item()",
        ),
        "gcn-attr": (
            _LAZY_META + "NotImplementedError",
            "building the sparse adjacency copies values out of a meta tensor",
        ),
        "gcn-buffer": (
            _LAZY_META + "NotImplementedError",
            "building the sparse adjacency copies values out of a meta tensor",
        ),
        "lazy-cnn": (
            "load with assign=True raises RuntimeError",
            "load_state_dict cannot copy into UninitializedParameters",
        ),
        "llama": (
            (
                "ok: finds LlamaRotaryEmbedding.cos_cached×2, LlamaRotaryEmbedding.inv_freq×2, "
                "LlamaRotaryEmbedding.sin_cached×2"
            ),
            "non-persistent: not in the checkpoint, so assign=True leaves them on meta",
        ),
        "meta-half": (
            "ok: finds Linear.bias, Linear.weight",
            "the head was never materialized",
        ),
        "moe-list": (
            "misses experts[i].w1.weight×4, experts[i].w2.weight×4, experts[i].w3.weight×4",
            "it checks registered tensors only",
        ),
        "orthogonal": (
            _LAZY_META + "RuntimeError",
            "orthogonal() checks _is_orthogonal(weight) with Tensor.item()",
        ),
        "prune": (
            "misses Linear.weight",
            "the plain weight attribute stays on meta until the pre-hook recomputes it",
        ),
        "spectral-norm-hook": (
            "misses Conv2d.weight×2, Linear.weight",
            "the plain weight attribute stays on meta until the pre-hook recomputes it",
        ),
        "weight-norm-hook": (
            "misses Conv1d.weight×4",
            "the plain weight attribute stays on meta until the pre-hook recomputes it",
        ),
    },
    "to_device": {},
}


def recipe_outcomes(measure: bool = False) -> dict[str, dict[str, str]]:
    """{recipe: {model: outcome}} for every recipe and zoo model: the documented table, or measured
    now with measure=True. An outcome of "ok" or "ok: ..." means the recipe holds on that model."""
    if measure:
        return {recipe: {name: probe(name) for name in NAMES} for recipe, probe in PROBES.items()}
    return {recipe: {name: EXPECTED[recipe].get(name, ("ok", ""))[0] for name in NAMES} for recipe in PROBES}


def holds(outcome: str) -> bool:
    return outcome == "ok" or outcome.startswith("ok: ")


def summary(recipe: str) -> str:
    """'holds on N of M zoo models; stops on X (why), ...' for a chapter to quote."""
    outcomes = recipe_outcomes()[recipe]
    stops = [name for name, outcome in outcomes.items() if not holds(outcome)]
    text = f"holds on {len(outcomes) - len(stops)} of {len(outcomes)} zoo models"
    if stops:
        text += "; stops on " + "; ".join(f"{n} ({EXPECTED[recipe][n][1]})" for n in stops)
    return text


def test_table_covers_every_recipe_and_model():
    assert EXPECTED.keys() == PROBES.keys()
    for per_model in EXPECTED.values():
        assert per_model.keys() <= set(NAMES)
        assert all(outcome != "ok" and why for outcome, why in per_model.values())


@pytest.mark.parametrize("recipe", list(PROBES))
def test_recipe_outcomes(recipe):
    measured = {name: PROBES[recipe](name) for name in NAMES}
    assert measured == recipe_outcomes()[recipe]


def test_summary_quotes_the_table():
    assert summary("to_device") == f"holds on {len(NAMES)} of {len(NAMES)} zoo models"
    text = summary("count_parameters")
    assert text.startswith(f"holds on {len(NAMES) - 3} of {len(NAMES)} zoo models; stops on darts (")


# The chapters quote this table: "holds on N of M zoo models". Each quote is checked against it, and
# test_recipe_outcomes checks the table against a run of every recipe on every model.
CHAPTER_QUOTES = [
    ("01_parameter_management", "pm-068a", "count_parameters"),
    ("01_parameter_management", "pm-075c", "freeze"),
    ("01_parameter_management", "pm-083a", "snapshot"),
    ("02_parameter_initialization", "init-053a", "reset_all"),
    ("02_parameter_initialization", "init-090a", "init_weights"),
]


@pytest.mark.parametrize(("notebook", "cell", "recipe"), CHAPTER_QUOTES)
def test_chapters_quote_the_table(notebook, cell, recipe):
    nb = load_notebook(NOTEBOOK_DIR / f"{notebook}.ipynb")
    (text,) = ["".join(c["source"]) for c in nb["cells"] if c.get("id") == cell]
    outcomes = recipe_outcomes()[recipe]
    held = sum(holds(outcome) for outcome in outcomes.values())
    assert f"{held} of {len(outcomes)}" in " ".join(text.split()), (notebook, cell)
