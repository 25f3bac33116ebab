"""Exercise checkers for chapter 3, "Lazy modules" (03_lazy_modules.ipynb) and "Building on the meta
device" (03_meta_device.ipynb).

Each `check_*` runs a reader's answer beside `_reference_*`, the code the solution shows, on the small models
of `ch03_models` and on real architectures drawn from `inside_nn.zoo` (in float32, float64 and bfloat16), through
`inside_nn.exercises.harness`, and prints one line. The harness checks global state around every call of
the answer: `init_small` must draw from the global generator (it is checked to follow `torch.manual_seed`),
`count_parameters` and `build_on_meta` must draw nothing. A zoo model joins a family only where the
reference applies to it (a model whose forward or constructor reads values cannot run on meta; one whose
computed buffers no `init_buffers` recomputes cannot be rebuilt from a checkpoint), so the families follow
the zoo as it grows. The meta exercises also run one member where the caller has set the default device to meta
(harness.caller_default_device): the answer must put that setting back and pass the device it is given, not take
the default; the frozen backbone `param_groups` meets holds pretrained statistics, which a reset would wipe.
"""

import copy
from functools import partial, wraps

import torch
from torch import nn

from inside_nn import pick_device
from inside_nn.exercises.ch03_models import (
    MAKE_MODEL,
    _buffer_calls,
    _build_family,
    _count_family,
    _groups_family,
    _init_family,
    _init_from_meta_family,
    _left_on_meta_family,
    _quietly,
    _recording,
    _seed,
    _unmaterialized_family,
    caller_default,
)
from inside_nn.exercises.harness import (
    ModelState,
    Wrong,
    _plain_default_device,
    attempt,
    caller_default_device,
    checker,
    seed_verdict,
)
from inside_nn.recipes import meta_leftovers

device = pick_device()


def _reference_init_small(module):
    if isinstance(module, nn.Linear):  # LazyLinear is a subclass
        nn.init.normal_(module.weight, mean=0.0, std=0.01)
        if module.bias is not None:
            nn.init.zeros_(module.bias)


def _reference_count_parameters(make_model, *example_inputs):
    with torch.device("meta"):
        probe = make_model()
        probe(*[x.to("meta") for x in example_inputs])
    return sum(p.numel() for p in probe.parameters())


def _reference_build_on_meta(make_model, state_dict):
    with torch.device("meta"):
        model = make_model()
    model.load_state_dict(state_dict, assign=True)
    device = next(iter(state_dict.values())).device
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    if meta_leftovers(model):
        raise RuntimeError(f"still on meta: {meta_leftovers(model)}")
    return model


# --- calling the answer ----------------------------------------------------------------------------


class _TorchNotImplemented(RuntimeError):
    """torch's own NotImplementedError (copying out of meta, an op without a meta kernel): an error of the
    answer, not the stub's bare `raise NotImplementedError`."""


def _call(answer, *args, allow=()):
    """The answer through `harness.attempt` (warnings silenced, a deadline for an endless loop):
    (result, None, None), or (what the answer returned if it returned, the "✗ ..." line, the exception
    the answer raised if it raised one). A leak of global state still hands back the result, so that a
    check can name a more precise mistake first."""
    raised, returned = [], []

    def traced(*inner):
        try:
            returned.append(answer(*inner))
            return returned[-1]
        except NotImplementedError as error:
            if not str(error):
                raise  # the stub
            raised.append(error)
            raise _TorchNotImplemented(str(error)) from error

    traced.__name__ = getattr(answer, "__name__", "your function")
    try:
        result, error = attempt(traced, *args, allow=allow)
    except Wrong as wrong:
        _plain_default_device()
        return (returned[0] if returned else None), str(wrong), None
    _plain_default_device()
    if error is None:
        return result, None, None
    error = raised[0] if isinstance(error, _TorchNotImplemented) else error
    message = (str(error).strip().splitlines() or ["(no message)"])[0]
    return None, f"✗ it raised {type(error).__name__}: {message}", error


def _stub_or_error(line, label):
    """The line that ends a check on an answer that raised: the stub line as it is, else "on label"."""
    if line.startswith("✗ not solved yet"):
        return line
    return f"✗ on {label}: {line.removeprefix('✗ ')}"


def _default_device_leak(line, label, name):
    """The line for an answer that did not put back the default device the caller had set (meta, for a member
    of caller_default): set_default_device("cpu") afterwards assumes the CPU was the caller's; else None."""
    if not caller_default(label) or "global state" not in line or "default device" not in line:
        return None
    return (
        f"✗ on {label}: {name} did not put back the caller's default device ({caller_default(label)} here): "
        "torch.set_default_device('cpu') afterwards assumes it was the CPU; build under `with torch.device('meta'):`, "
        "which restores whatever was set (or save torch.get_default_device() first and set it back)."
    )


def _dtype_note(dtype):
    return "" if dtype == torch.float32 else f" in {str(dtype).removeprefix('torch.')}"


def _cast(inputs, dtype):
    """Floating inputs in dtype (float32 leaves them as the family made them: a half model's are half)."""
    if dtype == torch.float32:
        return tuple(inputs)
    return tuple(x.to(dtype) if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs)


