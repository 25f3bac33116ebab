"""Exercise checkers for "Inspect your own model" (08_inspect_your_model.ipynb): each `check_*` runs
a reader's answer beside `_reference_*`, the solution the page shows, and prints one line.

Each runs your function and the reference side by side on a family of models, and prints one line:
"✓ correct: ..." or the first case where the two differ. The family holds small models built for
one trap each and real architectures from `inside_nn.zoo` (GPT-2, T5, BERT, LLaMA, Swin, ResNet,
DARTS, pruned and spectral-normed layers, a quantization-aware net, ...), in float32, bfloat16 and
on the meta device. Every call goes through `harness.attempt`, and an inspection must leave the
model as it found it (`harness.ModelState`: parameters, buffers, flags, hooks, gradients).
"""

# Names a reader's answer may use as if the notebook had imported them (the checker cell imports
# this module's checkers; the tests run answers beside this module's names).
import contextlib  # noqa: F401
import io  # noqa: F401
from collections import OrderedDict

import torch
from torch import nn

from inside_nn import pick_device, zoo
from inside_nn.exercises.harness import ModelState, Wrong, attempt, checker

device = pick_device()


def _reference_plain_tensor_names(model: nn.Module) -> set[str]:
    """Dotted names of attributes holding unregistered tensors."""

    def holds_tensor(value) -> bool:
        if isinstance(value, torch.Tensor):
            return True
        if isinstance(value, dict):
            value = list(value.values())
        return isinstance(value, list | tuple) and any(holds_tensor(v) for v in value)

    names = set()
    for path, module in model.named_modules():
        for name, value in vars(module).items():
            if name not in ("_parameters", "_buffers", "_modules") and holds_tensor(value):
                names.add(f"{path}.{name}" if path else name)
    return names


def _reference_ddp_buffer_bytes(model: nn.Module) -> int:
    """Bytes of the buffers DDP broadcasts per synced forward."""
    return sum(buffer.nbytes for buffer in model.buffers())


def _reference_tied_groups(model: nn.Module) -> set[frozenset[str]]:
    """Names that share one Parameter, one frozenset per shared Parameter."""
    names_of = {}
    for name, parameter in model.named_parameters(remove_duplicate=False):
        names_of.setdefault(id(parameter), []).append(name)
    return {frozenset(names) for names in names_of.values() if len(names) > 1}


def _canon(value):
    """Sets shown in a stable order (a set's own order changes from run to run)."""
    if isinstance(value, set | frozenset):
        return sorted((_canon(v) for v in value), key=repr)
    return value


def _short(value, limit=70):
    text = repr(_canon(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _value_of(model, name):
    """The value of the plain attribute `name` (a dotted path), or None."""
    path, _, attribute = name.rpartition(".")
    return vars(model.get_submodule(path)).get(attribute)


def _hint(mistakes, got, expected, model):
    """The first mistake whose test fits the answer (a test that cannot judge it is skipped)."""
    for test, text in mistakes:
        try:
            if test(got, expected, model):
                return text
        except Exception:  # noqa: BLE001, S112 (a result of another type: a later test judges it)
            continue
    return ""


def _compare(answer, reference, cases, name, mistakes=()):
    """Run both on every (description, build) case; the first difference ends the check."""
    for description, build in cases:
        torch.manual_seed(0)
        model = build()
        expected = reference(model)
        state = ModelState(model)
        got, error = attempt(answer, model)
        if error is not None:
            raise Wrong(f"✗ on {description}, {name} raised {type(error).__name__}: {str(error)[:80]}")
        changed = state.difference(ModelState(model))
        if changed:
            raise Wrong(f"✗ on {description}, it {changed}; an inspection must leave the model as it was")
        if type(got) is not type(expected) or got != expected:
            hint = _hint(mistakes, got, expected, model)
            shown = (
                f"a {type(got).__name__} {_short(got)}; expected a {type(expected).__name__}"
                if type(got) is not type(expected)
                else f"{_short(got)}; expected"
            )
            raise Wrong(
                f"✗ on {description} your answer is {shown} {_short(expected)}" + (f" ({hint})" if hint else "")
            )
    return f"✓ correct: {name} agrees with the reference on {len(cases)} models, from the zoo too"


def _module(**plain):
    """An empty module with the given plain attributes (set past nn.Module's registration)."""
    module = nn.Module()
    for name, value in plain.items():
        object.__setattr__(module, name, value)
    return module


def _with_buffers(*buffers):
    module = nn.Module()
    for name, tensor, persistent in buffers:
        module.register_buffer(name, tensor, persistent=persistent)
    return module


def _tied_lm(vocab=11, dim=6):
    embed, head = nn.Embedding(vocab, dim), nn.Linear(dim, vocab, bias=False)
    head.weight = embed.weight
    return nn.ModuleDict({"embed": embed, "block": nn.Linear(dim, dim), "lm_head": head})


def _shared_block():
    shared = nn.Linear(4, 4)
    return nn.Sequential(nn.Linear(3, 4), shared, nn.ReLU(), shared)


def _encoder_layer():
    return nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)


def _bn_net():
    return nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU())


