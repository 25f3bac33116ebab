"""Exercise checkers for "Parameter initialization" (02_parameter_initialization.ipynb).

Each `check_*` runs a reader's answer beside `_reference_*`, the solution the page shows, on the layers and
models below and on real architectures drawn from `inside_nn.zoo` (in float32, float64 and bfloat16; the
convolutions also on the meta device), through `inside_nn.exercises.harness`, and prints one line. The
harness checks global state around every call of the answer: `init_weights` must draw from the global
generator (it is checked to follow `torch.manual_seed`), `reseed_linear_` and `conv_fan_in` must not
touch it at all.
"""

import copy
import math
import numbers
import warnings
from functools import partial

import torch
from torch import nn

from inside_nn import zoo
from inside_nn.exercises.harness import (
    FLOATS,
    ModelState,
    Wrong,
    _plain_default_device,
    attempt,
    built,
    checker,
    seed_verdict,
)


class _SubLinear(nn.Linear):
    """A subclass of nn.Linear, like the out_proj of nn.MultiheadAttention."""


def _seed(seed):
    """Seed the CPU generator (the harness restores the caller's after the check). torch.manual_seed would
    also queue a seed for every accelerator, at a few milliseconds a call."""
    torch.default_generator.manual_seed(seed)


def _call(answer, *args, allow=()):
    """The answer through `harness.attempt` (warnings silenced, a deadline for an endless loop, such as
    redrawing a whole tensor until every value is in bounds): (result, None), or (None, the "✗ ..." line:
    the stub, an error, a change to global state, overtime)."""
    try:
        result, error = attempt(answer, *args, allow=allow)
    except Wrong as wrong:
        line = str(wrong)
    else:
        line = None
        if error is not None:
            message = (str(error).strip().splitlines() or ["(no message)"])[0]
            line = f"✗ it raised {type(error).__name__}: {message}"
    _plain_default_device()
    return (None, line) if line else (result, None)


def _dtype_name(dtype):
    return str(dtype).removeprefix("torch.")


def _zoo_models(excluded):
    """(name, spec) of the zoo's models, less those with an excluded trait."""
    return [(name, spec) for name, spec in zoo.MODELS.items() if not spec.traits & set(excluded)]