# --- the small models ------------------------------------------------------------------------------


# --- init_small ------------------------------------------------------------------------------------


def _owner(net, name):
    return net.get_submodule(name.rpartition(".")[0]) if "." in name else net


def _applying(answer):
    def apply(model):
        model.apply(answer)

    apply.__name__ = getattr(answer, "__name__", "init_small")
    return apply


_SKIP = "skip"  # the reference does not apply to this model


def _kind(value, old):
    """What an initializer did to a parameter: "kept" its value, filled it with "zeros", or "drawn" it."""
    if torch.equal(value, old):
        return "kept"
    return "zeros" if torch.count_nonzero(value) == 0 else "drawn"


def _reference_kinds(net, before, originals):
    """{name: kind} as net.apply(_reference_init_small) leaves each parameter, with the model then put
    back as built (the same objects); None where the reference cannot initialize the model."""
    try:
        net.apply(_reference_init_small)
    except Exception:  # noqa: BLE001 (a zoo model the reference cannot initialize is no family)
        return None
    expected = {}
    for (name, p, _, _), old in zip(before.params, originals):
        expected[name] = _kind(p.detach(), old)
    with torch.no_grad():  # back to the model as built, the same objects
        for (_, p, _, _), value in zip(before.params, originals):
            p.copy_(value)
    return expected


def _in_place_problem(label, before, now):
    """The line for an answer that replaced a parameter, changed its dtype, device or requires_grad, or
    wrote anything but parameter values; else None."""
    for (name, old, flag, value), (_, new, new_flag, _) in zip(before.params, now.params):
        if new is not old:
            return f"✗ on {label}: `{name}` is a new Parameter; optimizers and ties keep the old one. Initialize in place with nn.init."
        if (new.dtype, new.device, new_flag) != (value.dtype, value.device, flag):
            return (
                f"✗ on {label}: `{name}` changed its dtype, device or requires_grad; fill the existing tensor in place."
            )
    rest = copy.copy(before)  # parameter values as they are now, all else as before
    rest.params, rest.grads = now.params, now.grads
    changed = rest.difference(now)
    if changed:
        return f"✗ on {label}: init_small {changed}; an initializer writes parameter values only."
    return None


def _kept_hint(label, name, p, owner):
    """The line for a parameter the reference draws and the answer left as it was."""
    if not p.requires_grad:
        return f"✗ on {label}: `{name}` kept its value: a frozen layer is initialized too (requires_grad says nothing about init)."
    if "restored" in label:
        return f"✗ on {label}: `{name}` kept its value: the layer is a LazyLinear until its first forward; `type(m) == nn.Linear` misses it. Use isinstance."
    if owner in ("Linear", "LazyLinear") and "lazy" not in label:
        return f"✗ on {label}: `{name}` kept its value: the layers are nn.Linear, and `type(m) == nn.LazyLinear` matches none. Use isinstance."
    if owner in ("Linear", "LazyLinear"):
        return f"✗ on {label}: `{name}` kept its value: after the dry run no layer is a LazyLinear. Use isinstance(m, nn.Linear)."
    return f"✗ on {label}: `{name}` (an nn.Linear subclass) kept its value: a `type(m) ==` test misses subclasses. Use isinstance."


def _kinds_problem(net, label, before, expected):
    """(the line for the first parameter the answer left otherwise than the reference, or None; the
    weights both drew, one entry per Parameter)."""
    drawn = []
    for (name, p, _, old), want in zip(before.params, expected.values()):
        value = p.detach()
        have = _kind(value, old)
        owner = type(_owner(net, name)).__name__
        article = "an" if owner[0] in "AEIOU" else "a"
        if have == "drawn" and want == "drawn" and all(p is not q for _, q, _ in drawn):
            drawn.append((name, p, value))
        if have == want:
            continue
        if want == "kept":
            return (
                f"✗ on {label}: your answer changed `{name}` of {article} {owner}; touch only linear layers (isinstance(module, nn.Linear)).",
                drawn,
            )
        if want == "drawn" and have == "kept":
            return _kept_hint(label, name, p, owner), drawn
        if want == "zeros":
            return (
                f"✗ on {label}: `{name}` should be zeros; use nn.init.zeros_(module.bias).",
                drawn,
            )
        return f"✗ on {label}: `{name}` is {have}; expected {want}.", drawn
    return None, drawn


def _drawn_problem(label, drawn):
    """The line for drawn weights that are not N(0, 0.01²), or that repeat from layer to layer; else None."""
    if drawn:
        values = torch.cat([value.float().flatten() for _, _, value in drawn])
        std, mean = values.std().item(), values.mean().item()
        if 0.8 < std < 1.2:
            return f"✗ on {label}: the weights have std {std:.2f}, not 0.01: nn.init.normal_(w, 0.01) sets the *mean*; pass std=0.01."
        if values.numel() >= 1024 and not (0.009 < std < 0.011 and abs(mean) < 0.002):
            return f"✗ on {label}: the weights should be N(0, 0.01²) but have mean {mean:.3f}, std {std:.4f}."
        if values.numel() >= 1024 and values.abs().max() > 0.1:
            return f"✗ on {label}: a weight reaches {values.abs().max().item():.3f}, ten standard deviations out: draw from N(0, 0.01²)."
    for i, (name, _, value) in enumerate(drawn):
        for other, _, same in drawn[i + 1 :]:
            if value.shape == same.shape and torch.equal(value, same):
                return f"✗ on {label}: `{name}` and `{other}` came out identical: a seed set inside init_small restarts every layer; draw from one stream."
    return None