def _nested_plain():
    outer = nn.Sequential(nn.Linear(2, 2), _module(cache=torch.zeros(3)))
    object.__setattr__(outer, "scale", torch.ones(()))
    return outer


def _zoo(name, dtype=None, device=None):
    """A zoo model, as its code base builds it, optionally cast or moved."""

    def build():
        model = zoo.build(name)
        return model.to(dtype=dtype, device=device) if dtype or device else model

    return build


def _plain_cases():
    return [
        ("a module with a plain `matrix`", lambda: _module(matrix=torch.zeros(3, 4))),
        ("a plain tensor named `_cache`", lambda: _module(_cache=torch.zeros(2))),
        (
            "the same `matrix` registered as a buffer",
            lambda: _with_buffers(("matrix", torch.zeros(3, 4), True)),
        ),
        ("a plain tensor on submodule `1` and on the root", _nested_plain),
        (
            "a list of two tensors after a None",
            lambda: _module(history=[None, torch.zeros(2), torch.ones(2)]),
        ),
        (
            "an OrderedDict holding a number, then a tensor",
            lambda: _module(stats=OrderedDict(n=3, mean=torch.zeros(2))),
        ),
        (
            "an nn.Parameter kept in a plain list",
            lambda: _module(extra=[nn.Parameter(torch.zeros(2))]),
        ),
        ("a tuple inside a dict", lambda: _module(pairs={"a": (torch.zeros(1), "x")})),
        (
            "ints, strings and a list of modules",
            lambda: _module(n=3, tag="t", blocks=[nn.Linear(1, 1)]),
        ),
        ("a TransformerEncoderLayer", _encoder_layer),
        ("a conv net with BatchNorm", _bn_net),
        ("a tied language model", _tied_lm),
        (
            "the DARTS search network (alphas in a plain list)",
            _zoo("darts", torch.bfloat16),
        ),
        ("a layer pruned with torch.nn.utils.prune", _zoo("prune")),
        (
            "an SN-GAN discriminator with the old spectral_norm",
            _zoo("spectral-norm-hook"),
        ),
        ("a GCN whose sparse adjacency is a plain attribute", _zoo("gcn-attr")),
        ("a LoRA MLP (parametrizations)", _zoo("lora")),
        ("a noisy top-k router with its own torch.Generator", _zoo("noisy-router")),
        ("GPT-2 on the meta device", _zoo("gpt2", device="meta")),
    ]


@checker
def check_plain_tensor_names(plain_tensor_names):
    registries = ("_parameters", "_buffers", "_modules")
    mistakes = [
        (lambda got, exp, model: not isinstance(got, set), "return a set of names"),
        (
            lambda got, exp, model: any(str(n).rpartition(".")[2] in registries for n in got),
            "skip `_parameters`, `_buffers` and `_modules`: they hold registered tensors",
        ),
        (
            lambda got, exp, model: any("[" in str(n) for n in got),
            "name the attribute, not each item in it: `history`, not `history[0]`",
        ),
        (
            lambda got, exp, model: {str(n).rpartition(".")[2] for n in exp} == set(got) and got != exp,
            "prefix the module path `named_modules()` gives: `1.cache`, not `cache`",
        ),
        (
            lambda got, exp, model: got < exp and any("." in n for n in exp - got),
            "look at every submodule, with the path `named_modules()` gives it",
        ),
        (
            lambda got, exp, model: got < exp and any(n.startswith("_") for n in exp - got),
            "a plain tensor may have any name, `_cache` included: skip only the three registries",
        ),
        (
            lambda got, exp, model: got < exp and any(_value_of(model, n).is_sparse for n in exp - got),
            "a sparse tensor (a graph's adjacency) is a tensor too",
        ),
        (
            lambda got, exp, model: got < exp,
            "a tensor inside a list, tuple or dict, or a Parameter in a plain list, is unregistered too",
        ),
        (
            lambda got, exp, model: got > exp,
            "registered parameters and buffers are not plain",
        ),
    ]
    return _compare(
        plain_tensor_names,
        _reference_plain_tensor_names,
        _plain_cases(),
        "plain_tensor_names",
        mistakes,
    )


