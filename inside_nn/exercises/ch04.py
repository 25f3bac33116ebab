"""Exercise checkers for "Custom layers" (04_custom_layers.ipynb).

Each `check_*` runs a reader's answer beside `_reference_*`, the code the solution shows, through
`inside_nn.exercises.harness`, and prints one line. The layers are built and run in float32, float64 and
bfloat16, on the CPU and on meta (under `device="meta"` and under `with torch.device("meta")`; and
`device="cpu"` under a meta default, where a tensor made without device= would land on meta), on edge
inputs (an empty batch, NaN and inf, extra leading dimensions); `make_positive` also meets layers of the
zoo's models. Constructing or running a layer must leave global state alone; `Tower` must draw from the
global generator exactly what the reference draws, in the same order.
"""

import copy
import warnings

import torch
from torch import nn
from torch.nn.utils import parametrize

from inside_nn import zoo
from inside_nn.exercises.harness import (
    FLOATS,
    ModelState,
    Wrong,
    _plain_default_device,
    built,
    call,
    checker,
)


class _reference_Affine(nn.Module):
    def __init__(self, num_features, bias=True, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.weight = nn.Parameter(torch.empty(num_features, **factory))
        if bias:
            self.bias = nn.Parameter(torch.empty(num_features, **factory))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.ones_(self.weight)
        if self.bias is not None:
            nn.init.zeros_(self.bias)

    def forward(self, X):
        out = X * self.weight
        return out if self.bias is None else out + self.bias


class _reference_Tower(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, X):
        for layer in self.layers:
            X = torch.relu(layer(X))
        return X


def _reference_make_positive(layer):
    parametrize.register_parametrization(layer, "weight", nn.Softplus())
    return layer


# --- calling the answer ----------------------------------------------------------------------------


def _seed(seed):
    """Seed the CPU generator (the harness restores the caller's after the check). torch.manual_seed would
    also queue a seed for every accelerator, at a few milliseconds a call."""
    torch.default_generator.manual_seed(seed)


def _run(answer, *args, what, allow=(), **kwargs):
    """harness.call with warnings silenced; the stub, an error or a leak of global state ends the check."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result, line = call(answer, *args, allow=allow, **kwargs)
    _plain_default_device()
    if line is None:
        return result
    if line.startswith("✗ not solved yet"):
        raise Wrong(line)
    raise Wrong(f"✗ {what}: {line.removeprefix('✗ ')}")


def _describe(tensor):
    return f"{tuple(tensor.shape)} {str(tensor.dtype).removeprefix('torch.')} on {tensor.device.type}"


# (rtol, atol as a share of the values' scale): the same sum in another order (a matmul by hand, einsum,
# addmm, addcmul's one rounding against mul-then-add's two) differs by a few ulps of the largest value.
_TOLERANCE = {
    torch.float32: (1e-5, 1e-5),
    torch.float64: (1e-10, 1e-10),
    torch.bfloat16: (3e-2, 3e-2),
    torch.float16: (3e-3, 3e-3),
}


def _magnitude(tensor):
    if not isinstance(tensor, torch.Tensor) or tensor.device.type == "meta" or not tensor.numel():
        return 0.0
    return tensor.detach().float().nan_to_num(0.0, 0.0, 0.0).abs().max().item()


def _compare_tensors(where, got, want, scale=0.0):
    """The first way tensor `got` differs from `want`, in words, or None (NaN matches NaN, inf inf).
    `scale`: the size of the values the result was computed from (rounding errors scale with it)."""
    if not isinstance(got, torch.Tensor):
        return f"{where} is an object of type {type(got).__name__}, not a tensor"
    if (got.shape, got.dtype, got.device) != (want.shape, want.dtype, want.device):
        return f"{where} is {_describe(got)}; expected {_describe(want)}"
    if want.device.type == "meta":
        return None
    rtol, atol = _TOLERANCE.get(want.dtype, (1e-5, 1e-5))
    scale = max(1.0, scale, _magnitude(want))
    if not torch.isclose(got.detach(), want.detach(), rtol=rtol, atol=atol * scale, equal_nan=True).all():
        return f"{where} holds other values than expected"
    return None


# --- Affine ----------------------------------------------------------------------------------------


def _inputs(shape, dtype, device, edge=None):
    if device == "meta":
        return torch.empty(shape, dtype=dtype, device="meta")
    X = torch.randn(shape, dtype=dtype)
    if edge == "non-finite":
        X.view(-1)[:3] = torch.tensor([float("nan"), float("inf"), float("-inf")])
    return X


class _DefaultDtype:
    """A context in which the default dtype is float64, as after torch.set_default_dtype(torch.float64)."""

    def __enter__(self):
        self.saved = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)

    def __exit__(self, *exc):
        torch.set_default_dtype(self.saved)


_ON_DEFAULT_META = "Affine(4, device='cpu') under `with torch.device('meta')`"
_DEFAULT_DEVICE_HINT = (
    "a tensor made without device= lands on the caller's default device (meta here), not on the device given: "
    "pass device= to every tensor you create, or fill the parameters in place (nn.init.ones_, torch.ones_like)"
)

# (call shown, args, kwargs, context the layer is built in, input shape, what the input holds)
_AFFINE_CASES = [
    ("Affine(5)", (5,), {}, None, (3, 5), None),
    ("Affine(5, bias=False)", (5,), {"bias": False}, None, (3, 5), None),
    ("Affine(5, False)", (5, False), {}, None, (3, 5), None),
    (
        "Affine(3, dtype=torch.float64)",
        (3,),
        {"dtype": torch.float64},
        None,
        (2, 4, 3),
        None,
    ),
    (
        "Affine(1, bias=False, dtype=torch.float64)",
        (1,),
        {"bias": False, "dtype": torch.float64},
        None,
        (6, 1),
        None,
    ),
    (
        "Affine(4, dtype=torch.bfloat16)",
        (4,),
        {"dtype": torch.bfloat16},
        None,
        (3, 4),
        None,
    ),
    ("Affine(6) on an empty batch", (6,), {}, None, (0, 6), None),
    ("Affine(6) on NaN and inf", (6,), {}, None, (3, 6), "non-finite"),
    ("Affine(4, device='meta')", (4,), {"device": "meta"}, None, (2, 4), None),
    (
        "Affine(4, bias=False, device='meta', dtype=torch.float64)",
        (4,),
        {"bias": False, "device": "meta", "dtype": torch.float64},
        None,
        (2, 4),
        None,
    ),
    (
        "Affine(4) under `with torch.device('meta')`",
        (4,),
        {},
        "meta",
        (2, 4),
        None,
    ),
    (
        "Affine(4) after torch.set_default_dtype(torch.float64)",
        (4,),
        {},
        "float64",
        (2, 4),
        None,
    ),
    # The caller's default device is not the device given: a tensor made without device= (in __init__ or in
    # reset_parameters) lands on meta, not on the CPU.
    (
        _ON_DEFAULT_META,
        (4,),
        {"device": "cpu"},
        "meta",
        (2, 4),
        None,
    ),
]


def _built(cls, args, kwargs, context):
    """cls(*args, **kwargs), inside the context the case names."""
    if context == "meta":
        with torch.device("meta"):
            return cls(*args, **kwargs)
    if context == "float64":
        with _DefaultDtype():
            return cls(*args, **kwargs)
    return cls(*args, **kwargs)


def _affine_built(Affine, shown, args, kwargs, context):
    """The answer's layer, built as the case says; a TypeError for device= or dtype= gets its hint."""

    def build(args=args, kwargs=kwargs, context=context):
        return _built(Affine, args, kwargs, context)

    build.__name__ = getattr(Affine, "__name__", "Affine")
    try:
        return _run(build, what=shown)
    except Wrong as wrong:
        if "raised TypeError" in str(wrong) and ("device" in kwargs or "dtype" in kwargs):
            raise Wrong(f"✗ {shown} raised TypeError; take device=None, dtype=None, as nn.Linear does") from None
        if shown == _ON_DEFAULT_META and "raised" in str(wrong):
            raise Wrong(f"{wrong} ({_DEFAULT_DEVICE_HINT})") from None
        raise


def _check_affine_parameters(shown, layer, reference, context):
    """The layer registers the reference's parameters (bias None where there is none), saves the same
    keys, and its parameters match the reference's values, dtype and device, and train."""
    names = dict(layer.named_parameters())
    want_names = dict(reference.named_parameters())
    if list(names) != list(want_names):
        raise Wrong(
            f"✗ {shown} registers {list(names)}; expected {list(want_names)} (nn.Parameter attributes, after super().__init__())"
        )
    if not hasattr(layer, "bias"):
        raise Wrong(
            f"✗ {shown} has no attribute bias: register it as None with self.register_parameter('bias', None), as nn.Linear does"
        )
    if reference.bias is None and layer.bias is not None:
        raise Wrong(
            f"✗ {shown}: self.bias is an object of type {type(layer.bias).__name__}, not None; register None with self.register_parameter('bias', None)"
        )
    if list(layer.state_dict()) != list(reference.state_dict()):
        raise Wrong(f"✗ {shown} saves {list(layer.state_dict())}; expected {list(reference.state_dict())}")
    for name, want in want_names.items():
        problem = _compare_tensors(f"{shown}.{name}", names[name], want)
        if problem:
            hint = ""
            if names[name].dtype != want.dtype or names[name].device != want.device:
                hint = (
                    "; pass device= and dtype= to every tensor you create, and leave None as None (the default device and dtype)"
                    if context
                    else "; pass device= and dtype= to every tensor you create"
                )
                if shown == _ON_DEFAULT_META:
                    hint = f": {_DEFAULT_DEVICE_HINT}"
            raise Wrong(f"✗ {problem}{hint}")
        if not names[name].requires_grad:
            raise Wrong(f"✗ {shown}.{name} does not require grad: it must train")
    return names, want_names


def _check_affine_forward(shown, layer, reference, names, want_names, shape, edge):
    """With the reference's parameters copied in, the forward computes the reference's output without
    touching its input or state, and (off meta) the gradients match."""
    device = want_names["weight"].device.type
    dtype = want_names["weight"].dtype
    _seed(len(shown))
    X = _inputs(shape, dtype, device, edge)
    if device != "meta":
        with torch.no_grad():
            for name, parameter in want_names.items():
                parameter.copy_(torch.randn_like(parameter))
                names[name].copy_(parameter)
    want = reference(X.clone())
    X_before = X.clone()
    before = ModelState(layer)
    out = _run(layer, X, what=f"{shown}'s forward")
    if device != "meta" and not torch.equal(X.nan_to_num(), X_before.nan_to_num()):
        raise Wrong(f"✗ {shown} changed its input in place")
    changed = before.difference(ModelState(layer))
    if changed:
        raise Wrong(f"✗ {shown}'s forward {changed}; a forward only computes")
    scale = max(_magnitude(X), *(_magnitude(p) for p in want_names.values()))
    problem = _compare_tensors(f"{shown}'s output", out, want, scale**2)
    if problem:
        raise Wrong(
            f"✗ {problem} (X * weight + bias, feature by feature; each output entry depends on its own input entry only)"
        )
    if not out.requires_grad:
        raise Wrong(
            f"✗ {shown}'s output does not require grad: .data or .detach() in forward cuts the layer out of autograd"
        )
    if device != "meta":
        G = torch.randn_like(want)
        (out * G).sum().backward()
        (want * G).sum().backward()
        for name, parameter in want_names.items():
            if names[name].grad is None:
                raise Wrong(f"✗ {shown}.{name} got no gradient: .data or .detach() in forward cuts it out of autograd")
            problem = _compare_tensors(
                f"{shown}.{name}.grad",
                names[name].grad,
                parameter.grad,
                scale * _magnitude(G) * max(1, X.numel() // X.shape[-1]),
            )
            if problem:
                raise Wrong(f"✗ {problem}")


def _check_affine_skip_init(Affine):
    """skip_init(Affine, 3) builds on the CPU, and reset_parameters() gives the starting values in place."""
    for bias in (True, False):

        def skipped(bias=bias):
            return torch.nn.utils.skip_init(Affine, 3, bias=bias)

        shown = f"torch.nn.utils.skip_init(Affine, 3, bias={bias})"
        layer = _run(skipped, what=shown)
        if layer.weight.device.type != "cpu":
            raise Wrong(f"✗ {shown} left the weight on meta: pass device= to every tensor you create")
        # skip_init leaves whatever memory held: reset_parameters() must give the starting values.
        if not callable(getattr(layer, "reset_parameters", None)):
            raise Wrong(
                "✗ Affine has no reset_parameters(): after skip_init (or to_empty) its values are whatever "
                "memory held, and nothing can set them again; move the ones and zeros into a "
                "reset_parameters() that __init__ calls"
            )
        with torch.no_grad():
            for parameter in layer.parameters():
                parameter.fill_(float("nan"))
        _run(layer.reset_parameters, what=f"{shown}.reset_parameters()")
        reference = _reference_Affine(3, bias=bias)
        for name, want in reference.named_parameters():
            problem = _compare_tensors(
                f"after {shown} and reset_parameters(), {name}",
                layer.get_parameter(name),
                want,
            )
            if problem:
                raise Wrong(f"✗ {problem}: reset_parameters() must set the starting values in place")


@checker
def check_affine(Affine):
    """Affine against the reference: parameters, state_dict, device/dtype (given and default), skip_init, forward and gradients on edge inputs."""
    for shown, args, kwargs, context, shape, edge in _AFFINE_CASES:
        layer = _affine_built(Affine, shown, args, kwargs, context)
        reference = _built(_reference_Affine, args, kwargs, context)
        names, want_names = _check_affine_parameters(shown, layer, reference, context)
        _check_affine_forward(shown, layer, reference, names, want_names, shape, edge)
    _check_affine_skip_init(Affine)
    return (
        "✓ correct: matches the reference with and without bias, in float32, float64 and bfloat16, on meta (given and "
        "by default) and through skip_init + reset_parameters(), on empty, NaN and inf inputs, values and gradients included"
    )


# --- Tower -----------------------------------------------------------------------------------------

_TOWER_CASES = [(4, 3), (2, 1), (5, 4), (3, 2)]


def _tower_inputs(width, dtype):
    """(what, input): a batch, a batch of sequences, an empty batch, NaN and inf."""
    X = torch.randn(3, width, dtype=dtype)
    odd = torch.randn(2, width, dtype=dtype)
    odd[0, 0], odd[1, -1] = float("nan"), float("inf")
    return [
        ("a batch", X),
        ("a batch of sequences", torch.randn(2, 3, width, dtype=dtype)),
        ("an empty batch", torch.randn(0, width, dtype=dtype)),
        ("NaN and inf", odd),
    ]


def _check_tower_layers_attribute(shown, tower, depth):
    """The statement names the attribute: `self.layers`, a registered container of the depth layers."""
    layers = tower._modules.get("layers")
    if layers is None:
        named = [
            name for name, child in tower.named_children() if any(isinstance(m, nn.Linear) for m in child.modules())
        ]
        kept = ", ".join(f"self.{n}" for n in named[:3]) + (", ..." if len(named) > 3 else "")
        raise Wrong(
            f"✗ {shown} keeps its layers in {kept or 'no registered child'}; the statement names the attribute: keep "
            "them in self.layers (an nn.ModuleList), so that state_dict() names them layers.0.weight, ..."
        )
    if sum(isinstance(m, nn.Linear) for _, m in layers.named_modules(remove_duplicate=False)) != depth:
        raise Wrong(f"✗ {shown}: self.layers does not hold the {depth} nn.Linear layers; keep every layer in it")


@checker
def check_tower(Tower):
    """Tower(width, depth) against the reference: registered, independent Linear layers, init and RNG stream, forward on edge inputs, .to()."""
    for width, depth in _TOWER_CASES:
        shown = f"Tower({width}, {depth})"
        streams = []

        def build(width=width, depth=depth, streams=streams):
            tower = Tower(width, depth)
            streams.append(torch.get_rng_state())  # before the harness restores the caller's
            return tower

        build.__name__ = getattr(Tower, "__name__", "Tower")
        _seed(1000 + width * depth)  # not 0: an answer that seeds inside must show it
        tower = _run(build, what=shown, allow={"rng"})
        after_answer = streams[0]
        _seed(1000 + width * depth)
        reference = _reference_Tower(width, depth)
        after_reference = torch.get_rng_state()
        params = list(tower.parameters())
        if not params:
            raise Wrong(
                f"✗ {shown}: parameters() finds none of the layers; nn.Module never looks inside a plain Python list, use nn.ModuleList"
            )
        layers = getattr(tower, "layers", None)
        if isinstance(layers, dict):
            layers = list(layers.values())
        registered = {id(m) for m in tower.modules()}
        if isinstance(layers, (list, tuple)) and any(
            isinstance(m, nn.Module) and id(m) not in registered for m in layers
        ):
            raise Wrong(
                f"✗ {shown}: self.layers is a plain Python {type(tower.layers).__name__}, so parameters() misses layers; nn.Module never looks inside it, use nn.ModuleList"
            )
        _check_tower_layers_attribute(shown, tower, depth)
        linears = [m for m in tower.modules() if isinstance(m, nn.Linear)]
        uses = [m for _, m in tower.named_modules(remove_duplicate=False) if isinstance(m, nn.Linear)]
        if depth > 1 and len(uses) == depth and len({id(m) for m in uses}) < depth:
            raise Wrong(
                f"✗ {shown}: your layers share one weight; [nn.Linear(...)] * depth repeats one module, build a new nn.Linear for each"
            )
        shapes = [tuple(p.shape) for p in params]
        want_shapes = [tuple(p.shape) for p in reference.parameters()]
        if len(linears) != depth or shapes != want_shapes:
            raise Wrong(
                f"✗ {shown}: {len(linears)} nn.Linear layers with parameter shapes {shapes}; expected {depth} nn.Linear({width}, {width}) layers with bias"
            )
        if len(tower.state_dict()) != 2 * depth:
            raise Wrong(f"✗ {shown}: state_dict() has {len(tower.state_dict())} entries; expected {2 * depth}")
        if not all(torch.equal(p, q) for p, q in zip(params, reference.parameters())):
            raise Wrong(
                f"✗ {shown}: the initial values differ from {depth} nn.Linear({width}, {width}) built in order; keep nn.Linear's own init"
            )
        if not torch.equal(after_answer, after_reference):
            raise Wrong(
                f"✗ {shown}: building it drew other random numbers than {depth} nn.Linear({width}, {width}) do; build the layers once each, nothing more"
            )
        for dtype in FLOATS:
            if dtype != torch.float32:
                tower.to(dtype)
                reference.to(dtype)
                if not all(p.dtype == dtype for p in params + list(tower.parameters())):
                    raise Wrong(f"✗ {shown}: .to({dtype}) did not convert every layer")
            _seed(width * depth)
            for what, X in _tower_inputs(width, dtype):
                X_before = X.clone()
                before = ModelState(tower)
                out = _run(tower, X, what=f"{shown}'s forward on {what}")
                if not torch.equal(X.nan_to_num(), X_before.nan_to_num()):
                    raise Wrong(f"✗ {shown} changed its input in place")
                changed = before.difference(ModelState(tower))
                if changed:
                    raise Wrong(f"✗ {shown}'s forward {changed}; a forward only computes")
                problem = _compare_tensors(f"{shown}'s output on {what}", out, reference(X), _magnitude(X))
                where = f"on {what}" + ("" if dtype == torch.float32 else f" in {dtype}")
                if problem and "holds other values" in problem:
                    raise Wrong(
                        f"✗ {shown}: the output differs {where}; apply the layers in order, each followed by a ReLU"
                    )
                if problem:
                    raise Wrong(f"✗ {problem} ({where})")
    return (
        f"✓ correct: matches the reference for {len(_TOWER_CASES)} widths and depths: independent registered layers, "
        "init and random stream, forward on edge inputs, and .to() in float32, float64 and bfloat16"
    )


# --- make_positive ---------------------------------------------------------------------------------


class _WeightOnly(nn.Module):
    """A custom layer whose only parameter is `weight`."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(3, 2))

    def forward(self, X):
        return X @ self.weight.mT


def _positive_cases():
    """(what, build, frozen): layers whose weights make the usual mistakes show; layers of the zoo's models."""

    def spread():
        layer = nn.Linear(6, 4)
        nn.init.uniform_(layer.weight, -3.0, 3.0)
        return layer

    def zeros():
        layer = nn.Linear(4, 3, bias=False)
        nn.init.zeros_(layer.weight)
        return layer

    def frozen():
        return nn.Linear(5, 3).requires_grad_(False)

    def far():
        layer = nn.Linear(6, 4)
        nn.init.uniform_(layer.weight, -30.0, 30.0)
        return layer

    cases = [
        ("nn.Linear(6, 4) with weights in [-3, 3]", spread, False),
        (_FAR, far, False),
        ("a zero-initialized nn.Linear(4, 3, bias=False)", zeros, False),
        ("nn.Conv2d(2, 3, 3)", lambda: nn.Conv2d(2, 3, 3), False),
        ("a float64 nn.Linear(3, 2)", lambda: nn.Linear(3, 2).double(), False),
        ("a bfloat16 nn.Linear(8, 4) with weights in [-2, 2]", _spread_bf16, False),
        ("a custom layer whose weight is all zeros", _WeightOnly, False),
        ("a frozen nn.Linear(5, 3)", frozen, True),
    ]
    for name, kind in _ZOO_LAYERS:
        if name in zoo.MODELS:
            cases.append((f"the zoo's `{name}` {kind}", _zoo_layer(name, kind), False))
    return cases


# Weights far from 0, as a layer trained for long (or a scale near 30) has them: a map must stay finite, > 0
# and with a nonzero, finite gradient there (sigmoid's is 0 in float32, 1 + tanh is 0); no SGD steps, whose
# updates by a gradient as large as exp(30) would leave any map's range.
_FAR = "nn.Linear(6, 4) with weights in [-30, 30]"


def _spread_bf16():
    layer = nn.Linear(8, 4)
    nn.init.uniform_(layer.weight, -2.0, 2.0)
    return layer.to(torch.bfloat16)


# A weight-bearing layer of each of these zoo models: GPT-2's Conv1D (a custom layer, weight stored
# (in, out)), a ResNet convolution built with bias=False and kaiming init, LLaMA's bias-free projection.
_ZOO_LAYERS = (("gpt2", "Conv1D"), ("resnet", "Conv2d"), ("llama", "Linear"))


def _zoo_layer(name, kind):
    def build():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = built(zoo.MODELS[name].build)
        layer = next(m for m in model.modules() if type(m).__name__ == kind)
        return copy.deepcopy(layer)

    return build


def _check_positive_registered(what, layer, reference, weight_before, frozen, before):
    """The weight is parametrized on the layer's own Parameter, with nothing else changed."""
    if not parametrize.is_parametrized(layer, "weight"):
        raise Wrong(
            f"✗ on {what} layer.weight is not parametrized: a one-time change lasts only until the next optimizer step; use parametrize.register_parametrization"
        )
    names = [name for name, _ in layer.named_parameters()]
    want = [name for name, _ in reference.named_parameters()]
    if names != want:
        raise Wrong(f"✗ on {what} named_parameters() has {names}; expected {want}")
    original = layer.parametrizations.weight.original
    if original is not weight_before:
        raise Wrong(
            f"✗ on {what} parametrizations.weight.original is a new Parameter: register the parametrization on the layer's own weight (an optimizer built before holds that object)"
        )
    if original.requires_grad != (not frozen):
        raise Wrong(
            f"✗ on {what} the stored weight has requires_grad={original.requires_grad}; make_positive changes nothing else"
        )
    rest = copy.copy(before)  # everything but the weight, as before
    now = ModelState(layer)
    rest.params = [entry for entry in before.params if entry[0] != "weight"]
    now.params = [entry for entry in now.params if not entry[0].startswith("parametrizations.")]
    rest.grads = [entry for entry in before.grads if entry[0] != "weight"]
    for attribute in (
        "grads",
        "training",
        "hooks",
        "attributes",
    ):  # the parametrization's own modules aside
        setattr(
            now,
            attribute,
            [entry for entry in getattr(now, attribute) if not entry[0].startswith("parametrizations")],
        )
    changed = rest.difference(now)
    if changed:
        raise Wrong(f"✗ on {what} make_positive {changed}; it changes nothing but the weight")


_FAR_HINT = ", or a map that saturates: sigmoid(W) is flat, in float32, at large |W|"
_FAR_ZERO = (
    ": at large |W| the map rounds to 0 in float32 (log(1 + exp(W)), 1 + tanh(W) and elu(W) + 1 do below -17); "
    "F.softplus, which computes log1p(exp(W)), stays > 0"
)


def _check_positive_trains(what, layer, weight):
    """Each stored entry maps to its own weight, every entry gets a gradient, and the weights stay
    positive however SGD pushes them."""
    original = layer.parametrizations.weight.original
    with torch.no_grad():  # bump the smallest stored entry: do the others move?
        kept, bump = original.clone(), torch.zeros_like(original)
        k = int(kept.argmin())
        bump.view(-1)[k] = 0.5
        original.add_(bump)
        changed = (layer.weight != weight).flatten()
        original.copy_(kept)
    changed[k] = False
    moved = int(changed.sum())
    if moved:
        raise Wrong(
            f"✗ on {what} changing one entry of parametrizations.weight.original changed {moved} other weights: map each entry on its own (softplus, exp), not with W.min(), softmax or a norm"
        )
    probe = torch.randn(weight.shape, generator=torch.Generator().manual_seed(0))
    (layer.weight * probe.to(weight.dtype)).sum().backward()
    stuck = 0 if original.grad is None else int((original.grad == 0).sum())
    if original.grad is None or stuck:
        stuck = stuck or original.numel()
        raise Wrong(
            f"✗ on {what} {stuck} of {original.numel()} entries get zero gradient, so they can never move (clamp/relu below its bound, abs or a square at 0{_FAR_HINT if what == _FAR else ''}); use a smooth map such as softplus or exp"
        )
    broken = int((~torch.isfinite(original.grad)).sum())
    if broken:
        raise Wrong(
            f"✗ on {what} {broken} of {original.numel()} entries get a NaN or inf gradient (log(1 + exp(W)) overflows "
            "for large W): use F.softplus, which switches to W itself there"
        )
    if what == _FAR:
        return
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    for _ in range(10):
        optimizer.zero_grad()
        layer.weight.sum().backward()  # pushes every weight down
        optimizer.step()
    if not (layer.weight > 0).all():
        raise Wrong(
            f"✗ on {what} after 10 SGD steps that push the weights down, some are not > 0: the map must be positive for every input"
        )


@checker
def check_make_positive(make_positive):
    """make_positive(layer) against the reference on several layers: parametrized, positive, elementwise, every entry trainable, nothing else changed."""
    for what, build, frozen in _positive_cases():
        _seed(0)
        layer = build()
        _seed(0)
        reference = _reference_make_positive(build())
        before = ModelState(layer)
        weight_before = layer.weight
        returned = _run(make_positive, layer, what=f"on {what}")
        if returned is not layer:
            raise Wrong(
                f"✗ make_positive should return the layer it was given; on {what} it returned {'None' if returned is None else f'an object of type {type(returned).__name__}'}"
            )
        _check_positive_registered(what, layer, reference, weight_before, frozen, before)
        weight = layer.weight
        if (weight.shape, weight.dtype) != (
            reference.weight.shape,
            reference.weight.dtype,
        ):
            raise Wrong(f"✗ on {what} layer.weight is {_describe(weight)}; expected {_describe(reference.weight)}")
        if not (weight > 0).all():
            raise Wrong(
                f"✗ on {what} {int((~(weight > 0)).sum())} of {weight.numel()} weights are not > 0 right after make_positive"
                + (_FAR_ZERO if what == _FAR else "")
            )
        if not torch.isfinite(weight).all():
            raise Wrong(
                f"✗ on {what} {int((~torch.isfinite(weight)).sum())} of {weight.numel()} weights are inf or NaN right "
                "after make_positive: the map overflows for large stored entries; F.softplus stays finite"
            )
        if frozen:
            continue
        if not weight.requires_grad:
            raise Wrong(
                f"✗ on {what} no gradient reaches parametrizations.weight.original: compute from the input, without .detach() or .data"
            )
        _check_positive_trains(what, layer, weight)
    return (
        "✓ correct: on Linear, Conv2d, float64, bfloat16, zero-initialized, frozen, custom and the zoo's layers the weight "
        "is parametrized, > 0, elementwise, and every entry trains; nothing else changes"
    )