def _init_problem(init_small, label, make, dtype, seed):
    """None if net.apply(init_small) does to the model what the reference does; else the line."""
    _seed(seed)
    net = _quietly(make)
    if dtype != torch.float32:
        net.to(dtype)
    label += _dtype_note(dtype)
    before = ModelState(net)
    originals = [value for _, _, _, value in before.params]
    expected = _reference_kinds(net, before, originals)
    if expected is None:
        return _SKIP
    _seed(seed + 1)
    _, line, error = _call(_applying(init_small), net, allow={"rng"})
    if line:
        if isinstance(error, AttributeError) and "NoneType" in str(error):
            return f"✗ on {label}: a Linear built with bias=False has bias None; test `module.bias is not None` first."
        return _stub_or_error(line, label)
    problem = _in_place_problem(label, before, ModelState(net))
    if problem:
        return problem
    line, drawn = _kinds_problem(net, label, before, expected)
    return line or _drawn_problem(label, drawn)


def _follows_the_global_seed(init_small):
    """None if the draws follow torch.manual_seed (same seed, same weights; another seed, others)."""

    def draw(seed):
        _seed(seed)
        layer = nn.Linear(32, 32)
        _seed(seed + 100)
        _, line, _ = _call(_applying(init_small), layer, allow={"rng"})
        if line:
            raise Wrong(_stub_or_error(line, "nn.Linear(32, 32)"))
        return layer.weight.detach().clone()

    return seed_verdict(draw, "init_small")


@checker
def check_init_small(init_small):
    """Runs net.apply(init_small) and the reference on the same models; compares what each parameter became."""
    for seed, (label, make, dtype) in enumerate(_init_family()):
        problem = _init_problem(init_small, label, make, dtype, seed)
        if problem == _SKIP:
            continue
        if problem:
            return problem
    problem = _follows_the_global_seed(init_small)
    if problem:
        return problem
    return (
        "✓ correct: matches the reference on small models and the zoo's architectures (eager, lazy, restored, "
        "bias=False, frozen, Transformer, tied LMs, Embedding, conv, Linear subclass) in float32, float64 and "
        "bfloat16."
    )


# --- count_parameters ------------------------------------------------------------------------------


def _as_dtype(make, dtype):
    if dtype == torch.float32:
        return make

    def made():
        return make().to(dtype)

    return made


def _reference_count(make, inputs):
    """The reference's count, or None where it cannot count the model (a forward or a constructor that
    reads values: the page says to count such a model on a real device)."""
    try:
        return _quietly(partial(_reference_count_parameters, make, *inputs))
    except (RuntimeError, NotImplementedError, ValueError, TypeError, IndexError):
        return None


def _built_off_meta(label, built_on):
    where = next(w for w in built_on if w != "meta")
    return f"✗ on {label}: the model was built on {where}, allocating it (.to('meta') afterwards is too late); call make_model() under `with torch.device('meta'):`."


def _count_without_dry_run(make):
    with torch.device("meta"):
        params = _quietly(make).parameters()
        return sum(p.numel() for p in params if not nn.parameter.is_lazy(p))


def _count_hint(make, inputs, answer, expected, label):
    with torch.device("meta"):
        probe = _quietly(make)
        probe(*[x.to("meta") for x in inputs])
    named_all = list(probe.named_parameters(remove_duplicate=False))
    odd = [(n, p) for n, p in probe.named_parameters() if n.split(".")[-1] not in ("weight", "bias")]
    state = [t for t in probe.state_dict().values() if isinstance(t, torch.Tensor)]
    if answer == len(list(probe.parameters())):
        return ": that is the number of parameter tensors; count their elements with p.numel()"
    if answer == sum(p.numel() for _, p in named_all):
        return ": that counts a tied parameter twice; model.parameters() lists each shared one once"
    if answer == sum(t.numel() for t in state):
        return ": that counts the state_dict, buffers included; count model.parameters()"
    if answer == sum(p.numel() for p in probe.parameters() if p.requires_grad):
        return ": that leaves out frozen parameters; they count too"
    if answer == _count_without_dry_run(make):
        return ": that skips the lazy placeholders; run the example inputs through the model first"
    if "training-only" in label:
        return ": an eval-mode dry run skips training-only branches; run it in training mode"
    if odd and answer == expected - sum(p.numel() for _, p in odd):
        return f": that leaves out `{odd[0][0]}`; count every parameter, whatever its name"
    return ""