def _shared_buffer():
    stats = torch.zeros(5)
    first, second = nn.Module(), nn.Module()
    first.register_buffer("stats", stats)
    second.register_buffer("stats", stats)
    return nn.ModuleDict({"first": first, "second": second})


def _bert_and_shared_norm_on_meta():
    """BERT and a module used twice, on meta: the shared buffers are sent once, and every data_ptr() is 0."""
    with torch.device("meta"):
        shared = nn.BatchNorm1d(6)
        norms = nn.Sequential(nn.Linear(3, 6), shared, nn.Linear(6, 6), shared)
    return nn.ModuleDict({"bert": _zoo("bert", device="meta")(), "norms": norms})


def _view_buffer():
    table = torch.arange(20.0)
    return _with_buffers(("window", table[:4], True))


def _buffer_cases():
    return [
        ("a model without buffers", lambda: nn.Linear(3, 2)),
        ("a conv net with BatchNorm (float32 and int64 buffers)", _bn_net),
        (
            "a float16 buffer",
            lambda: _with_buffers(("seen", torch.zeros(10, dtype=torch.float16), True)),
        ),
        (
            "a non-persistent buffer",
            lambda: _with_buffers(("inv_freq", torch.ones(8), False)),
        ),
        ("one buffer registered in two modules", _shared_buffer),
        ("a buffer that views 4 of a tensor's 20 values", _view_buffer),
        (
            "a plain tensor attribute and no buffer",
            lambda: _module(matrix=torch.zeros(12, 197, 192)),
        ),
        ("a TransformerEncoderLayer", _encoder_layer),
        ("a tied language model", _tied_lm),
        (
            "a torchvision ResNet in bfloat16 (int64 counters stay)",
            _zoo("resnet", torch.bfloat16),
        ),
        ("a Swin Transformer (int64 index, a None attn_mask slot)", _zoo("swin")),
        ("BERT (persistent and non-persistent int64 buffers)", _zoo("bert")),
        ("LLaMA (non-persistent rotary caches)", _zoo("llama")),
        ("GPT-2 (a bool causal mask)", _zoo("gpt2")),
        ("a quantization-aware net (uint8 flags, int32 zero points)", _zoo("qat")),
        ("a VQ-VAE in float16 (EMA codebook buffers)", _zoo("vq-ema")),
        ("CycleGAN's InstanceNorm (None buffer slots)", _zoo("cyclegan")),
        ("BERT and a BatchNorm1d used twice, on the meta device", _bert_and_shared_norm_on_meta),
    ]


@checker
def check_ddp_buffer_bytes(ddp_buffer_bytes):
    def elements(model):
        return sum(b.numel() for b in model.buffers())

    mistakes = [
        (
            lambda got, exp, model: not isinstance(got, int) or isinstance(got, bool),
            "return the number of bytes as an int",
        ),
        (
            lambda got, exp, model: got == elements(model),
            "count bytes, not elements: use nbytes",
        ),
        (
            lambda got, exp, model: got == 4 * elements(model),
            "not every buffer holds 4-byte floats (num_batches_tracked is int64, float16 is 2 bytes): use nbytes",
        ),
        (
            lambda got, exp, model: got == 2 * exp,
            "a buffer shared by two modules is one tensor, sent once",
        ),
        (
            lambda got, exp, model: got < exp and any(b.is_meta for b in model.buffers()),
            (
                "on meta every data_ptr() is 0, so addresses merge different buffers: tell them apart by the object "
                "(model.buffers() yields each once)"
            ),
        ),
        (
            lambda got, exp, model: (
                got > exp and len(list(model.named_modules(remove_duplicate=False))) > len(list(model.modules()))
            ),
            "a module used twice holds its buffers once: DDP sends them once (model.buffers() yields each once)",
        ),
        (
            lambda got, exp, model: (
                got != exp
                and got > sum(b.nbytes for b in model.buffers() if b.element_size() >= 4)
                and any(b.element_size() < 4 for b in model.buffers())
            ),
            "each buffer's element size follows its dtype (bfloat16 2 bytes, bool 1): use nbytes",
        ),
        (
            lambda got, exp, model: got < exp,
            "DDP sends every buffer: non-persistent and integer ones too",
        ),
        (
            lambda got, exp, model: got > exp and exp == 0 and not list(model.parameters()),
            "a plain tensor attribute is not a buffer: DDP never sends it",
        ),
        (
            lambda got, exp, model: got > exp,
            "count the buffers' own bytes: not parameters, not the storage a view shares",
        ),
    ]
    return _compare(
        ddp_buffer_bytes,
        _reference_ddp_buffer_bytes,
        _buffer_cases(),
        "ddp_buffer_bytes",
        mistakes,
    )