def _zoo_build(name, seed=0):
    """zoo.build(name), seeded the same way, without torch.manual_seed's cost."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return built(zoo.MODELS[name].build, seed)


# Zoo models the init exercises leave out: a lazy module before its dry run has nothing to fill, a meta
# model has no values, wrappers need a process group or a compiler, and a weight recomputed from other
# tensors (a parametrization, pruning's or the old weight_norm's pre-hook) is not what nn.init writes into:
# the references themselves fill a temporary there. (The sparse-adjacency GCNs hold no nn.Linear.)
_NOT_INITIALIZED_HERE = {
    "lazy-uninitialized",
    "meta",
    "wrapper",
    "parametrized",
    "hook-weight",
    "sparse",
}


# --- init_weights ----------------------------------------------------------------------------------


def _reference_init_weights(module: nn.Module) -> None:
    """For Module.apply: truncated-normal weights (std 0.02, within ±0.04), zero biases."""
    if isinstance(module, nn.Linear):
        nn.init.trunc_normal_(module.weight, std=0.02, a=-0.04, b=0.04)
        if module.bias is not None:
            nn.init.zeros_(module.bias)


_TRUNCATED_STD = 0.02 * math.sqrt(1 - 4 * math.exp(-2) / math.sqrt(2 * math.pi) / math.erf(math.sqrt(2)))
_CENTRE_SHARE = math.erf(0.5 / math.sqrt(2)) / math.erf(math.sqrt(2))  # P(|w| < 0.01): 0.401


def _init_weights_family():
    """(description, builder, dtype): what `init_weights` meets in real models, small and from the zoo."""

    def mlp():
        return nn.Sequential(
            nn.Linear(128, 128),
            nn.LayerNorm(128),
            _SubLinear(128, 128),
            nn.ReLU(),
            nn.Linear(128, 128, bias=False),
        )

    def encoder_layer():
        return nn.TransformerEncoderLayer(32, 4, 64, batch_first=True)

    def embed_conv():
        return nn.Sequential(nn.Embedding(50, 16), nn.Conv1d(16, 16, 3), nn.Linear(16, 8))

    def frozen():
        layer = nn.Linear(64, 64)
        layer.requires_grad_(False)
        return layer

    family = [
        ("the MLP with a LayerNorm and a Linear subclass", mlp, torch.float32),
        ("nn.TransformerEncoderLayer(32, 4, 64)", encoder_layer, torch.float32),
        ("Embedding, Conv1d, Linear", embed_conv, torch.float32),
        ("a frozen nn.Linear(64, 64)", frozen, torch.float32),
        (
            "nn.Linear(64, 64, dtype=torch.float64)",
            partial(nn.Linear, 64, 64, dtype=torch.float64),
            torch.float64,
        ),
        ("nn.Linear(256, 256)", partial(nn.Linear, 256, 256), torch.float32),
        (
            "nn.Linear(256, 256) in bfloat16",
            partial(nn.Linear, 256, 256, dtype=torch.bfloat16),
            torch.bfloat16,
        ),
    ]
    for i, (name, spec) in enumerate(_zoo_models(_NOT_INITIALIZED_HERE)):
        dtype = torch.float32 if "half-buffer" in spec.traits else FLOATS[i % 3]
        note = "" if dtype == torch.float32 else f" in {_dtype_name(dtype)}"
        family.append(
            (
                f"the zoo's `{name}`{note}",
                partial(_zoo_build, name),
                dtype,
            )
        )
    return family


def _applying(answer, failed):
    """model -> model.apply(answer), named like the answer; the module it failed on goes to `failed`."""

    def guarded(module):
        try:
            answer(module)
        except NotImplementedError:
            raise
        except Exception:
            failed.append(module)
            raise

    def apply(model):
        model.apply(guarded)

    apply.__name__ = getattr(answer, "__name__", "init_weights")
    return apply


def _apply_init(answer, model, where):
    """model.apply(answer) through the harness: None, or the "✗ ..." line."""
    failed = []
    _, line = _call(_applying(answer, failed), model, allow={"rng"})
    if line is None or line.startswith("✗ not solved yet"):
        return line
    module = failed[0] if failed else None
    if "raised" in line and isinstance(module, nn.Linear) and module.bias is None:
        return f"✗ {where}: it failed on a layer built with bias=False, whose bias is None: check `module.bias is not None`"
    if "raised" in line and module is not None:
        return f"✗ {where}: on {type(module).__name__} {line.removeprefix('✗ ')}"
    return f"✗ {where}: {line.removeprefix('✗ ')}"


def _bound(value, dtype):
    """The largest value a draw within ±value can show in `dtype`: the first value of the dtype at or
    above it (a draw just inside the bound may round up to it), with a hair of slack."""
    edge = torch.tensor(value, dtype=torch.float64).to(dtype)
    if edge.item() < value:
        edge = torch.nextafter(edge, torch.tensor(math.inf, dtype=dtype))
    return edge.item() * (1 + 1e-6)


def _structure_problem(before, model, where):
    """How the answer broke a parameter's identity, flags, or anything but parameter values."""
    now = ModelState(model)
    if [n for n, *_ in now.params] != [n for n, *_ in before.params]:
        return f"✗ {where}: it {before.difference(now)}; fill the existing tensors in place"
    for (name, old, flag, value), (_, new, new_flag, _) in zip(before.params, now.params):
        if new is not old:
            return f"✗ {where}: it replaced {name} with a new tensor (an optimizer built earlier keeps the old one); fill it in place"
        if new_flag != flag or new.dtype != value.dtype:
            return f"✗ {where}: it changed {name}'s requires_grad or dtype; fill the existing tensor in place"
    same = copy.copy(before)  # parameter values as they are now, all else as before
    same.params, same.grads = now.params, now.grads
    changed = same.difference(now)
    if changed:
        return f"✗ {where}: it {changed}; an initializer writes parameter values only"
    return None