def _count_error(error, label, inputs):
    """The hint for an error the answer raised, by its kind."""
    message = str(error)
    if isinstance(error, ValueError) and "uninitialized" in message:
        if "training-only" in label:
            return f"✗ on {label}: numel() raised on an UninitializedParameter: an eval-mode dry run skips training-only branches; run it in training mode."
        return f"✗ on {label}: numel() raised on an UninitializedParameter; run the example inputs through the model first."
    if isinstance(error, RuntimeError) and "meta" in message:
        return f"✗ on {label}: a meta model met a real tensor; move the example inputs to meta too (x.to('meta')), and run the forward inside `with torch.device('meta'):`, where the tensors it creates land on meta."
    if isinstance(error, TypeError) and "positional argument" in message:
        return f"✗ on {label}: the forward takes {len(inputs)} inputs; pass them all: model(*example_inputs)."
    return None


@checker
def check_count_parameters(count_parameters):
    """Compares with the reference's count; checks that make_model ran on meta and no RNG was drawn."""
    for label, make, inputs, dtype in _count_family():
        make = _as_dtype(make, dtype)
        inputs = _cast(inputs, dtype)
        label += _dtype_note(dtype)
        with caller_default_device(caller_default(label)):
            expected = _reference_count(make, inputs)
        if expected is None:
            continue
        built_on = []
        copies = [x.clone() for x in inputs]
        with caller_default_device(caller_default(label)):
            answer, line, error = _call(count_parameters, _recording(make, built_on), *inputs)
        if line:  # an error, or a leak of global state (drawing random numbers, say)
            if line.startswith("✗ not solved yet"):
                return line
            if leak := _default_device_leak(line, label, "count_parameters"):
                return leak
            if any(where != "meta" for where in built_on):  # e.g. make_model().to("meta")
                return _built_off_meta(label, built_on)
            return _count_error(error, label, inputs) or _stub_or_error(line, label)
        if not built_on:
            return f"✗ on {label}: make_model() was never called."
        if any(where != "meta" for where in built_on):
            return _built_off_meta(label, built_on)
        if any(not torch.equal(x, y) for x, y in zip(inputs, copies)):
            return f"✗ on {label}: your answer changed the example inputs."
        if isinstance(answer, torch.Tensor) or not isinstance(answer, int) or isinstance(answer, bool):
            return f"✗ on {label}: count_parameters returned a {type(answer).__name__}; return a Python int (sum of p.numel())."
        if answer != expected:
            hint = _count_hint(make, inputs, answer, expected, label)
            return f"✗ on {label}: your count is {answer}; expected {expected}{hint}."
    return (
        "✓ correct: the counts match on lazy MLPs and conv nets, BatchNorm, tied LMs, a training-only head, two "
        "inputs, an empty batch and the zoo's architectures, in three dtypes, built on meta, no RNG drawn."
    )


# --- build_on_meta ---------------------------------------------------------------------------------


def _checkpoint_of(make, example, seed, where, dtype):
    _seed(seed)
    trained = _quietly(make)
    if dtype != torch.float32:
        trained.to(dtype)
    trained.eval()
    with torch.no_grad():
        if example is not None:
            trained(*_cast(example, dtype))  # materializes lazy layers
        for name, buffer in trained.named_buffers():
            if buffer.is_floating_point() and "running" in name:
                buffer.uniform_(0.5, 1.5)
    return {
        k: v.to(where, copy=True) if isinstance(v, torch.Tensor) else copy.deepcopy(v)
        for k, v in trained.state_dict().items()
    }


def _device_of(where):
    return torch.empty(0, device=where).device  # "cuda" and "cuda:0" alike


def _ties(model):
    seen = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        seen.setdefault(id(p), []).append(name)
    return sorted(tuple(names) for names in seen.values() if len(names) > 1)


def _meta_left(model):
    return [n for n, t in [*model.named_parameters(), *model.named_buffers()] if t.is_meta]


def _reference_model(make, checkpoint, expected_ties):
    """The reference's model, or None where it cannot rebuild this one (no init_buffers for a computed
    buffer, no tie_weights() for a tie, a constructor that reads values)."""
    try:
        model = _quietly(
            partial(
                _reference_build_on_meta,
                make,
                {k: v.clone() if isinstance(v, torch.Tensor) else copy.deepcopy(v) for k, v in checkpoint.items()},
            )
        )
    except (RuntimeError, NotImplementedError, ValueError, TypeError):
        return None
    if _meta_left(model) or _ties(model) != expected_ties:
        return None
    return model


def _outputs(model, example):
    with torch.no_grad():
        _seed(0)
        out = model.eval()(*example)
    return [t for t in (out if isinstance(out, (tuple, list)) else (out,))]


def _meta_error(error, label):
    """The hint for an error the answer raised, by its kind."""
    message = str(error)
    if isinstance(error, NotImplementedError) or "copy out of meta" in message:
        return f"✗ on {label}: a buffer still on meta cannot be moved with .to() (and to_empty would wipe the loaded values); recompute it with init_buffers(device)."
    if isinstance(error, ValueError) and "uninitialized" in message:
        return f"✗ on {label}: to_empty cannot allocate a lazy placeholder (no shape yet); load with assign=True, which takes the checkpoint's tensors and shapes."
    return None


