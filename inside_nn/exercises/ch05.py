"""Exercise checkers for "File I/O" (05_file_io.ipynb): each `check_*` runs a reader's answer
beside `_reference_*`, the solution the page shows, and prints one line.

Every call of an answer goes through `harness.attempt`: global state it leaves changed, a stub, an
endless loop end the check with one line. The families are files, state dicts and models drawn from
`inside_nn.zoo` (GPT-2, LLaMA, T5, BERT, ResNet, Swin, LoRA, ...) in float32, float64 and bfloat16,
with edge cases: empty state dicts, NaN and inf, tied weights, frozen layers, `bias=False`.
"""

# Names a reader's answer may use as if the notebook had imported them (the checker cell imports
# this module's checkers; the tests run answers beside this module's names).
import contextlib  # noqa: F401
import copy
import functools
import io  # noqa: F401
import itertools
import math
import struct
import tempfile
import zipfile
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path

import torch
from torch import nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

from inside_nn import pick_device, zoo
from inside_nn.exercises.harness import ModelState, Wrong, attempt, checker

device = pick_device()


def _same_values(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal values, NaN equal to NaN (a diverged run's checkpoint holds NaN on purpose)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.device.type == "meta" or b.device.type == "meta":
        return a.device == b.device
    a, b = a.detach().cpu(), b.detach().cpu()
    if torch.equal(a, b):
        return True
    if a.is_floating_point() or a.is_complex():
        return torch.equal(a.isnan(), b.isnan()) and torch.equal(a.nan_to_num(0.0), b.nan_to_num(0.0))
    return torch.equal(a, b)


def _difference(got, want, where="the result"):
    """None if `got` matches `want` (types, keys, _metadata, dtypes, shapes, devices, values)."""
    if isinstance(want, torch.Tensor):
        if not isinstance(got, torch.Tensor):
            return f"{where} is a {type(got).__name__}, expected a tensor"
        for attribute in ("dtype", "shape", "device"):
            if getattr(got, attribute) != getattr(want, attribute):
                return f"{where} has {attribute} {getattr(got, attribute)}, expected {getattr(want, attribute)}"
        if not _same_values(got, want):
            return f"{where} holds other values"
        return None
    if isinstance(want, Mapping):
        if not isinstance(got, Mapping):
            return f"{where} is a {type(got).__name__}, expected a dict"
        if set(got) != set(want):
            extra = sorted(map(str, set(got) ^ set(want)))[:2]
            return f"{where} has other keys ({', '.join(extra)} differ)"
        # In any order, and none like empty: that is how load_state_dict reads _metadata.
        got_metadata, want_metadata = (dict(getattr(m, "_metadata", None) or {}) for m in (got, want))
        if got_metadata != want_metadata:
            return f"{where} lost or changed its _metadata (module versions)"
        for key in want:
            problem = _difference(got[key], want[key], f"{where}[{key!r}]")
            if problem:
                return problem
        return None
    if isinstance(want, (list, tuple)):
        if type(got) is not type(want) or len(got) != len(want):
            size = len(got) if hasattr(got, "__len__") else "?"
            return f"{where} is {type(got).__name__} of {size}, expected {type(want).__name__} of {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            problem = _difference(g, w, f"{where}[{i}]")
            if problem:
                return problem
        return None
    if type(got) is not type(want):
        return f"{where} is a {type(got).__name__}, expected {want!r}"
    if isinstance(want, float) and math.isnan(want):  # as a loss history may hold
        return None if math.isnan(got) else f"{where} is {got!r}, expected nan"
    return None if got == want else f"{where} is {got!r}, expected {want!r}"


def _listing(directory):
    return sorted((p.name, p.read_bytes() if p.is_file() else None) for p in directory.iterdir())


class _RunsCode:
    def __init__(self, code):
        self.code = code

    def __reduce__(self):
        return (exec, (self.code,))


def _saved_on(source, target, location):
    """Copy a torch.save archive, recording `location` (e.g. "cuda:1") for its storages."""
    old, new = (
        b"X\x03\x00\x00\x00cpu",
        b"X" + struct.pack("<I", len(location)) + location.encode(),
    )
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w") as copy:
        for info in archive.infolist():
            data = archive.read(info)
            copy.writestr(
                info,
                data.replace(old, new) if info.filename.endswith("data.pkl") else data,
            )


def _cast(state, dtype):
    """A state dict with its floating tensors in `dtype`, keeping _metadata."""
    out = OrderedDict((k, v.to(dtype) if v.is_floating_point() else v) for k, v in state.items())
    if hasattr(state, "_metadata"):
        out._metadata = state._metadata
    return out


class _Named(nn.Module):
    """Keeps `module` under `name`: "module" as DDP does, "_orig_mod" as torch.compile does."""

    def __init__(self, name, module):
        super().__init__()
        self.add_module(name, module)


# --------------------------------------------------------------------------------------------------
# load_checkpoint


def _reference_load_checkpoint(path, device):
    # map_location sends every storage to `device`, whatever location the file records; loading
    # first and calling .to(device) afterwards fails inside torch.load for a GPU file on a CPU.
    return torch.load(path, map_location=device, weights_only=True)


def _edge_tensors():
    """A state dict of the dtypes and values a real checkpoint holds beside float32 weights."""
    state = OrderedDict(
        weight=torch.linspace(-1, 1, 6, dtype=torch.float64).reshape(2, 3),
        half=torch.tensor([1.5, -2.0], dtype=torch.float16),
        bf16=torch.tensor([0.1, 3.0, -7.5], dtype=torch.bfloat16),
        diverged=torch.tensor([1.0, float("nan"), float("inf"), -float("inf")]),
        mask=torch.tensor([True, False, True]),
        ids=torch.arange(5),
        empty=torch.zeros(0, 4),
        scalar=torch.tensor(3.25),
    )
    state["view"] = state["ids"][1:3]  # a view: its storage is saved whole
    return state


def _adamw_state(model, step=3):
    """What AdamW.state_dict() holds after `step` steps (built by hand: an optimizer costs seconds
    to import): per-parameter tensors under int keys, and param_groups with tuples and floats."""
    parameters = list(model.parameters())
    return {
        "state": {
            i: {
                "step": torch.tensor(float(step)),
                "exp_avg": torch.full_like(p, 0.01),
                "exp_avg_sq": torch.full_like(p, 1e-4),
            }
            for i, p in enumerate(parameters)
        },
        "param_groups": [
            {
                "lr": 1e-3,
                "betas": (0.9, 0.999),
                "eps": 1e-8,
                "weight_decay": 0.01,
                "amsgrad": False,
                "params": list(range(len(parameters))),
            }
        ],
    }


def _checkpoint_files(tmp):
    """(file name, what it is): what a run, a GPU machine, an old torch and DDP leave on disk."""
    gpt2 = zoo.build("gpt2", seed=1)
    resnet = zoo.build("resnet", seed=2)
    with torch.no_grad():  # running statistics as training leaves them
        for name, buffer in resnet.named_buffers():
            buffer.fill_(3 if name.endswith("num_batches_tracked") else 0.5)
    bf16 = zoo.build("llama", seed=3).to(torch.bfloat16)
    torch.save(gpt2.state_dict(), tmp / "state.pt")
    torch.save(
        {
            "model": resnet.state_dict(),
            "optimizer": _adamw_state(resnet),
            "step": 1,
            "rng": torch.get_rng_state(),
            "history": [0.9, float("nan"), 0.7],
            "note": "nested",
        },
        tmp / "run.pt",
    )
    torch.save(_Named("module", bf16).state_dict(), tmp / "ddp-bf16.pt")
    torch.save(_edge_tensors(), tmp / "dtypes.pt")
    torch.save(
        _Named("_orig_mod", nn.Linear(3, 2, bias=False)).state_dict(),
        tmp / "legacy.pt",
        _use_new_zipfile_serialization=False,
    )
    torch.save(OrderedDict(), tmp / "empty-dict.pt")
    torch.save(torch.arange(6.0).reshape(2, 3), tmp / "tensor.pt")
    _saved_on(tmp / "state.pt", tmp / "gpu0.pt", "cuda:0")
    _saved_on(tmp / "run.pt", tmp / "gpu1-run.pt", "cuda:1")
    _saved_on(tmp / "dtypes.pt", tmp / "xpu0.pt", "xpu:0")  # beyond CUDA: an Intel GPU
    _saved_on(tmp / "tensor.pt", tmp / "hpu0.pt", "hpu:0")  # an Intel Gaudi, an out-of-tree backend
    whole = (tmp / "run.pt").read_bytes()
    (tmp / "truncated.pt").write_bytes(whole[: len(whole) // 2])
    (tmp / "zero-length.pt").write_bytes(b"")
    (tmp / "error-page.pt").write_bytes(b"<!DOCTYPE html><title>502 Bad Gateway</title>")
    return [
        ("gpu0.pt", "GPT-2's state_dict saved on cuda:0 (tied lm_head)"),
        ("state.pt", "a CPU state_dict"),
        ("gpu1-run.pt", "a {model, optimizer, step, rng} checkpoint saved on cuda:1"),
        ("legacy.pt", "a file in torch.save's legacy format"),
        ("run.pt", "a nested training checkpoint"),
        ("ddp-bf16.pt", "a bfloat16 LLaMA saved under DDP (module. names)"),
        (
            "dtypes.pt",
            "float64, float16, bfloat16, bool, int, empty, NaN and inf tensors",
        ),
        ("empty-dict.pt", "an empty state_dict"),
        ("tensor.pt", "a bare tensor"),
        ("xpu0.pt", "a state_dict saved on xpu:0"),
        ("hpu0.pt", "a tensor saved on hpu:0 (Intel Gaudi)"),
        ("truncated.pt", "a download cut off halfway"),
        ("zero-length.pt", "a zero-length file"),
        ("error-page.pt", "an HTML error page saved as .pt"),
    ]


_DAMAGED = {"truncated.pt", "zero-length.pt", "error-page.pt"}
# What torch.load raises where it restores a storage to the location the file names, on a machine without it.
_RESTORE_ERRORS = ("deserialize object on", "device module is not registered", "Storage device not recognized")


def _keeping_allowlist(load_checkpoint):
    """The answer, ending the check if it changes torch.serialization's allowlist for good (a
    process-wide setting the harness does not watch); the allowlist is put back first."""

    @functools.wraps(load_checkpoint, updated=())
    def watched(*args):
        before = list(torch.serialization.get_safe_globals())
        try:
            return load_checkpoint(*args)
        finally:
            if list(torch.serialization.get_safe_globals()) != before:
                torch.serialization.clear_safe_globals()
                torch.serialization.add_safe_globals(before)
                raise Wrong(
                    "✗ your function changed torch.serialization's allowlist (add_safe_globals) for "
                    "the whole process: pass what a file needs with the safe_globals([...]) context "
                    "manager"
                )

    return watched


@checker
def check_load_checkpoint(load_checkpoint):
    """Compares with the reference on files from CPU, cuda:0 and cuda:1, nested, legacy, DDP,
    bfloat16, empty and damaged ones, onto "cpu", torch.device("cpu"), "meta" and
    torch.device("meta"), and on a file that runs code."""
    load_checkpoint = _keeping_allowlist(load_checkpoint)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cases = _checkpoint_files(tmp)
        marker = tmp / "ran.txt"
        torch.save(
            {
                "weight": torch.ones(2),
                "x": _RunsCode(f"open({str(marker)!r}, 'w').close()"),
            },
            tmp / "hostile.pt",
        )
        before = _listing(tmp)
        targets = [
            ("cpu", torch.device("meta")),  # a str and a torch.device, in turn
            (torch.device("cpu"), "meta"),
        ]
        for i, (file, what) in enumerate(cases):
            for target in targets[i % 2] if file not in _DAMAGED else ["cpu"]:
                try:
                    want, want_error = (
                        _reference_load_checkpoint(tmp / file, target),
                        None,
                    )
                except Exception as error:  # noqa: BLE001 (a damaged file: any error will do)
                    want, want_error = None, error
                got, error = attempt(load_checkpoint, tmp / file, target)
                if isinstance(error, Wrong):  # the allowlist changed
                    raise error
                case = f"on {what}, device={target!r}"
                if want_error is not None:
                    if error is None:
                        raise Wrong(
                            f"✗ {case} you returned {type(got).__name__} {str(got)[:30]!r}: let "
                            "torch.load's error propagate, so that a caller cannot mistake a damaged "
                            "file for a checkpoint"
                        )
                    continue
                if error is not None and any(clue in str(error) for clue in _RESTORE_ERRORS):
                    raise Wrong(
                        f"✗ {case}: torch.load put tensors back on the GPU the file names; pass map_location=device"
                        + ("" if "cuda" in file or "gpu" in file else ", which sends every location there, not a list")
                    )
                if error is not None:
                    raise Wrong(f"✗ {case} you raised {type(error).__name__}: {error}"[:200])
                problem = _difference(got, want)
                if problem and "device" in problem and "meta" in str(target):
                    problem += ": pass map_location=device instead of a fixed device"
                if problem and "_metadata" in problem:
                    problem += "; return what torch.load returns"
                if problem:
                    raise Wrong(f"✗ {case}: {problem}"[:220])
        got, error = attempt(load_checkpoint, tmp / "hostile.pt", "cpu")
        if isinstance(error, Wrong):
            raise error
        if marker.exists():
            raise Wrong("✗ loading ran code stored in the file: use weights_only=True for a file you did not write")
        if error is None and got is None:
            raise Wrong("✗ returned None for a file that runs code: let the UnpicklingError propagate")
        if error is None:
            raise Wrong("✗ a file that needs an unknown global loaded without an error: use weights_only=True")
        if _listing(tmp) != before:
            raise Wrong("✗ your function wrote, changed or removed files; loading should only read")
    return (
        "✓ correct: state dicts, nested, DDP, bfloat16 and legacy checkpoints from CPU or GPU load "
        "onto the requested device; damaged files raise; code is refused"
    )


# --------------------------------------------------------------------------------------------------
# strip_prefixes


def _reference_strip_prefixes(state_dict):
    # Copy the mapping and its _metadata (dict(...) would drop it), then strip a prefix only
    # while *every* name carries it: a model's own child may well be called `module`.
    result = OrderedDict(state_dict)
    if hasattr(state_dict, "_metadata"):
        result._metadata = OrderedDict(state_dict._metadata)
    while result:
        prefixes = ("module.", "_orig_mod.")
        prefix = next((p for p in prefixes if all(k.startswith(p) for k in result)), None)
        if prefix is None:
            return result
        consume_prefix_in_state_dict_if_present(result, prefix)
    return result


def _child_module_and_head():
    return nn.ModuleDict({"module": nn.Linear(2, 2), "head": nn.Linear(2, 2, bias=False)})


def _module_list():
    """A child named `module_list`: it starts with "module", not with "module."."""
    model = nn.Module()
    model.module_list = nn.ModuleList([nn.Linear(2, 2), nn.LayerNorm(2)])
    model.modules_scale = nn.Parameter(torch.ones(2))
    return model


def _compiled_encoder():
    """`model.encoder = torch.compile(model.encoder)`: `_orig_mod.` in the middle of names."""
    return nn.ModuleDict({"encoder": _Named("_orig_mod", _mlp(3, 4, 2)), "head": nn.Linear(2, 2)})


def _prefix_models():
    """(what, build): real architectures as their code bases name them, and the traps."""
    return [
        ("GPT-2", lambda: zoo.build("gpt2")),
        ("LLaMA in bfloat16", lambda: zoo.build("llama").to(torch.bfloat16)),
        ("a ResNet with BatchNorm", lambda: zoo.build("resnet")),
        ("BERT in float64", lambda: zoo.build("bert").double()),
        ("a LoRA MLP (parametrizations)", lambda: zoo.build("lora")),
        ("a ViT built on meta", lambda: zoo.build("vit").to("meta")),
        ("a bare BatchNorm1d (its _metadata version is 2)", lambda: nn.BatchNorm1d(3)),
        (
            "a model with a child `submodule`",
            lambda: nn.ModuleDict({"submodule": nn.Linear(2, 3)}),
        ),
        ("a model whose own children are `module` and `head`", _child_module_and_head),
        ("a model with a child `module_list`", _module_list),
        ("a model with a compiled encoder (encoder._orig_mod.)", _compiled_encoder),
    ]


_WRAPPINGS = [
    (),
    ("module",),
    ("_orig_mod",),
    ("module", "_orig_mod"),
    ("_orig_mod", "module"),
]
_DEEP = ("_orig_mod", "module", "_orig_mod", "module")  # any number, in any order


def _wrapped(what, model, names):
    for name in reversed(names):
        model = _Named(name, model)
    label = what + (f" wrapped as {'.'.join(names)}." if names else ", unwrapped")
    return label, model.state_dict()


def _prefix_family():
    models = [(what, make()) for what, make in _prefix_models()]
    for what, inner in models:
        for names in _WRAPPINGS:
            yield _wrapped(what, inner, names)
    for what, inner in models:
        if what.startswith(("GPT-2", "a model whose own children")):
            yield _wrapped(what, inner, _DEEP)
    yield (
        "a plain dict (no _metadata) from DDP",
        dict(_Named("module", nn.Linear(2, 2)).state_dict()),
    )
    yield "an empty state_dict", nn.Module().state_dict()
    yield "an empty plain dict", {}


def _prefix_hint(got, want, what):
    extra = sorted(set(got) - set(want))[:1] or sorted(set(want) - set(got))[:1]
    hint = ""
    if any(k.startswith(("module.", "_orig_mod.")) for k in got) and not any(
        k.startswith(("module.", "_orig_mod.")) for k in want
    ):
        hint = ": strip both prefixes, in any order, as long as every name has one"
    elif any("._orig_mod." in k for k in want) and not any("._orig_mod." in k for k in got):
        hint = ": strip a leading prefix only; `encoder._orig_mod.` names a compiled submodule"
    elif "own children" in what:
        hint = ": strip a prefix only when every name starts with it"
    elif any(k.startswith(("list.", "_list.", "scale", "_scale")) for k in got):
        hint = ': "module_list." does not start with "module.": compare the whole prefix, dot included'
    elif any(("sub" in k or "ub" in k) and "module" not in k for k in got):
        hint = ": str.replace also cuts `module.` out of the middle of a name"
    elif any(k[:1] != w[:1] for k, w in zip(sorted(got), sorted(want))):
        hint = ': str.lstrip("module.") strips characters, not a prefix: use str.removeprefix'
    shown = f"{extra[0]!r}" if extra else "other names"
    return f"✗ on {what} you gave {shown}, expected names like {sorted(want)[:1]}{hint}"[:300]


@checker
def check_strip_prefixes(strip_prefixes):
    """Compares names, tensors and _metadata with the reference on state dicts of zoo models and
    traps, unwrapped and wrapped in every order; the argument must stay unchanged."""
    itself = None  # the first case where the answer returned its argument
    for what, state in _prefix_family():
        want = _reference_strip_prefixes(state)
        keys = list(state)
        values = [state[k] for k in keys]
        metadata = copy.deepcopy(getattr(state, "_metadata", None))
        got, error = attempt(strip_prefixes, state, seconds=3)
        if error is not None:
            raise Wrong(f"✗ on {what} you raised {type(error).__name__}: {error}"[:200])
        if (
            list(state) != keys
            or any(state[k] is not v for k, v in zip(keys, values))
            or getattr(state, "_metadata", None) != metadata
        ):
            raise Wrong(f"✗ on {what} your function changed its argument: copy the dict (and its _metadata) first")
        if got is None:
            raise Wrong("✗ you returned None: consume_prefix_in_state_dict_if_present works in place; return the copy")
        if not isinstance(got, Mapping):
            raise Wrong(f"✗ on {what} you returned a {type(got).__name__}: return the new state dict")
        if got is state:
            itself = itself or what
        if set(got) != set(want):
            raise Wrong(_prefix_hint(got, want, what))
        problem = _difference(got, want)
        if problem:
            raise Wrong(f"✗ on {what} {problem}: keep `_metadata`, renamed like the keys"[:220])
    if itself:
        raise Wrong(
            f"✗ on {itself} you returned the argument itself: return a new state dict, so that "
            "changing one later does not change the other"
        )
    return (
        "✓ correct: every leading module./_orig_mod. is stripped from zoo models' state dicts, "
        "_metadata included, and the argument is untouched"
    )


# --------------------------------------------------------------------------------------------------
# transfer


def _reference_transfer(source_state, target):
    # strict=False forgives missing and unexpected names but not a wrong shape, so keep only the
    # entries that fit. Then report what was not overwritten: a tied entry (one Parameter under
    # two names) took its twin's loaded values even though its own name was missing.
    own = target.state_dict(keep_vars=True)
    fitting = {name: t for name, t in source_state.items() if name in own and own[name].shape == t.shape}
    target.load_state_dict(fitting, strict=False)
    loaded = {id(own[name]) for name in fitting}
    return [name for name, t in own.items() if id(t) not in loaded]


def _mlp(*widths, bias=True):
    layers = []
    for i, (a, b) in enumerate(itertools.pairwise(widths)):
        layers += [nn.Linear(a, b, bias=bias)] + ([nn.ReLU()] if i < len(widths) - 2 else [])
    return nn.Sequential(*layers)


def _conv(classes):
    return nn.Sequential(
        nn.Conv2d(1, 4, 3),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(4 * 36, classes),
    )


def _trained_conv(classes):
    model = _conv(classes)
    model[1].running_mean.fill_(0.5)
    model[1].num_batches_tracked.fill_(3)
    return model.state_dict()


def _frozen_mlp():
    model = _mlp(6, 8, 3)
    model[0].requires_grad_(False)
    return model


def _without(state, *names):
    """A state dict saved the way safetensors and save_pretrained save a tied model: one name each."""
    out = OrderedDict((k, v) for k, v in state.items() if k not in names)
    out._metadata = state._metadata
    return out


def _gpt2_new_head():
    model = zoo.build("gpt2", seed=8)
    model.train()
    return model


def _transfer_family():
    """(what, make_source_state, make_target): each made twice, for the answer and the reference."""
    yield (
        "extra source keys",
        lambda: {**_mlp(4, 8, 3).state_dict(), "head.weight": torch.ones(3)},
        lambda: _mlp(4, 8, 5),
    )
    yield (
        "a new 5-class head on a conv net with BatchNorm",
        lambda: _trained_conv(10),
        lambda: _conv(5),
    )
    yield (
        "a deeper head (the page's example)",
        lambda: _mlp(20, 64, 64, 10).state_dict(),
        lambda: _mlp(20, 64, 64, 32, 2),
    )
    yield (
        "bias=False layers",
        lambda: _mlp(6, 6, 2, bias=False).state_dict(),
        lambda: _mlp(6, 6, 3),
    )
    yield (
        "a TransformerEncoderLayer with a wider feed-forward",
        lambda: nn.TransformerEncoderLayer(8, 2, 16).state_dict(),
        lambda: nn.TransformerEncoderLayer(8, 2, 32),
    )
    yield (
        "swapped shapes of one size",
        lambda: _mlp(6, 4).state_dict(),
        lambda: _mlp(4, 6),
    )
    yield (
        "a `module.`-prefixed source",
        lambda: _Named("module", _mlp(3, 3)).state_dict(),
        lambda: _mlp(3, 3),
    )
    yield (
        "GPT-2 saved without its tied lm_head.weight (as safetensors saves it)",
        lambda: _without(zoo.build("gpt2", seed=9).state_dict(), "lm_head.weight"),
        _gpt2_new_head,
    )
    yield (
        "T5 saved with `shared.weight` alone (its embed_tokens are tied to it)",
        lambda: _without(
            zoo.build("t5", seed=9).state_dict(),
            "encoder.embed_tokens.weight",
            "decoder.embed_tokens.weight",
        ),
        lambda: zoo.build("t5", seed=8),
    )
    yield (
        "a bfloat16 LLaMA into a float32 one",
        lambda: _cast(zoo.build("llama", seed=9).state_dict(), torch.bfloat16),
        lambda: zoo.build("llama", seed=8),
    )
    yield (
        "a float64 source into a target with a frozen first layer",
        lambda: _cast(_mlp(6, 8, 4).state_dict(), torch.float64),
        _frozen_mlp,
    )
    yield (
        "a ResNet's weights into the same ResNet",
        lambda: zoo.build("resnet", seed=9).state_dict(),
        lambda: zoo.build("resnet", seed=8),
    )
    yield ("an empty source", dict, lambda: _mlp(3, 2))


def _storages(tensors):
    return {
        t.untyped_storage().data_ptr()
        for t in tensors
        if isinstance(t, torch.Tensor) and t.device.type != "meta" and t.numel()
    }


def _check_transfer_values(what, after, want, before, fitting, source_state):
    """Every target entry holds the reference's value in the reference's dtype."""
    for name in want:
        if after[name].dtype != want[name].dtype:
            raise Wrong(
                f"✗ on {what} {name} became {after[name].dtype}; expected {want[name].dtype}: "
                "copy the source's values into the target's tensors (copy_ casts), don't replace .data"
            )
        if not _same_values(after[name], want[name]):
            if name in fitting and _same_values(after[name], _before_value(before, name)):
                hint = "has the same name and shape in both models but was not loaded"
                if not _before_flag(before, name):
                    hint += " (a frozen parameter is loaded too)"
                elif source_state[name].dtype != after[name].dtype:
                    hint += " (a different dtype is no reason to skip it: copy_ casts)"
            else:
                hint = "changed although the source has no tensor of its name and shape"
            raise Wrong(f"✗ on {what} {name} {hint}")


def _check_transfer_result(what, result, after, kept, fitting):
    """The answer returns the names of the target's entries that kept their own values."""
    if isinstance(result, (str, bytes, Mapping)) or result is None:
        raise Wrong("✗ return the names of the target's entries that kept their own values, as a list or set")
    try:
        returned = set(result)
    except TypeError:
        raise Wrong("✗ return the names of the target's entries that kept their own values, as a list or set") from None
    if returned - set(after):
        raise Wrong(
            "✗ you returned names the target does not have (the unexpected keys); return the "
            "target's entries that kept their own values (the missing keys)"
        )
    if returned != kept:
        missed = sorted(kept - returned) or sorted(returned - kept)
        tied = " (it is tied to an entry that was loaded, so it was overwritten)"
        raise Wrong(
            f"✗ on {what} your list is wrong about {missed[0]}"
            + (
                tied
                if missed[0] in returned and missed[0] not in fitting
                else ": every target entry that was not loaded, missing or skipped for its shape, kept its own value"
            )
        )


@checker
def check_transfer(transfer):
    """Compares the target's tensors, Parameter objects, flags and the returned names with the
    reference, on MLPs, conv nets and zoo models (tied GPT-2 and T5, bfloat16 LLaMA, ResNet)."""
    for what, make_source, make_target in _transfer_family():
        torch.manual_seed(7)
        source_state = make_source()
        torch.manual_seed(8)
        target = make_target()
        torch.manual_seed(8)
        reference_target = make_target()
        before = ModelState(target)
        shapes = {k: v.shape for k, v in target.state_dict().items()}
        fitting = {k for k, v in source_state.items() if shapes.get(k) == v.shape}
        kept = set(_reference_transfer({k: v.clone() for k, v in source_state.items()}, reference_target))
        parameters = dict(target.named_parameters(remove_duplicate=False))
        source_copy = {k: (v, v.clone()) for k, v in source_state.items()}
        result, error = attempt(transfer, source_state, target)
        if error is not None and "size mismatch" in str(error):
            raise Wrong(
                "✗ load_state_dict raised a size mismatch: strict=False forgives missing and unexpected "
                "names, not wrong shapes, so drop the entries whose shape differs first"
            )
        if error is not None:
            raise Wrong(f"✗ on {what} transfer raised {type(error).__name__}: {error}"[:200])
        if set(source_state) != set(source_copy) or any(
            source_state[k] is not v or not _same_values(v, c) for k, (v, c) in source_copy.items()
        ):
            raise Wrong(f"✗ on {what} your function changed the source state dict")
        if any(p is not parameters[n] for n, p in target.named_parameters(remove_duplicate=False)):
            raise Wrong(
                f"✗ on {what} the target's Parameter objects were replaced (assign=True?): an optimizer "
                "built before still holds the old ones; copy into them"
            )
        after, want = target.state_dict(), reference_target.state_dict()
        _check_transfer_values(what, after, want, before, fitting, source_state)
        if _storages(target.state_dict().values()) & _storages(source_state.values()):
            raise Wrong(
                f"✗ on {what} the target now shares memory with the source state dict (p.data = ...?): "
                "training one would change the other; copy the values in"
            )
        problem = ModelState(reference_target).difference(ModelState(target), same_objects=False)
        if problem:
            raise Wrong(f"✗ on {what} your function {problem}; load the values only")
        _check_transfer_result(what, result, after, kept, fitting)
    return (
        "✓ correct: entries with matching name and shape are loaded (ties, dtypes and frozen "
        "layers too), the rest keep their values and are reported"
    )


def _before_value(state: ModelState, name: str):
    """The value `name` had before the answer ran (parameters and buffers)."""
    for n, _, _, value in state.params:
        if n == name:
            return value
    for n, _, value in state.buffers:
        if n == name:
            return value
    return None


def _before_flag(state: ModelState, name: str) -> bool:
    return next((flag for n, _, flag, _ in state.params if n == name), True)