_SKIP = "skip"  # the reference does not apply to this model


def _reference_values(model, before, originals):
    """Each parameter as model.apply(_reference_init_weights) leaves it, with the model then put back as
    built (the same objects); None where the reference cannot initialize the model."""
    try:
        model.apply(_reference_init_weights)
    except Exception:  # noqa: BLE001 (a zoo model the reference cannot initialize is no family)
        return None
    expected = [p.detach().clone() for _, p, _, _ in before.params]
    with torch.no_grad():  # back to the model as built, the same objects
        for (_, p, _, _), value in zip(before.params, originals):
            p.copy_(value)
    return expected


def _touched_hint(where, name, owner):
    """The line for a parameter the answer changed and the reference leaves alone."""
    if isinstance(owner, nn.MultiheadAttention):
        return f"✗ {where}: it changed {name}, which belongs to no nn.Linear; initialize nn.Linear layers only"
    return f"✗ {where}: it changed the {type(owner).__name__}'s {name}: initialize nn.Linear layers only"


def _left_hint(where, name, owner, param, reference):
    """The line for a parameter the reference initializes and the answer left as it was."""
    if torch.all(reference == 0):
        return f"✗ {where}: it left {name} as it was: the biases should be zero (nn.init.zeros_)"
    if type(owner) is not nn.Linear and isinstance(owner, nn.Linear):
        return f"✗ {where}: it left {name} at its default: type(module) is nn.Linear misses subclasses; use isinstance"
    if getattr(owner, "bias", 0) is None:
        return f"✗ {where}: it left {name} at its default (a layer built with bias=False: does your `bias is not None` check guard the weight too?)"
    if not getattr(owner, "weight", param).requires_grad:
        return f"✗ {where}: it left {name} at its default: a frozen layer is initialized too (requires_grad says nothing about init)"
    return f"✗ {where}: it left {name} at its default"


def _draw_problem(where, name, param):
    """The line for drawn values that are no normal(0, 0.02) truncated at ±0.04; else None."""
    values = param.float()
    largest = values.abs().max().item()
    bound = _bound(0.04, param.dtype)
    if largest > bound:
        return f"✗ {where}: {name} reaches {largest:.3f}: trunc_normal_'s a and b are absolute bounds (default ±2); pass a=-0.04, b=0.04"
    on_bounds = int((values.abs() >= bound / (1 + 2e-6)).sum())
    if on_bounds >= 3 and on_bounds > values.numel() * (0.01 if param.dtype == torch.bfloat16 else 0.005):
        return f"✗ {where}: many of {name}'s values sit on ±0.04: clamping piles the tails onto the bounds; truncation redraws them"
    if values.numel() >= 16384 and (
        abs(values.std().item() / _TRUNCATED_STD - 1) > 0.05 or abs(values.mean().item()) > 1e-3
    ):
        return f"✗ {where}: {name} has std {values.std().item():.4f}; a normal with std 0.02 cut at ±0.04 has mean 0 and std {_TRUNCATED_STD:.4f}"
    centre = (values.abs() < 0.01).float().mean().item()
    if values.numel() >= 65536 and abs(centre - _CENTRE_SHARE) > 0.0075:  # 4 sd
        return f"✗ {where}: {centre:.1%} of {name} lie within ±0.01, a truncated normal has {_CENTRE_SHARE:.1%}: redraw values outside ±0.04 (fmod or wrapping folds them inward)"
    return None