def _meta_checkpoint(make, example, seed, where, dtype):
    """(checkpoint, dtype): in float32 for a zoo model that runs in float32 only."""
    try:
        return _checkpoint_of(make, example, seed, where, dtype), dtype
    except (RuntimeError, TypeError):  # a zoo model that runs in float32 only
        dtype = torch.float32
        return _checkpoint_of(make, example, seed, where, dtype), dtype


def _allocated(label, built_on):
    """The line for a model make_model() built off meta; else None."""
    if any(w != "meta" for w in built_on):
        w = next(w for w in built_on if w != "meta")
        return f"✗ on {label}: the model was built on {w}, allocating and initializing every weight; call make_model() under `with torch.device('meta'):`."
    return None


def _returned_problem(label, model, built_on):
    """The line for an answer that returned no model or did not build it on meta; else None."""
    if not isinstance(model, nn.Module):
        return f"✗ on {label}: build_on_meta returned {type(model).__name__}, not the model: return it."
    if not built_on:
        return f"✗ on {label}: make_model() was never called."
    return _allocated(label, built_on)


def _loaded_problem(label, model, reference, checkpoint, given, pristine):
    """The line for a checkpoint edited, or loaded into the model otherwise than with assign=True; else None."""
    keys, objects = given
    if list(checkpoint) != keys or any(a is not b for a, b in zip(checkpoint.values(), objects)):
        return f"✗ on {label}: build_on_meta changed the checkpoint dict it was given (keys or entries); read it, do not edit it."
    state = model.state_dict()
    if set(state) != set(checkpoint):
        return f"✗ on {label}: the model's state_dict keys differ from the checkpoint's."
    if any(isinstance(t, torch.Tensor) and t.is_meta for t in state.values()):
        return f"✗ on {label}: parameters are still on meta: load_state_dict copies into meta tensors, which does nothing; pass assign=True."
    for k, want in reference.state_dict().items():
        have = state[k]
        if not isinstance(want, torch.Tensor):
            continue
        if (have.dtype, have.device) != (want.dtype, want.device):
            return f"✗ on {label}: `{k}` is {have.dtype} on {have.device}; the checkpoint holds {want.dtype} on {want.device}: load with assign=True, which keeps the checkpoint's tensors."
    changed = [
        k for k in pristine if isinstance(pristine[k], torch.Tensor) and not torch.equal(checkpoint[k], pristine[k])
    ]
    if changed:
        return f"✗ on {label}: the checkpoint's own tensors changed (`{changed[0]}`): a reset after an assign=True load writes into them."
    if any(isinstance(pristine[k], torch.Tensor) and not torch.equal(state[k], pristine[k]) for k in pristine):
        return (
            f"✗ on {label}: the values differ from the checkpoint: to_empty() or a reset after loading replaces them."
        )
    return None


def _init_buffers_device(label, where):
    """The line for an init_buffers call (other than a constructor's, on meta) not given the checkpoint's device:
    None, or the default device (the caller's, meta for a member of caller_default); else None."""
    for argument, default in _buffer_calls:
        if default == MAKE_MODEL:
            continue
        if argument is None or _device_of(argument) != _device_of(where):
            return f"✗ on {label}: init_buffers got device={argument!r}; pass the checkpoint's device, so the buffers are computed where the weights are."
    return None


def _finished_problem(label, model, reference, where):
    """The line for parameters, ties, buffers or training modes that differ from the reference's; else None."""
    ref_params = dict(reference.named_parameters())
    for name, p in model.named_parameters():
        if type(p) is not nn.Parameter:
            return f"✗ on {label}: `{name}` is a {type(p).__name__}, not an nn.Parameter."
        if name in ref_params and p.requires_grad != ref_params[name].requires_grad:
            return f"✗ on {label}: `{name}` has requires_grad={p.requires_grad}; the model built it with {ref_params[name].requires_grad}."
    if _ties(model) != _ties(reference):
        return f"✗ on {label}: the tie is lost: assign=True (or to_empty) makes a Parameter per key; call model.tie_weights() after loading."
    answer_buffers = dict(model.named_buffers())
    for name, want in reference.named_buffers():
        have = answer_buffers.get(name)
        if have is None:
            return f"✗ on {label}: the buffer `{name}` is missing."
        if have.is_meta:
            return f"✗ on {label}: the non-persistent buffer `{name}` is still on meta; call init_buffers(device) on every module that has it."
        if have.device != want.device or not torch.equal(have, want):
            return f"✗ on {label}: the non-persistent buffer `{name}` differs from a fresh computation: call init_buffers(device) with the checkpoint's device."
    if problem := _init_buffers_device(label, where):
        return problem
    modes = [m.training for m in model.modules()]
    if modes != [m.training for m in reference.modules()]:
        return f"✗ on {label}: build_on_meta changed the training mode (eval()/train()); return the model in the mode make_model() built it."
    return None


def _leftover_problem(build_on_meta):
    """The line for an answer that returns a model with a tensor still on meta instead of raising; else None."""
    for label, make in _left_on_meta_family():
        _seed(0)
        checkpoint = _quietly(make).state_dict()
        model, line, error = _call(build_on_meta, _recording(make, []), checkpoint)
        if error is not None or line is not None:
            continue  # it raised (or leaked, reported with the family): what the statement asks
        left = _meta_left(model) if isinstance(model, nn.Module) else []
        if left:
            return (
                f"✗ on {label}: `{left[0]}` is still on meta and build_on_meta returned the model: check "
                "named_parameters() and named_buffers(), non-persistent ones included, and raise an error."
            )
    return None