def _zeros_lookalike():
    module = nn.Module()
    module.cls_token = nn.Parameter(torch.zeros(1, 4))
    module.register_token = nn.Parameter(torch.zeros(1, 4))
    return module


def _meta_tied():
    with torch.device("meta"):
        return _tied_lm()


def _materialized_tied():
    with torch.device("meta"):
        model = _tied_lm()
    model.to_empty(device="cpu")
    with torch.no_grad():
        for parameter in model.parameters():  # to_empty leaves whatever the memory held
            parameter.normal_()
    return model


def _three_way():
    model = _tied_lm()
    model["block"].weight = nn.Parameter(torch.zeros(6, 6))
    extra = nn.Linear(6, 11, bias=False)
    extra.weight = model["embed"].weight
    model["extra_head"] = extra
    return model


def _frozen_tied():
    model = _tied_lm()
    model["embed"].weight.requires_grad_(False)
    return model


def _flat_views():
    """Two Parameters viewing one flat storage (as FSDP's flat parameters do): not a tie."""
    flat = torch.arange(8.0)
    module = nn.Module()
    module.first = nn.Parameter(flat[:4])
    module.second = nn.Parameter(flat[4:])
    return module


def _tie_cases():
    return [
        (
            "a plain MLP",
            lambda: nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)),
        ),
        ("a tied language model", _tied_lm),
        ("one Linear used twice in a Sequential", _shared_block),
        ("two zero-initialized tokens that are not tied", _zeros_lookalike),
        ("a tied language model built on meta", _meta_tied),
        ("a tied language model after to_empty (the tie is gone)", _materialized_tied),
        ("a weight tied three ways", _three_way),
        ("a frozen tied weight", _frozen_tied),
        ("a TransformerEncoderLayer", _encoder_layer),
        ("two Parameters viewing one flat storage", _flat_views),
        ("GPT-2 (lm_head tied to wte) in bfloat16", _zoo("gpt2", torch.bfloat16)),
        ("T5 (one `shared` Embedding under three names)", _zoo("t5")),
        ("an LSTM language model with tied weights", _zoo("lstm-lm")),
        (
            "a TCN whose convs are also registered in a Sequential",
            _zoo("weight-norm-hook"),
        ),
        ("GPT-2 on the meta device", _zoo("gpt2", device="meta")),
        ("a fine-tuned ResNet with a frozen backbone", _zoo("frozen-backbone")),
    ]


@checker
def check_tied_groups(tied_groups):
    def names(model):
        return {n for n, _ in model.named_parameters(remove_duplicate=False)}

    mistakes = [
        (
            lambda got, exp, model: not isinstance(got, set) or any(not isinstance(g, frozenset) for g in got),
            "return a set of frozensets of names",
        ),
        (
            lambda got, exp, model: got < exp or (got == set() and exp),
            "named_parameters() lists a shared tensor once: pass remove_duplicate=False, and keep frozen ones too",
        ),
        (
            lambda got, exp, model: any(not set(g) <= names(model) for g in got),
            "name the parameters (`embed.weight`), not the modules",
        ),
        (
            lambda got, exp, model: any(len(g) == 1 for g in got),
            "a name alone is not a tie: keep groups of two or more",
        ),
        (
            lambda got, exp, model: any(g < e for g in got for e in exp),
            "one frozenset per shared Parameter, holding all of its names",
        ),
        (
            lambda got, exp, model: not got <= exp,
            "equal values, data_ptr() or a shared storage are not a tie (data_ptr() is 0 on meta): compare the Parameter objects",
        ),
    ]
    return _compare(tied_groups, _reference_tied_groups, _tie_cases(), "tied_groups", mistakes)