def _identical_problem(where, drawn):
    """The line for two layers drawn alike where the reference draws them differently; else None."""
    for i, (name, param, reference) in enumerate(drawn):
        for other, same, reference_other in drawn[i + 1 :]:
            if param.shape != same.shape or torch.equal(reference, reference_other):
                continue
            if torch.equal(param, same):
                return f"✗ {where}: {name} and {other} came out identical: a generator seeded inside init_weights restarts for every layer; draw from one stream"
    return None


def _init_weights_problem(answer, what, build, dtype):
    """None if answer does what the reference does to the model `build()` makes; else the hint."""
    _seed(0)
    model = build()
    if dtype != torch.float32 and "dtype=" not in what:
        model.to(dtype)
    before = ModelState(model)
    originals = [value for _, _, _, value in before.params]
    expected = _reference_values(model, before, originals)
    if expected is None:
        return _SKIP
    where = f"on {what}"
    error = _apply_init(answer, model, where)
    if error:
        return error
    problem = _structure_problem(before, model, where)
    if problem:
        return problem
    modules = dict(model.named_modules(remove_duplicate=False))
    drawn = []
    for (name, param, _, _), old, reference in zip(before.params, originals, expected):
        param = param.detach()
        owner = modules.get(name.rpartition(".")[0], model)
        should_change = not torch.equal(reference, old)
        changed = not torch.equal(param, old)
        if changed and not should_change:
            return _touched_hint(where, name, owner)
        if should_change and not changed:
            return _left_hint(where, name, owner, param, reference)
        if not should_change:
            continue
        if torch.all(reference == 0):
            if not torch.all(param == 0):
                return f"✗ {where}: {name} should be zero: the biases should be zero (nn.init.zeros_)"
            continue
        problem = _draw_problem(where, name, param)
        if problem:
            return problem
        drawn.append((name, param, reference))
    return _identical_problem(where, drawn)


def _follows_the_global_seed(answer):
    """None if the draws follow torch.manual_seed (same seed, same weights; another seed, others)."""

    def draw(seed):
        _seed(seed)
        layer = nn.Linear(32, 32)
        _seed(seed + 100)
        _, line = _call(_applying(answer, []), layer, allow={"rng"})
        if line:
            raise Wrong(f"✗ on nn.Linear(32, 32): {line.removeprefix('✗ ')}")
        return layer.weight.detach().clone()

    return seed_verdict(draw, "init_weights")


@checker
def check_init_weights(answer):
    """Runs answer and the reference through Module.apply on small models and the zoo (torch 2.6 to 2.15)."""
    for what, build, dtype in _init_weights_family():
        problem = _init_weights_problem(answer, what, build, dtype)
        if problem == _SKIP:
            continue
        if problem:
            return problem
    problem = _follows_the_global_seed(answer)
    if problem:
        return problem
    return (
        "✓ correct: every nn.Linear of small models and the zoo's architectures (subclasses, bias=False, frozen, "
        "tied, inside Transformer layers) gets std-0.02 weights cut at ±0.04 and zero biases in float32, float64 "
        "and bfloat16; nothing else changes"
    )


# --- conv_fan_in -----------------------------------------------------------------------------------


def _reference_conv_fan_in(conv: nn.Module) -> int:
    """The number of inputs each output value of conv is a weighted sum of."""
    return conv.in_channels // conv.groups * math.prod(conv.kernel_size)


_CONVS = (nn.Conv1d, nn.Conv2d, nn.Conv3d)