@checker
def check_build_on_meta(build_on_meta):
    """Builds from a checkpoint through the answer and the reference; compares the models they return."""
    for seed, (label, make, example, where, dtype) in enumerate(_build_family()):
        checkpoint, dtype = _meta_checkpoint(make, example, seed, where, dtype)
        label += _dtype_note(dtype)
        if example is not None:
            example = tuple(x.to(where) for x in _cast(example, dtype))
        _seed(seed)
        source_ties = _ties(_quietly(make))
        with caller_default_device(caller_default(label)):
            reference = _reference_model(make, checkpoint, source_ties)
        if reference is None:
            continue
        pristine = {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in checkpoint.items()}
        given = list(checkpoint), list(checkpoint.values())
        built_on = []
        _buffer_calls.clear()
        with caller_default_device(caller_default(label)):
            model, line, error = _call(build_on_meta, _recording(make, built_on), checkpoint)
        leak = None
        if line:
            if line.startswith("✗ not solved yet"):
                return line
            if allocated := _allocated(label, built_on):
                return allocated
            if error is not None or model is None:
                return _init_buffers_device(label, where) or _meta_error(error, label) or _stub_or_error(line, label)
            # reported below, unless a more precise mistake is found
            leak = _default_device_leak(line, label, "build_on_meta") or _stub_or_error(line, label)
        problem = (
            _returned_problem(label, model, built_on)
            or _loaded_problem(label, model, reference, checkpoint, given, pristine)
            or _finished_problem(label, model, reference, where)
        )
        if problem:
            return problem
        if example is not None:
            got, want = _outputs(model, example), _outputs(reference, example)
            if len(got) != len(want) or not all(map(torch.equal, got, want)):
                return f"✗ on {label}: the model's output differs from the reference's."
        if leak:
            return leak
    if problem := _leftover_problem(build_on_meta):
        return problem
    return (
        "✓ correct: on BatchNorm, tied LMs, computed tables, nested buffers, a lazy head and the zoo's "
        "parametrized, pruned, half-precision models, in three dtypes: built on meta, loaded, buffers recomputed, "
        "ties kept."
    )


# --- param_groups (Lazy modules) -------------------------------------------------------------------


def materialize(net, *example_inputs, training=False):
    """The page's `materialize`, for answers that call it (the notebook defines the same function)."""
    modes = {module: module.training for module in net.modules()}
    net.train(training)
    try:
        with torch.no_grad():
            net(*example_inputs)
    finally:
        for module, was_training in modes.items():
            module.training = was_training  # this module only; train() would recurse
    still_lazy = [
        name
        for name, module in net.named_modules()
        if isinstance(module, nn.modules.lazy.LazyModuleMixin) and module.has_uninitialized_params()
    ]
    if still_lazy:
        raise RuntimeError(f"the dry run did not reach {still_lazy}")
    return net


def _reference_param_groups(model, *example_inputs, weight_decay=0.1):
    materialize(model, *example_inputs)  # nothing changes on a model that is not lazy
    trainable = [p for p in model.parameters() if p.requires_grad]
    return [
        {"params": [p for p in trainable if p.ndim >= 2], "weight_decay": weight_decay},
        {"params": [p for p in trainable if p.ndim < 2], "weight_decay": 0.0},
    ]


def _changed_buffer(label, name, have, want):
    """The line for a buffer the answer changed: reset to what a fresh module holds (zeros, ones, 0), or
    updated by a dry run in training mode."""
    fresh = torch.ones_like(have) if name.endswith("running_var") else torch.zeros_like(have)
    if torch.equal(have, fresh) and not torch.equal(want, fresh):
        return (
            f"✗ on {label}: the buffer `{name}` was reset to {'ones' if name.endswith('running_var') else 'zeros'} "
            "(reset_running_stats() or reset_parameters()), which wipes the statistics a pretrained model holds: "
            "dry-run in eval mode, so that batch normalization leaves them as they are, and reset nothing."
        )
    return f"✗ on {label}: the buffer `{name}` changed: dry-run in eval mode so batch normalization does not count the fake batch."


def _ids(params):
    return [id(p) for p in params]