def _conv_family():
    """(description, layer): every dimension, groups, non-square kernels, stride, padding, dilation; the
    zoo's convolutions (in eval mode: spectral_norm's power iteration runs only in training); some on meta,
    in float64 and bfloat16."""
    _seed(0)
    layers = [
        ("Conv2d(3, 16, 3)", nn.Conv2d(3, 16, 3)),
        ("Conv2d(3, 8, 3, dilation=2)", nn.Conv2d(3, 8, 3, dilation=2)),
        ("Conv2d(8, 32, (3, 5), padding=2)", nn.Conv2d(8, 32, (3, 5), padding=2)),
        (
            "Conv2d(16, 32, 3, groups=4, stride=2)",
            nn.Conv2d(16, 32, 3, groups=4, stride=2, bias=False),
        ),
        (
            "Conv2d(32, 32, 3, groups=32, padding='same')",
            nn.Conv2d(32, 32, 3, groups=32, padding="same", padding_mode="reflect"),
        ),
        (
            "Conv2d(12, 6, (1, 7), groups=3, dilation=(1, 3))",
            nn.Conv2d(12, 6, (1, 7), groups=3, dilation=(1, 3), padding=(0, 9)),
        ),
        ("Conv1d(4, 6, 7, dilation=2)", nn.Conv1d(4, 6, 7, padding=3, dilation=2)),
        ("Conv3d(2, 4, (1, 2, 3))", nn.Conv3d(2, 4, (1, 2, 3))),
        (
            "Conv3d(6, 6, 3, groups=2, dilation=2)",
            nn.Conv3d(6, 6, 3, groups=2, padding=1, dilation=2),
        ),
        ("a zero-initialized Conv2d(4, 4, 3)", _zeroed(nn.Conv2d(4, 4, 3))),
        ("Conv2d(8, 4, 1) in float64", nn.Conv2d(8, 4, 1, dtype=torch.float64)),
        (
            "Conv1d(6, 6, 5, groups=3) in bfloat16",
            nn.Conv1d(6, 6, 5, groups=3, dtype=torch.bfloat16),
        ),
        (
            "Conv2d(6, 12, (2, 4), groups=2) on meta",
            nn.Conv2d(6, 12, (2, 4), groups=2, device="meta"),
        ),
        ("Conv3d(3, 6, (3, 1, 2)) on meta", nn.Conv3d(3, 6, (3, 1, 2), device="meta")),
    ]
    seen = {_signature(conv) for _, conv in layers}
    for name in _ZOO_CONVS:
        if name not in zoo.MODELS:
            continue
        model = _zoo_build(name).eval()
        for path, conv in model.named_modules():
            if isinstance(conv, _CONVS) and _signature(conv) not in seen:
                seen.add(_signature(conv))
                layers.append((f"the zoo's `{name}`.{path} ({_describe(conv)})", conv))
    return layers


# The zoo's models that hold convolutions (and what they bring): stride-2 and 1x1 projections, depthwise
# and dilated separable convs, Conv1d under weight_norm (both kinds), spectral_norm, patch embeddings, a
# Conv2d subclass with extra state, GroupNorm U-Net blocks, a LazyConv2d after its dry run.
_ZOO_CONVS = (
    "resnet-bottleneck",
    "fpn",
    "darts",
    "weight-norm",
    "weight-norm-hook",
    "spectral-norm",
    "swin",
    "vit",
    "extra-state",
    "unet",
    "cyclegan",
    "lazy-cnn-dry",
)


def _zeroed(conv):
    nn.init.zeros_(conv.weight)
    return conv


def _signature(conv):
    return (
        type(conv),
        conv.in_channels,
        conv.out_channels,
        conv.kernel_size,
        conv.groups,
        conv.dilation,
        conv.padding,
        conv.weight.device.type,
        conv.weight.dtype,
    )


def _describe(conv):
    text = f"{type(conv).__name__}({conv.in_channels}, {conv.out_channels}, {tuple(conv.kernel_size)}"
    if conv.groups > 1:
        text += f", groups={conv.groups}"
    if any(d > 1 for d in conv.dilation):
        text += f", dilation={tuple(conv.dilation)}"
    return text + ")"