@checker
def check_param_groups(param_groups):
    """Runs the answer and the reference on fresh copies of each model; compares the groups."""
    for seed, (label, make, inputs) in enumerate(_groups_family()):
        _seed(seed)
        reference_model = _quietly(make)
        _seed(seed)
        model = _quietly(make)
        expected = _reference_param_groups(reference_model, *inputs, weight_decay=0.05)
        modes = [m.training for m in reference_model.modules()]
        groups, line, _ = _call(
            wraps(param_groups)(partial(param_groups, weight_decay=0.05)),
            model,
            *inputs,
            allow={"rng"},
        )
        if line:
            return _stub_or_error(line, label)
        if not isinstance(groups, (list, tuple)) or not all(isinstance(g, dict) for g in groups):
            return f"✗ on {label}: return a list of two dicts, {{'params': [...], 'weight_decay': ...}}."
        if len(groups) != 2 or any("params" not in g for g in groups):
            return f"✗ on {label}: return exactly two groups, each a dict with 'params' and 'weight_decay'."
        still_lazy = [n for n, p in model.named_parameters() if nn.parameter.is_lazy(p)]
        if still_lazy:
            return f"✗ on {label}: {still_lazy[0]} is still an UninitializedParameter: materialize the model first (a dry run)."
        decay, rest = (list(g["params"]) for g in groups)
        mine = {id(p): n for n, p in model.named_parameters()}
        want_decay = {mine[id(p)] for p in model.parameters() if p.requires_grad and p.ndim >= 2}
        have_decay = {mine.get(id(p), "?") for p in decay}
        have_rest = {mine.get(id(p), "?") for p in rest}
        everything = decay + rest
        if len(set(_ids(everything))) != len(everything):
            return f"✗ on {label}: a parameter appears twice (a tied weight is one Parameter under two names); AdamW only warns, then steps it twice per step(): iterate model.parameters(), which yields it once."
        frozen = sorted(mine.get(id(p), "?") for p in everything if not p.requires_grad)
        if frozen:
            return f"✗ on {label}: {frozen[0]} is frozen (requires_grad=False); leave frozen parameters out."
        if have_decay != want_decay:
            wrong = min(have_decay ^ want_decay)
            if not decay and want_decay:
                return f"✗ on {label}: no parameter gets weight decay: were the shapes read before the dry run? A placeholder reports ndim 1."
            return f"✗ on {label}: `{wrong}` is in the wrong group: decay exactly the parameters with ndim >= 2 (matrices, conv kernels, embeddings), not by name."
        if have_rest != {mine[id(p)] for p in model.parameters() if p.requires_grad and p.ndim < 2}:
            return f"✗ on {label}: some trainable parameter is in neither group."
        if groups[0].get("weight_decay") != 0.05 or groups[1].get("weight_decay", 0.0) != 0.0:
            return f"✗ on {label}: the first group takes the weight_decay argument (0.05 here), the second 0.0."
        if [m.training for m in model.modules()] != modes:
            return f"✗ on {label}: the model's train/eval modes changed: put back each module's own mode after the dry run (net.train(flag) recurses into a frozen backbone)."
        for (n, b), (_, c) in zip(model.named_buffers(), reference_model.named_buffers()):
            if not torch.equal(b, c):
                return _changed_buffer(label, n, b, c)
        if any(p.grad is not None for p in model.parameters()):
            return f"✗ on {label}: the dry run left gradients: run it under torch.no_grad()."
        torch.optim.AdamW(groups, lr=1e-3)
        del expected
    return "✓ correct: the groups match on lazy MLPs and conv nets, a frozen ResNet under a lazy head, GPT-2 (tied) and LLaMA; modes, statistics and gradients untouched."


# --- unmaterialized (Building on the meta device) ---------------------------------------------------


def _reference_unmaterialized(model):
    named = [*model.named_parameters(), *model.named_buffers()]
    return [name for name, t in named if t.is_meta or nn.parameter.is_lazy(t)]


@checker
def check_unmaterialized(unmaterialized):
    """The answer's names must be exactly the tensors that hold no values (each name may be any of a
    tied tensor's names, or all of them)."""
    for label, make in _unmaterialized_family():
        _seed(0)
        model = _quietly(make)
        state = (
            ModelState(model)
            if not any(nn.parameter.is_lazy(t) for t in [*model.parameters(), *model.buffers()])
            else None
        )
        names, line, _ = _call(unmaterialized, model)
        if line:
            return _stub_or_error(line, label)
        if isinstance(names, (str, bool, torch.Tensor)) or not isinstance(names, (list, tuple)):
            return f"✗ on {label}: unmaterialized returned {type(names).__name__}; return a list of names (str)."
        if not all(isinstance(n, str) for n in names):
            return f"✗ on {label}: return the names (str), as named_parameters() and named_buffers() give them, not the tensors."
        tensors = dict(model.named_parameters(remove_duplicate=False))
        tensors.update(model.named_buffers(remove_duplicate=False))
        unknown = [n for n in names if n not in tensors]
        if unknown:
            return f"✗ on {label}: `{unknown[0]}` is not the full name of a parameter or buffer of the model: recurse into submodules with named_parameters() / named_buffers()."
        empty = {id(t) for t in tensors.values() if t.is_meta or nn.parameter.is_lazy(t)}
        named = {id(tensors[n]) for n in names}
        extra = [n for n in names if id(tensors[n]) not in empty]
        if extra:
            return f"✗ on {label}: `{extra[0]}` holds values; list only tensors on meta or lazy placeholders."
        missed = [n for n, t in tensors.items() if id(t) in empty and id(t) not in named]
        if missed:
            t = tensors[missed[0]]
            buffers = dict(model.named_buffers(remove_duplicate=False))
            if missed[0] in buffers and not any(n in buffers for n in names):
                why = "check buffers too, non-persistent ones included (state_dict() leaves those out)"
            elif nn.parameter.is_lazy(t) and not t.is_meta:
                why = "a lazy placeholder (UninitializedParameter or UninitializedBuffer) is not on meta but has no values either: nn.parameter.is_lazy(t)"
            elif missed[0] in buffers:
                why = "check buffers too, non-persistent ones included (state_dict() leaves those out)"
            else:
                why = "check every parameter, in every submodule"
            return f"✗ on {label}: missed `{missed[0]}`: {why}."
        if state is not None and (diff := state.difference(ModelState(model))):
            return f"✗ on {label}: unmaterialized {diff}; only read the model."
    return "✓ correct: on eager, lazy (CPU and meta) and half-loaded models: LLaMA's rotary buffers, Swin's index, GPT-2's tied head, a half-materialized model."