def _conv_fan_in_hint(conv, got):
    """A name for a recognised mistake, from the number the reader's answer returned."""
    kernel = conv.kernel_size
    window = math.prod(kernel)
    per_group = conv.in_channels // conv.groups
    dilated = math.prod(d * (k - 1) + 1 for k, d in zip(kernel, conv.dilation))
    padding = conv.padding if isinstance(conv.padding, tuple) else (0,) * len(kernel)
    padded = math.prod(k + 2 * p for k, p in zip(kernel, padding))
    if conv.groups > 1 and got == conv.in_channels * window:
        return "each filter sees only in_channels / groups channels; divide by groups"
    if conv.groups > 1 and got == conv.in_channels * conv.groups * window:
        return "groups splits the input channels among the filters; divide by groups, do not multiply"
    if got in (per_group, conv.in_channels):
        return "the kernel's window counts too: multiply by the product of kernel_size"
    if got == conv.weight.numel():
        return "that counts every filter's weights; the fan-in is the size of one filter"
    if got in (conv.out_channels * window, conv.out_channels // conv.groups * window):
        return "that is the fan-out (out_channels times the window); count input channels"
    if dilated != window and got == per_group * dilated:
        return "dilation spreads the same weights over a wider span; the fan-in counts weights"
    if padded != window and got == per_group * padded:
        return "padding changes the input, not the kernel; leave it out"
    if got == per_group * window + 1:
        return "the bias is added, not weighted; leave it out of the fan-in"
    if got == per_group * kernel[0] ** len(kernel):
        return "the kernel need not be square: multiply all entries of kernel_size"
    return "the fan-in is (in_channels / groups) times the product of kernel_size"


@checker
def check_conv_fan_in(answer):
    """Compares answer(conv) with the reference on convolutions of every kind, the zoo's included (torch 2.6 to 2.15)."""
    family = _conv_family()
    for what, conv in family:
        expected = _reference_conv_fan_in(conv)
        before = ModelState(conv)
        got, line = _call(answer, conv)
        if line:
            if line.startswith("✗ not solved yet"):
                return line
            if not isinstance(conv, nn.Conv2d) and "raised" in line:
                return f"✗ on {what} {line.removeprefix('✗ ')}; kernel_size has one entry per spatial dimension"
            return f"✗ on {what}: {line.removeprefix('✗ ')}"
        changed = before.difference(ModelState(conv))
        if changed:
            return f"✗ on {what} it {changed}; only read the layer"
        if isinstance(got, (bool, torch.Tensor)) or not isinstance(got, numbers.Integral):
            return f"✗ for {what} you returned {got!r} ({type(got).__name__}); return an int (use // to divide)"
        if got != expected:
            hint = _conv_fan_in_hint(conv, got)
            return f"✗ for {what} you returned {got}, expected {expected}: {hint}"
    return (
        "✓ correct: fan-in right for Conv1d/2d/3d layers, the zoo's included, with groups, non-square kernels, "
        "stride, padding and dilation, in float32, float64, bfloat16 and on meta"
    )


# --- reseed_linear_ --------------------------------------------------------------------------------


def _reference_reseed_linear_(layer: nn.Linear, seed: int) -> None:
    """Redraw layer's default initialization in place from its own seed."""
    generator = torch.Generator().manual_seed(seed)
    bound = 1 / math.sqrt(layer.in_features)
    nn.init.kaiming_uniform_(layer.weight, a=math.sqrt(5), generator=generator)
    if layer.bias is not None:
        nn.init.uniform_(layer.bias, -bound, bound, generator=generator)


def _reseed_family():
    """(description, builder): wide and narrow layers, bias=False, a subclass, a frozen layer, three
    dtypes, and nn.Linear layers of the zoo's models (a tied head, attention's out_proj subclass)."""

    def frozen():
        return nn.Linear(48, 24).requires_grad_(False)

    family = [
        ("nn.Linear(256, 128)", lambda: nn.Linear(256, 128)),
        ("nn.Linear(64, 4096)", lambda: nn.Linear(64, 4096)),
        ("nn.Linear(100, 30, bias=False)", lambda: nn.Linear(100, 30, bias=False)),
        ("a subclass of nn.Linear(32, 16)", lambda: _SubLinear(32, 16)),
        ("a frozen nn.Linear(48, 24)", frozen),
        (
            "nn.Linear(64, 64, dtype=torch.float64)",
            partial(nn.Linear, 64, 64, dtype=torch.float64),
        ),
        (
            "nn.Linear(100, 128, dtype=torch.bfloat16)",  # 1/sqrt(100) is no bfloat16 value
            partial(nn.Linear, 100, 128, dtype=torch.bfloat16),
        ),
    ]
    for i, (name, pick) in enumerate(_ZOO_LINEARS.items()):
        if name not in zoo.MODELS:
            continue
        model = _zoo_build(name)
        tied = _tied_names(model)
        path = next(
            (
                path
                for path, module in model.named_modules()
                if isinstance(module, nn.Linear) and pick(path, module, tied)
            ),
            None,
        )
        if path is None:
            continue
        dtype = FLOATS[i % 3]
        note = "" if dtype == torch.float32 else f" in {_dtype_name(dtype)}"
        family.append(
            (
                f"the zoo's `{name}`.{path}{note}",
                partial(_zoo_layer, name, path, dtype),
            )
        )
    return family


# A Linear of each of these zoo models, by the trait it brings.
_ZOO_LINEARS = {
    "gpt2": lambda path, m, tied: f"{path}.weight" in tied,  # tied to the embedding
    "llama": lambda path, m, tied: m.bias is None,  # bias=False
    "transformer": lambda path, m, tied: type(m) is not nn.Linear,  # out_proj's subclass
    "frozen-backbone": lambda path, m, tied: True,  # a fresh head on a frozen backbone
    "lazy-cnn-dry": lambda path, m, tied: True,  # a LazyLinear after its dry run
    "bert": lambda path, m, tied: m.bias is not None,
}


def _tied_names(model):
    owners = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        owners.setdefault(id(p), []).append(name)
    return {name for names in owners.values() if len(names) > 1 for name in names}


def _zoo_layer(name, path, dtype):
    layer = _zoo_build(name).get_submodule(path)
    return layer.to(dtype)


class _SeedCalls:
    """Records calls to torch.manual_seed / torch.random.manual_seed while active."""

    def __enter__(self):
        self.calls = 0
        self.saved = torch.manual_seed, torch.random.manual_seed
        original = self.saved[0]

        def counting(seed):
            self.calls += 1
            return original(seed)

        torch.manual_seed = torch.random.manual_seed = counting
        return self

    def __exit__(self, *exc):
        torch.manual_seed, torch.random.manual_seed = self.saved


def _fill_problem(values, bound, what):
    """Is values a fill of U(-bound, bound)? None, or the hint."""
    values = values.float()
    largest = values.abs().max().item()
    if values.numel() >= 64 and values.min() >= 0:
        return f"all of {what} are >= 0: uniform_'s default range is [0, 1); the default is symmetric around 0"
    if largest > bound:
        return f"{what} reach {largest:.4f}, beyond 1/sqrt(in_features) = {bound:.4f}"
    if values.numel() >= 4096 and (
        largest < 0.99 * bound or abs(values.std().item() * math.sqrt(3) / bound - 1) > 0.05
    ):
        return f"{what} should fill U(-1/sqrt(in_features), 1/sqrt(in_features)) evenly"
    return None


def _reseed_problem(answer, what, build, seed):
    """None if answer(layer, seed) behaves as the reference does on build(); else the hint."""
    _seed(2718)
    layer = build()
    dtype = layer.weight.dtype
    before = ModelState(layer)
    old = {name: value for name, _, _, value in before.params}
    initial_seed = torch.initial_seed()
    seen = {}

    def traced(*args):
        try:
            return answer(*args)
        finally:
            seen["initial seed"] = torch.initial_seed()  # before the harness restores the RNG

    traced.__name__ = getattr(answer, "__name__", "reseed_linear_")
    with _SeedCalls() as seeding:
        _, line = _call(traced, layer, seed)
    if seeding.calls:
        return "✗ it called torch.manual_seed, which reseeds every device's generator (MPS, XPU too); fork_rng restores only the CPU and one device type; pass generator="
    if line:
        if line.startswith("✗ not solved yet"):
            return line
        if "torch RNG" in line:
            if seen.get("initial seed", initial_seed) != initial_seed:
                return "✗ it reseeded the global generator (default_generator.manual_seed) and left it so; pass generator= to every draw"
            return "✗ it changed the global random number generator (a draw without generator=); pass generator= to every draw"
        if layer.bias is None and "NoneType" in line:
            return f"✗ on {what} {line.removeprefix('✗ ')}; skip the bias when it is None"
        return f"✗ on {what}: {line.removeprefix('✗ ')}"
    problem = _structure_problem(before, layer, f"on {what}")
    if problem:
        return problem
    bound = _bound(1 / math.sqrt(layer.in_features), dtype)
    weight = layer.weight.detach()
    if torch.equal(weight, old["weight"]):
        return f"✗ on {what}: the weight is unchanged"
    wide = math.sqrt(6 / layer.in_features)
    if 0.99 * wide < weight.float().abs().max() <= _bound(wide, dtype) and weight.numel() >= 4096:
        return f"✗ on {what}: weights reach sqrt(6/in_features): kaiming_uniform_'s default a=0 is the ReLU gain; PyTorch's default uses a=math.sqrt(5)"
    problem = _fill_problem(weight, bound, "the weights")
    if problem:
        return f"✗ on {what}: {problem}"
    if layer.bias is not None:
        bias = layer.bias.detach()
        if torch.equal(bias, old["bias"]):
            return f"✗ on {what}: it left the bias as it was; draw it too, from U(-1/sqrt(in_features), 1/sqrt(in_features))"
        if torch.equal(bias, weight.flatten()[: bias.numel()]):
            return f"✗ on {what}: the bias repeats the weight's first values: a second generator with the same seed restarts the stream; draw both from one"
        problem = _fill_problem(bias, bound, "the bias values")
        if problem or (bias.numel() >= 4096 and bias.float().abs().max() < 0.99 * bound):
            return f"✗ on {what}: the bias should be drawn from U(-1/sqrt(in_features), 1/sqrt(in_features)), with the weight's fan-in"
    return None


@checker
def check_reseed_linear_(answer):
    """Compares answer with the reference on small layers and the zoo's, each with its own seed (torch 2.6 to 2.15)."""
    family = _reseed_family()
    for i, (what, build) in enumerate(family):
        problem = _reseed_problem(answer, what, build, seed=7 + 3 * i)
        if problem:
            return problem

    def draw(seed, global_seed, dtype=torch.float32):
        _seed(global_seed)  # a different global state, and different starting weights, each time
        layer = nn.Linear(32, 16, dtype=dtype)
        _, line = _call(answer, layer, seed)
        if line:
            raise Wrong(line)
        return torch.cat([layer.weight.detach().flatten(), layer.bias.detach()])

    for dtype in FLOATS:
        if not torch.equal(draw(7, 1, dtype), draw(7, 2, dtype)):
            return f"✗ the same seed gave different numbers{'' if dtype == torch.float32 else ' in ' + _dtype_name(dtype)}: create the generator from the seed inside the function, and overwrite the old values"
    if torch.equal(draw(7, 1), draw(8, 1)):
        return "✗ seeds 7 and 8 gave the same numbers: seed the generator with the seed argument"
    return (
        "✓ correct: PyTorch's default distribution, drawn in place, the same for the same seed, bias=False "
        "handled, on small and the zoo's layers in float32, float64 and bfloat16, no global generator touched"
    )