# --- init_from_meta (Building on the meta device) ---------------------------------------------------


def reset_like_constructors(module):
    """The page's helper: each module's own reset, children first, as the constructors ran."""
    for child in module.children():
        reset_like_constructors(child)
    if hasattr(module, "reset_parameters"):
        module.reset_parameters()
    elif hasattr(module, "_reset_parameters"):  # nn.MultiheadAttention, nn.Transformer
        module._reset_parameters()


def _reference_init_from_meta(make_model, device):
    with torch.device("meta"):
        model = make_model()
    model.to_empty(device=device)
    reset_like_constructors(model)
    for module in model.modules():
        if hasattr(module, "init_buffers"):
            module.init_buffers(device)
    if hasattr(model, "tie_weights"):
        model.tie_weights()
    if meta_leftovers(model):
        raise RuntimeError(f"still on meta: {meta_leftovers(model)}")
    return model


def _buffer_device_problem(label, device):
    """The line for an init_buffers call off meta that was not given `device`: the buffers land on the default
    device (the CPU, or whatever the caller set), not where to_empty put the weights; else None."""
    for argument, default in _buffer_calls:
        if default != MAKE_MODEL and (argument is None or _device_of(argument) != _device_of(device)):
            return (
                f"✗ on {label}: init_buffers got device={argument!r}; pass the device given, so the buffers are "
                "computed where the weights are (the default device is the CPU, or what the caller set)."
            )
    return None


@checker
def check_init_from_meta(init_from_meta):
    """Compares the answer's model with a normal build from the same seed, bit for bit; to_empty's
    memory is filled with NaN / True / the largest integer (deterministic mode) so garbage shows."""
    for seed, (label, make, inputs) in enumerate(_init_from_meta_family()):
        _seed(seed)
        truth = _quietly(make)
        built_on = []
        torch.use_deterministic_algorithms(True)  # the harness restores the caller's setting
        _seed(seed)
        _buffer_calls.clear()
        with caller_default_device(caller_default(label)):
            model, line, _ = _call(
                init_from_meta,
                _recording(make, built_on),
                torch.device("cpu"),
                allow={"rng"},
            )
        torch.use_deterministic_algorithms(False)
        if line:
            if line.startswith("✗ not solved yet"):
                return line
            if leak := _default_device_leak(line, label, "init_from_meta"):
                return leak
            if any(w != "meta" for w in built_on):
                return f"✗ on {label}: the model was built on {built_on[0]}; call make_model() under `with torch.device('meta'):`."
            return _stub_or_error(line, label)
        if not isinstance(model, nn.Module):
            return f"✗ on {label}: init_from_meta returned {type(model).__name__}, not the model."
        if not built_on:
            return f"✗ on {label}: make_model() was never called."
        if any(w != "meta" for w in built_on):
            return f"✗ on {label}: the model was built on {built_on[0]}; call make_model() under `with torch.device('meta'):`."
        if problem := _buffer_device_problem(label, torch.device("cpu")):
            return problem
        left = meta_leftovers(model)
        if left:
            return f"✗ on {label}: `{left[0]}` is still on meta: to_empty(device=...) gives every tensor storage."
        if _ties(model) != _ties(truth):
            return f"✗ on {label}: the tie is lost: to_empty makes a new Parameter per name; call the model's tie_weights() last."
        mine, want = dict(model.named_buffers()), dict(truth.named_buffers())
        for name, value in want.items():
            if not torch.equal(mine[name], value):
                return f"✗ on {label}: the buffer `{name}` is garbage: every buffer __init__ computed, persistent or not, must be recomputed (init_buffers(device) on every module that has it)."
        params = dict(model.named_parameters())
        for name, value in truth.named_parameters():
            have = params[name]
            if have.isnan().any():
                return f"✗ on {label}: `{name}` still holds to_empty's garbage: call reset_parameters(), or _reset_parameters() where only that exists (nn.MultiheadAttention)."
            if not torch.equal(have, value):
                return f"✗ on {label}: `{name}` differs from a normal build with the same seed: reset children first, in the order the constructors ran, and tie last."
        with torch.no_grad():
            model.eval(), truth.eval()
            if not torch.equal(model(*inputs), truth(*inputs)):
                return f"✗ on {label}: the outputs differ from a normal build."
    return "✓ correct: bit for bit as a normal build, on tied LMs, nn.MultiheadAttention, a persistent causal mask, a nested computed buffer and BatchNorm."
