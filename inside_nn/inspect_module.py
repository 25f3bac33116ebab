"""inspect_module: what nn.Module, .to(), state_dict and DDP will do with a model's state.

From the book "Inside nn.Module", chapter 8. Needs torch 2.6 or newer and nothing else.

    report = inspect_module(model)                      # or inspect_module(model, example_inputs)
    print(report)                                       # a table, most severe first
    report.findings                                     # the same findings as data

From a shell, on a file that defines `build_model()`:

    python inspect_module.py path/to/file.py:build_model
"""

import dataclasses
import dis
import functools
import importlib.util
import os
import random
import sys
import textwrap
import types
import weakref
from collections import defaultdict, deque

import torch
from torch import nn

BOOK = "https://inside-nn-module.github.io/inside-nn-module/"
SEVERITIES = ("error", "warning", "note")
# Where the book explains each kind of finding (page and section anchor, relative to BOOK).
SECTIONS = {
    "parameters": "notebooks/01_parameter_management.html#tied-parameters",
    "tied parameters": "notebooks/01_parameter_management.html#tied-parameters",
    "reset loop": "notebooks/02_parameter_initialization.html#reset-parameters",
    "lazy": "notebooks/03_lazy_modules.html#before-the-dry-run-shapes-checkpoints-ddp",
    "meta": "notebooks/03_meta_device.html#lazy-meta-materialize",
    "non-persistent buffer": "notebooks/03_meta_device.html#lazy-meta-assign",
    "split tie": "notebooks/03_meta_device.html#lazy-meta-assign",
    "unregistered": "notebooks/04_custom_layers.html#registration-what-nn-module-keeps-track-of",
    "non-finite": "notebooks/05_checkpoints_that_survive.html#a-loader-with-a-contract",
    "mixed devices": "notebooks/06_gpus.html#operands-on-different-devices",
    "plain attribute": "notebooks/07_buffers_and_ddp.html#what-registration-changes-in-one-process",
    "buffers under DDP": "notebooks/07_buffers_and_ddp.html#ddp-hang",
    "forward changes state": "notebooks/07_buffers_and_ddp.html#ddp-timeline",
    "frozen parameters": "notebooks/07_buffers_and_ddp.html#ddp-join",
    "mixed dtypes": "notebooks/07_buffers_and_ddp.html#ddp-to-device",
    "half-precision buffer": "notebooks/08_inspect_your_model.html#half-precision-buffers-that-accumulate",
    "forward": "notebooks/08_inspect_your_model.html#what-a-forward-changes-a-conv-net-with-batchnorm",
}
HALF = (torch.float16, torch.bfloat16)
STALL = {torch.float16: 256, torch.bfloat16: 32}  # where adding 0.1 no longer changes a running total
DDP_SYNC = (
    "DistributedDataParallel broadcasts them from rank 0 at the first forward and at every forward that "
    "follows one run with gradients enabled outside no_sync() (forward_sync_buffers=True from torch 2.13, "
    "broadcast_buffers=True before: the defaults)"
)


WIDTH = 80  # a report's lines fit an 80-column terminal; only a URL (or a path) longer than that overflows


def wrap(text: str, indent: str, first: str | None = None, width: int = WIDTH) -> list[str]:
    """`text` in lines of at most `width` characters, each starting with `indent` (the first with `first`
    when given). A word longer than a line, such as a URL or a path, is never cut: it stands on a line of
    its own, whole, so that it can still be copied or clicked."""
    first = indent if first is None else first
    return textwrap.wrap(
        text,
        width=width,
        initial_indent=first,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [first.rstrip()]


@dataclasses.dataclass(frozen=True)
class Finding:
    severity: str  # "error": wrong now; "warning": bites under a named operation; "note": worth knowing
    kind: str  # a key of SECTIONS
    path: str  # the module path ("" is the model itself), with the attribute name where there is one
    message: str  # what will happen
    link: str  # where the book explains it

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


class Report:
    """The findings, most severe first; `print(report)` shows a table, `report.findings` the data."""

    subject = "inspect_module"  # the report's first word
    whole = "(model)"  # the path of a finding about the model as a whole
    # What to do for the forward checks when no forward was run (the command line says its own way).
    forward_hint = "pass example_inputs (inspect_module(model, example_inputs)) to run them"

    def __init__(
        self,
        model_name: str,
        findings: list[Finding],
        buffers: list[dict],
        forward_run: bool = True,
    ):
        order = {s: i for i, s in enumerate(SEVERITIES)}
        self.model_name = model_name
        self.findings = sorted(findings, key=lambda f: (order[f.severity], f.kind, f.path))
        self.buffers = buffers  # one dict per buffer: path, persistent, dtype, shape, bytes
        self.forward_run = forward_run  # False: inspect_module had no example_inputs

    def __len__(self) -> int:
        return len(self.findings)

    def __iter__(self):
        return iter(self.findings)

    def kinds(self) -> set[str]:
        return {f.kind for f in self.findings}

    def of_kind(self, kind: str) -> list[Finding]:
        return [f for f in self.findings if f.kind == kind]

    def closing(self) -> list[str]:
        """Sentences printed after the findings: here, that the forward checks were skipped."""
        if self.forward_run:
            return []
        return [
            (
                "No forward was run, so the forward checks were skipped (what a forward "
                "changes: buffers, plain attributes, parameters, generators; whether it "
                f"runs in eval and train mode): {self.forward_hint}."
            )
        ]

    def __str__(self) -> str:
        counts = {s: sum(f.severity == s for f in self.findings) for s in SEVERITIES}
        head = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items())
        lines = wrap(f"{self.subject}({self.model_name}): {head}", " " * 4, first="")
        for f in self.findings:
            lines += wrap(
                f"{f.kind} · {f.path or self.whole}",
                " " * 8,
                first=f"{f.severity.upper():8}",
            )
            lines += wrap(f.message, " " * 8)
            lines.append(f"        see {f.link}")  # a URL is never cut
        for sentence in self.closing():
            lines += wrap(sentence, "")
        return "\n".join(lines)

    __repr__ = __str__


# In the package, the report types are inside_nn.report's (tests/test_report.py holds them equal to the above), so
# inspect_checkpoint's CheckpointReport is a Report of this module too. The download keeps the definitions above.
if __name__ == "inside_nn.inspect_module":
    from inside_nn.report import BOOK, SEVERITIES, WIDTH, Finding, Report, wrap


# Every tensor access goes through these: a model can hold sparse, meta, quantized, nested and complex tensors,
# lazy placeholders without a shape, zero-size tensors and tensor subclasses, and the report must not fail on any.
_COMPRESSED = {
    torch.sparse_csr: ("crow_indices", "col_indices"),
    torch.sparse_bsr: ("crow_indices", "col_indices"),
    torch.sparse_csc: ("ccol_indices", "row_indices"),
    torch.sparse_bsc: ("ccol_indices", "row_indices"),
}


def _lazy(t: torch.Tensor) -> bool:
    """An UninitializedParameter or UninitializedBuffer of a lazy module: no shape, no values yet."""
    return isinstance(t, nn.parameter.UninitializedTensorMixin)


def _try(read, default=None):
    try:
        return read()
    except Exception:  # noqa: BLE001 (a tensor that cannot say is reported without it)
        return default


def _is_meta(t: torch.Tensor) -> bool:
    return bool(_try(lambda: t.is_meta, False))


def _layout(t: torch.Tensor) -> str:
    """The tensor's kind in a word: strided (an ordinary tensor), sparse_coo, sparse_csr, ..., nested,
    quantized, uninitialized."""
    if _lazy(t):
        return "uninitialized"
    if _try(lambda: t.is_nested, False):
        return "nested"
    if _try(lambda: t.is_quantized, False):
        return "quantized"
    return str(_try(lambda: t.layout, "unknown")).removeprefix("torch.")


def _shape(t: torch.Tensor) -> tuple | None:
    """The shape, or None where there is none (lazy placeholders, nested tensors)."""
    return None if _lazy(t) else _try(lambda: tuple(t.shape))


def _parts(t: torch.Tensor, coalesce: bool = False) -> tuple | None:
    """The dense tensors a tensor's data lives in: itself; a sparse tensor's indices and values; a nested
    tensor's pieces. None where there is no data to read (lazy, meta, quantized, an unknown kind)."""
    if _lazy(t) or _is_meta(t):
        return None
    try:
        if t.layout == torch.sparse_coo:
            if coalesce:
                t = t.coalesce()
                return (t.indices(), t.values())
            return (t._indices(), t._values())
        if t.layout in _COMPRESSED:
            return (*(getattr(t, n)() for n in _COMPRESSED[t.layout]), t.values())
        if t.is_nested:
            return tuple(t.unbind())
        if t.layout == torch.strided and not t.is_quantized:
            return (t,)
    except Exception:  # noqa: BLE001, S110 (an unknown kind: no data to read)
        pass
    return None


def _numel(t: torch.Tensor) -> int:
    return 0 if _lazy(t) else _try(t.numel, 0)


def _nbytes(t: torch.Tensor) -> int:
    """Bytes the tensor holds (a sparse tensor: its indices and values; a lazy placeholder: 0)."""
    parts = None if _layout(t) in ("strided", "quantized") else _parts(t)  # a lazy placeholder's: None
    if parts is not None:
        return sum(_try(lambda p=p: p.nbytes, 0) for p in parts)
    nbytes = _try(lambda: t.nbytes)
    return nbytes if nbytes is not None else _try(lambda: t.numel() * t.element_size(), 0)


def _floating(t: torch.Tensor) -> bool:
    return bool(_try(lambda: t.is_floating_point() or t.is_complex(), False))


def _storage_key(t: torch.Tensor):
    """(device, address) of the storage an ordinary (strided, materialized) tensor views; None for other kinds
    and for empty storages, whose address 0 every one of them shares."""
    if _lazy(t) or _is_meta(t) or _layout(t) != "strided":
        return None
    address = _try(lambda: t.untyped_storage().data_ptr(), 0)
    return (str(t.device), address) if address else None


def _mib(nbytes: int) -> str:
    return f"{nbytes / 2**20:.2f} MiB" if nbytes >= 2**17 else f"{nbytes} bytes"


def _dtype(t: torch.Tensor) -> str:
    return str(_try(lambda: t.dtype, "unknown")).removeprefix("torch.")


def _describe(t: torch.Tensor) -> str:
    layout = _layout(t)
    shape = _shape(t)
    unknown = "without a shape yet" if layout == "uninitialized" else "of unknown shape"
    shape = unknown if shape is None else "×".join(str(n) for n in shape) or "scalar"
    kind = "" if layout == "strided" else f"{layout} "
    device = _try(lambda: t.device.type, "unknown device")
    return f"{kind}{_dtype(t)} {shape} on {device}"


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _plain_object(value) -> bool:
    """An instance of a class of the user's or a library's (not torch's, not the standard library's) that keeps
    its attributes in `__dict__`: a KV cache object (gpt-fast's KVCache, a Hugging Face Cache), a config."""
    if isinstance(
        value,
        type
        | types.ModuleType
        | types.FunctionType
        | types.MethodType
        | types.BuiltinFunctionType
        | functools.partial
        | nn.Module
        | torch.Tensor
        | torch.Generator
        | random.Random,
    ) or not (isinstance(_try(lambda: vars(value)), dict) or _slots(value)):
        return False
    top = (getattr(type(value), "__module__", None) or "builtins").partition(".")[0]
    return top != "torch" and top not in sys.stdlib_module_names


def _slots(value) -> tuple:
    """The `__slots__` names an object's classes declare (not `__dict__` or `__weakref__`)."""
    names = []
    for klass in type(value).__mro__:
        declared = vars(klass).get("__slots__", ())
        for name in (declared,) if isinstance(declared, str) else declared:
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    return tuple(names)


def _record(value) -> bool:
    """A dataclass instance, a SimpleNamespace or a plain object (see _plain_object): an object whose
    attributes are its content."""
    dataclass = dataclasses.is_dataclass(value) and not isinstance(value, type | nn.Module | torch.Tensor)
    return isinstance(value, types.SimpleNamespace) or dataclass or _plain_object(value)


def _fields(value) -> dict:
    if dataclasses.is_dataclass(value):
        return {f.name: getattr(value, f.name, None) for f in dataclasses.fields(value)}
    fields = {
        name: getattr(value, name) for name in _slots(value) if _try(lambda name=name: hasattr(value, name), False)
    }
    fields.update(_try(lambda: vars(value), {}))
    return fields


def _items(value):
    """(label, item) for what a plain container holds (lists, tuples, deques, dicts, sets, dataclass
    instances, SimpleNamespaces, plain objects' attributes); None for anything else."""
    if isinstance(value, list | tuple | deque):
        return [(f"[{i}]", item) for i, item in enumerate(value)]
    if isinstance(value, dict):
        return [(f"[{key!r}]", item) for key, item in value.items()]
    if isinstance(value, set | frozenset):
        return [("{*}", item) for item in value]
    if _record(value):
        return [(f".{name}", item) for name, item in _fields(value).items()]
    return None


_DEEP = 10  # how many levels of containers and objects the walk of an attribute's value goes down


def _walk(value, where: str, cut: list | None = None):
    """(where, item) for an attribute value and all its containers hold, breadth-first, so that each object
    comes once, under its shortest path (a cycle cannot lengthen it), down to _DEEP levels; the paths of the
    containers it stops at go to `cut`."""
    seen, level = set(), [(where, value)]
    for depth in range(_DEEP + 1):
        below = []
        for path, item in level:
            if id(item) in seen:
                continue
            seen.add(id(item))
            yield path, item
            if isinstance(item, torch.Tensor | nn.Module):
                continue
            inner = _items(item)
            if inner and depth == _DEEP and cut is not None:
                cut.append(path)
            elif inner:  # (at depth _DEEP without `cut`, what it adds is never walked)
                below += [(f"{path}{label}", x) for label, x in inner]
        if not below:
            return
        level = below


def _found_in(value, where: str, kind: type | tuple, cut: list | None = None):
    """(where, item) for every `kind` in a plain attribute value, looking into the containers it holds."""
    return ((w, x) for w, x in _walk(value, where, cut) if isinstance(x, kind))


def _tensors_in(value, where: str):
    return _found_in(value, where, torch.Tensor)


def _entries(module: nn.Module, registry: str) -> dict:
    """A module's registry (`_parameters`, `_buffers`, `_modules`) as a dict: the dict itself for an ordinary
    module, a copy for a TorchScript module, which keeps its registries in wrappers."""
    found = vars(module).get(registry)
    return found if isinstance(found, dict) else {} if found is None else _try(lambda: dict(found.items()), {})


def _named_modules(model: nn.Module, remove_duplicate: bool = True):
    """(path, module) as model.named_modules() gives them, read from the `_modules` registries directly, so that
    an instance attribute shadowing a method (a list called `parameters`) or a cycle cannot break the walk."""
    seen, stack = set(), [("", model, ())]
    while stack:
        prefix, module, above = stack.pop()
        if remove_duplicate and id(module) in seen:
            continue
        seen.add(id(module))
        yield prefix, module
        children = [
            (_join(prefix, name), child, (*above, id(module)))
            for name, child in _entries(module, "_modules").items()
            if isinstance(child, nn.Module) and id(child) not in above
        ]
        stack.extend(reversed(children))


def _named_tensors(model: nn.Module, registry: str, remove_duplicate: bool = True):
    """(path, tensor) of every parameter (registry "_parameters") or buffer ("_buffers"), as named_parameters()
    and named_buffers() give them."""
    seen = set()
    for prefix, module in _named_modules(model, remove_duplicate):
        for name, t in _entries(module, registry).items():
            if t is None or (remove_duplicate and id(t) in seen):
                continue
            seen.add(id(t))
            yield _join(prefix, name), t


def _state_of(model: nn.Module, remove_duplicate: bool = True):
    return [
        *_named_tensors(model, "_parameters", remove_duplicate),
        *_named_tensors(model, "_buffers", remove_duplicate),
    ]


class _Registered:
    """What nn.Module tracks in a model: every module, parameter and buffer by identity, and the storages of the
    tensors among them, so that a plain list holding them again (an RNN's _flat_weights, DDP's bucket lists,
    detectron2's `self.lateral_convs = []` next to add_module) or a view of one is known as an alias."""

    def __init__(self, model: nn.Module):
        self.ids = set()
        self.storages = set()
        for _, module in _named_modules(model):
            self.ids.add(id(module))
            for t in [*_entries(module, "_parameters").values(), *_entries(module, "_buffers").values()]:
                if t is not None:
                    self.ids.add(id(t))
                    key = _storage_key(t)
                    if key is not None:
                        self.storages.add(key)

    def holds(self, item) -> bool:
        return id(item) in self.ids or (isinstance(item, torch.Tensor) and _storage_key(item) in self.storages)

    def unregistered_state(self, module: nn.Module) -> list[tuple[str, torch.Tensor]]:
        """The parameters and buffers of a module the model does not hold anywhere."""
        return [(name, t) for name, t in _state_of(module, remove_duplicate=False) if not self.holds(t)]

    def alias_only(self, value, also: frozenset = frozenset()) -> bool:
        """A container that owns no tensor or module: every one it holds is registered (or in `also`, ids of
        what other attributes hold), and weak references own nothing (an RNN's `_flat_weight_refs`)."""
        if _items(value) is None:
            return False
        refs = [item for _, item in _found_in(value, "", (torch.Tensor, nn.Module, *_WEAK))]
        return bool(refs) and all(isinstance(item, _WEAK) or id(item) in also or self.holds(item) for item in refs)


_WEAK = (weakref.ReferenceType, weakref.ProxyType, weakref.CallableProxyType)


# nn.Module's own bookkeeping (registries, hook dicts, the training flag): never a plain attribute.
_INTERNAL = frozenset(vars(nn.Module()))


def _code_writes(code: types.CodeType, names: set, seen: dict) -> None:
    """Attribute names a function stores (`module.weight = ...`) and strings it names (`setattr(module, "w", ...)`)."""
    if id(code) in seen:
        return
    seen[id(code)] = code
    names.update(i.argval for i in dis.get_instructions(code) if i.opname == "STORE_ATTR")
    for const in code.co_consts:
        if isinstance(const, str):
            names.add(const)
        elif isinstance(const, types.CodeType):
            _code_writes(const, names, seen)


def _hook_writes(hook, names: set, seen: dict, depth: int = 0) -> None:
    """What a hook may write on its module: the attributes its code stores, and the attribute names it holds
    (WeightNorm's and SpectralNorm's `name`, a pruning method's `_tensor_name`, a closure's or a partial's
    strings), following the functions and methods it calls a few levels deep. `seen` maps id to object, which
    keeps each visited object alive (and its id unique) until the walk ends."""
    if depth > 3 or id(hook) in seen:
        return
    seen[id(hook)] = hook
    if isinstance(hook, str):
        names.add(hook)
    elif isinstance(hook, list | tuple):
        for item in hook:
            _hook_writes(item, names, seen, depth + 1)
    elif isinstance(hook, functools.partial):
        for item in (hook.func, *hook.args, *hook.keywords.values()):
            _hook_writes(item, names, seen, depth + 1)
    elif isinstance(hook, types.MethodType):
        _hook_writes(hook.__func__, names, seen, depth + 1)
        _called_methods(hook.__func__, hook.__self__, names, seen, depth)
        if not isinstance(hook.__self__, nn.Module):
            _hook_writes(vars(hook.__self__) if hasattr(hook.__self__, "__dict__") else (), names, seen, depth + 1)
    elif isinstance(hook, types.FunctionType):
        _code_writes(hook.__code__, names, seen)
        for cell in hook.__closure__ or ():
            _hook_writes(_try(lambda cell=cell: cell.cell_contents), names, seen, depth + 1)
        for name in hook.__code__.co_names:
            called = hook.__globals__.get(name)
            if isinstance(called, types.FunctionType):
                _hook_writes(called, names, seen, depth + 1)
    elif isinstance(hook, dict):
        _hook_writes(list(hook.values()), names, seen, depth)
    elif callable(hook) and not isinstance(hook, type | nn.Module):
        call = getattr(type(hook), "__call__", None)  # noqa: B004 (the class's method, not the instance's)
        if isinstance(call, types.FunctionType):
            _hook_writes(call, names, seen, depth + 1)
            _called_methods(call, hook, names, seen, depth)
        if hasattr(hook, "__dict__"):
            _hook_writes(list(vars(hook).values()), names, seen, depth + 1)


def _called_methods(function, owner, names: set, seen: dict, depth: int) -> None:
    """The methods of `owner`'s class that `function` names (self.compute_weight(module), ...)."""
    for name in function.__code__.co_names:
        method = getattr(type(owner), name, None)
        if isinstance(method, types.FunctionType):
            _hook_writes(method, names, seen, depth + 1)


def _hook_outputs(module: nn.Module) -> set[str]:
    """Plain attributes derived from registered state: what a forward pre-hook (the module's or a global one)
    recomputes (weight_norm's, spectral_norm's, prune's `weight`), and a list rebuilt from a sibling list of
    names (an RNN's `_flat_weights` from `_flat_weights_names`, its weights parametrized or not)."""
    hooks = [
        *vars(module).get("_forward_pre_hooks", {}).values(),
        *getattr(nn.modules.module, "_global_forward_pre_hooks", {}).values(),
    ]
    names, seen = set(), {}
    for hook in hooks:
        _try(lambda hook=hook: _hook_writes(hook, names, seen))
    own = vars(module)
    names |= {n for n, v in own.items() if type(v) is list and len(v) == len(own.get(n + "_names", ()))}
    return {name for name in names if name in vars(module) and name not in _INTERNAL}


def _plain_attributes(model: nn.Module, registered: _Registered):
    """(module path, module, attribute name, value, [(where, item)]) for every attribute holding tensors or
    modules that nn.Module does not track anywhere in the model. Items the model registers elsewhere (aliases)
    and attributes a forward pre-hook recomputes are left out."""
    for prefix, module in _named_modules(model):
        derived = _hook_outputs(module)
        for name, value in vars(module).items():
            if name in _INTERNAL or name in derived:
                continue
            items = [
                (where, item)
                for where, item in _found_in(value, name, (torch.Tensor, nn.Module))
                if not registered.holds(item)
            ]
            if items:
                yield prefix, module, name, value, items


def _finding(severity: str, kind: str, path: str, message: str) -> Finding:
    return Finding(severity, kind, path, message, BOOK + SECTIONS[kind])


class _Findings(list):
    """A list of findings that `add` grows one finding at a time, each linked to where the book explains it."""

    def add(self, severity: str, kind: str, path: str, message: str) -> None:
        self.append(_finding(severity, kind, path, message))


def _trainable_leaf(t: torch.Tensor) -> bool:
    """A Parameter, or a plain tensor made to be trained (a leaf that requires grad, as DARTS's alphas)."""
    return isinstance(t, nn.Parameter) or bool(_try(lambda: t.requires_grad and t.is_leaf, False))


def _plain_findings(model: nn.Module, registered: _Registered) -> tuple[list[Finding], list]:
    """Plain attributes: tensors, Parameters and modules nn.Module does not know about anywhere in the model."""
    findings, tensors, seen = _Findings(), [], set()
    buffers = {  # id -> (path, persistent)
        id(t): (_join(prefix, name), name not in vars(m).get("_non_persistent_buffers_set", ()))
        for prefix, m in _named_modules(model)
        for name, t in _entries(m, "_buffers").items()
        if t is not None
    }
    for prefix, module in _named_modules(model):
        derived = _hook_outputs(module)
        for name, value in vars(module).items():
            if id(value) in buffers and name not in _INTERNAL and name not in derived:
                findings.add(
                    "warning",
                    "plain attribute",
                    _join(prefix, name),
                    f"plain attribute holding buffer {buffers[id(value)][0]} itself: "
                    + (
                        ".to(), .half() and load_state_dict(assign=True) put"
                        if buffers[id(value)][1]
                        else ".to() and .half() put"
                    )
                    + " a new tensor in the buffer and leave this name with the old one, in the old "
                    "dtype and device; read the buffer, or register a second buffer",
                )
    for prefix, _, name, value, items in _plain_attributes(model, registered):
        contained = _items(value) is not None
        holder = f"a plain {type(value).__name__}" if contained else "a plain attribute"
        for where, item in items:
            if id(item) in seen:
                continue  # one finding per object, under the first name it has
            seen.add(id(item))
            path = _join(prefix, where)
            if isinstance(item, nn.Module):
                state = registered.unregistered_state(item)
                if state:
                    shown = ", ".join(n for n, _ in state[:3]) + (", ..." if len(state) > 3 else "")
                    findings.add(
                        "error",
                        "unregistered",
                        path,
                        f"an nn.Module in {holder}, holding state the model does not register ({shown}): "
                        "its parameters are not in parameters() or state_dict and .to() skips it; "
                        + (
                            "hold it in nn.ModuleList / nn.ModuleDict"
                            if contained
                            else "assign it with setattr so that nn.Module registers it"
                        ),
                    )
                elif not _state_of(item) and not isinstance(item, torch.jit.ScriptModule):
                    findings.add(
                        "note",
                        "unregistered",
                        path,
                        f"an nn.Module in {holder}: no state of its own, but model.train()/.eval(), .apply() "
                        "and module hooks do not reach it (a Dropout there stays in training mode)",
                    )
                continue
            tensors.append((path, item))
            if _trainable_leaf(item):
                what = "an nn.Parameter" if isinstance(item, nn.Parameter) else "a tensor that requires grad"
                findings.add(
                    "error",
                    "unregistered",
                    path,
                    f"{what} in {holder} ({_describe(item)}): not in parameters(), so an optimizer built "
                    "from them never trains it, and not in state_dict; "
                    + (
                        "hold it as an nn.Parameter in nn.ParameterList / nn.ParameterDict"
                        if contained
                        else "make it an nn.Parameter attribute (or register_parameter)"
                    ),
                )
            else:
                findings.add(
                    "warning",
                    "plain attribute",
                    path,
                    f"plain tensor attribute ({_describe(item)}, {_mib(_nbytes(item))}): not moved by .to(), "
                    "not cast by .half()/.to(dtype), not in state_dict, never synced by DDP; "
                    "register it as a buffer if it is state",
                )
    return findings, tensors


def _state_findings(model: nn.Module) -> tuple[list[Finding], list[dict]]:
    """Findings about what the model holds: plain tensor attributes, buffers, parameters, what a reset loop
    would do, and the devices, dtypes and values of all of it; and the buffer table."""
    registered = _Registered(model)
    findings, plain_tensors = _plain_findings(model, registered)
    buffer_findings, buffers = _buffer_findings(model)
    findings += [*buffer_findings, *_parameter_findings(model), *_reset_loop_findings(model)]
    findings += _value_findings([(n, t) for n, t in _state_of(model) if not _lazy(t)] + plain_tensors)
    return findings, buffers


def _buffer_findings(model: nn.Module) -> tuple[list[Finding], list[dict]]:
    """Buffers: what each is, and what DDP does with all of them."""
    findings = _Findings()
    buffers = []
    for prefix, module in _named_modules(model):
        for name, buf in _entries(module, "_buffers").items():
            if buf is None:
                continue
            path = _join(prefix, name)
            persistent = name not in vars(module).get("_non_persistent_buffers_set", ())
            buffers.append(
                {
                    "path": path,
                    "persistent": persistent,
                    "dtype": _dtype(buf),
                    "shape": _shape(buf),
                    "bytes": _nbytes(buf),
                }
            )
            if not persistent:
                findings.add(
                    "note",
                    "non-persistent buffer",
                    path,
                    f"non-persistent buffer ({_describe(buf)}): moves with .to() but is not in state_dict, so "
                    "load_state_dict(assign=True) after meta construction leaves it on meta and to_empty leaves "
                    "garbage in it; recompute it after materializing",
                )
            if _try(lambda buf=buf: buf.dtype) in HALF:
                findings.add(
                    "note",
                    "half-precision buffer",
                    path,
                    f"half-precision buffer ({_describe(buf)}): if it accumulates, small updates vanish (a running "
                    f"total of 0.1s stops at {STALL[buf.dtype]} in {_dtype(buf)}); keep statistics in float32",
                )
    if buffers:
        total = sum(b["bytes"] for b in buffers)
        largest = sorted(buffers, key=lambda b: -b["bytes"])[:3]
        shown = ", ".join(
            f"{b['path']} ({'persistent' if b['persistent'] else 'non-persistent'} {b['dtype']}, {_mib(b['bytes'])})"
            for b in largest
        )
        findings.add(
            "note",
            "buffers under DDP",
            "",
            f"{len(buffers)} buffer(s), {_mib(total)} in all ({'largest: ' if len(buffers) > 3 else ''}{shown}): "
            f"{DDP_SYNC}. Validation through the DDP wrapper on rank 0 alone, while the other ranks wait in a "
            "barrier, then hangs until the process group's timeout: evaluate ddp_model.module instead",
        )

    return findings, buffers


def _parameter_findings(model: nn.Module) -> list[Finding]:
    """Parameters: unique count, ties (kept and split), frozen ones."""
    findings = _Findings()
    names_of = defaultdict(list)
    objects = {}
    for name, p in _named_tensors(model, "_parameters", remove_duplicate=False):
        names_of[id(p)].append(name)
        objects[id(p)] = p
    ready = [p for p in objects.values() if not _lazy(p)]
    unique = sum(_numel(p) for p in ready)
    trainable = sum(_numel(p) for p in ready if p.requires_grad)
    pending = len(objects) - len(ready)
    if objects:
        findings.add(
            "note",
            "parameters",
            "",
            f"{unique:,} parameters in {len(ready)} tensors ({trainable:,} trainable)"
            + (f", plus {pending} lazy tensor(s) of unknown size" if pending else ""),
        )
    for names in names_of.values():
        if len(names) > 1:
            findings.add(
                "note",
                "tied parameters",
                names[0],
                f"one Parameter under {len(names)} names ({', '.join(names)}): counted once, optimized once. .to() "
                "and the default load_state_dict keep the tie; to_empty from meta gives each name its own "
                "Parameter, and load_state_dict(assign=True) gives each its own Parameter over one storage: re-tie "
                "after materializing",
            )
    by_storage = defaultdict(list)
    for key, p in objects.items():
        storage = _storage_key(p)
        if storage is not None and _numel(p):
            by_storage[(*storage, _try(p.storage_offset), _shape(p))].append(key)
    for keys in by_storage.values():
        if len(keys) > 1:
            names = [names_of[k][0] for k in keys]
            findings.add(
                "warning",
                "split tie",
                names[0],
                f"{len(keys)} Parameter objects over one storage ({', '.join(names)}): a tie broken by "
                "load_state_dict(assign=True); parameters() lists each, their gradients are split and an optimizer "
                "keeps a state per object: re-tie them (one Parameter under every name)",
            )
    frozen = [names_of[k][0] for k, p in objects.items() if not p.requires_grad]
    if frozen:
        shown = ", ".join(frozen[:4]) + (", ..." if len(frozen) > 4 else "")
        findings.add(
            "note",
            "frozen parameters",
            "",
            f"{len(frozen)} frozen tensor(s) ({shown}): no gradient. DDP all-reduces gradients only of the "
            "parameters that required grad when it wrapped the model (unfreeze later and re-wrap), and Join's "
            "final broadcast copies every parameter, frozen ones too, from the last rank to join",
        )

    return findings


def _reset_loop_findings(model: nn.Module) -> list[Finding]:
    """Initialization: what a `for m in model.modules(): m.reset_parameters()` loop misses or gets wrong."""
    findings, redrawn = _Findings(), {}
    for prefix, module in _named_modules(model):
        own = [n for n, p in _entries(module, "_parameters").items() if p is not None]
        held = [*_entries(module, "_parameters").values(), *_entries(module, "_buffers").values()]
        if any(_lazy(t) for t in held if t is not None):  # by type: a plain Module may hold one (PyG's Linear)
            findings.add(
                "warning",
                "lazy",
                prefix,
                f"lazy {type(module).__name__} not materialized yet: run one forward (a dry run) before "
                "anything reads shapes: counting parameters, an init function, DDP and Adagrad raise "
                "(SGD and Adam built before are fine: the dry run fills the same Parameters)",
            )
        elif isinstance(module, nn.MultiheadAttention):
            skipped = [n for n in own if n != "out_proj"]
            bias = (
                " and gives out_proj.bias a random draw where its own _reset_parameters() sets zeros"
                if module.out_proj.bias is not None
                else ""
            )
            findings.add(
                "warning",
                "reset loop",
                prefix,
                f"MultiheadAttention has no reset_parameters(): a reset loop skips {', '.join(skipped)}{bias}; "
                "call its _reset_parameters() (private) or load weights",
            )
        elif isinstance(module, nn.Transformer):
            findings.add(
                "warning",
                "reset loop",
                prefix,
                "nn.Transformer re-initializes every matrix with xavier_uniform_ in __init__; a reset loop gives "
                "them the Linear defaults instead",
            )
        elif own and _redrawn(model, prefix, module, own, redrawn):
            continue  # an enclosing reset_parameters() redraws them (the RNN family loops over self.parameters())
        elif own and type(module).__name__ == "ParametrizationList":
            findings.add(
                "warning",
                "reset loop",
                prefix,
                f"the original of a parametrized tensor ({', '.join(own)}): ParametrizationList has no "
                "reset_parameters(), and the owner's reset_parameters() initializes the computed tensor, not "
                "this original, so a reset loop leaves it as it is; initialize before register_parametrization",
            )
        elif own and not hasattr(module, "reset_parameters"):
            findings.add(
                "warning",
                "reset loop",
                prefix,
                f"{type(module).__name__} holds parameters ({', '.join(own)}) but has no reset_parameters(): a "
                "reset loop (or to_empty + reset) leaves them as they are",
            )

    return findings


def _redrawn(model: nn.Module, prefix: str, module: nn.Module, names: list, cache: dict) -> bool:
    """Whether an enclosing module's reset_parameters() redraws the parameters `names` of a module with none of its
    own or of a ParametrizationList (the RNN family loops over self.parameters()); `cache`: id -> _redraws."""
    if type(module).__name__ != "ParametrizationList" and hasattr(module, "reset_parameters"):
        return False
    parts = prefix.split(".") if prefix else []
    for i in range(len(parts) - 1, -1, -1):
        owner = _try(lambda i=i: model.get_submodule(".".join(parts[:i])))
        if callable(getattr(owner, "reset_parameters", None)):
            if id(owner) not in cache:
                cache[id(owner)] = _redraws(owner)
            if all(_join(".".join(parts[i:]), n) in cache[id(owner)] for n in names):
                return True
    return False


def _redraws(owner: nn.Module) -> set:
    """The parameter names owner.reset_parameters() redraws: run on a copy whose floating parameters are NaN (CPU
    random state forked, on CPU), those no longer NaN. Nothing for an owner over 1 GiB or whose reset fails."""
    try:
        if sum(_nbytes(t) for t in owner.parameters()) > 2**30:
            return set()
        twin = __import__("copy").deepcopy(owner).to_empty(device="cpu")  # values are NaN next
        with torch.no_grad():
            for t in (t for t in twin.parameters() if _floating(t)):
                t.fill_(float("nan"))
        with torch.random.fork_rng(devices=[]):
            twin.reset_parameters()
        return {n for n, t in twin.named_parameters(remove_duplicate=False) if _floating(t) and not t.isnan().any()}
    except Exception:  # noqa: BLE001 (an owner whose reset cannot run on a copy proves nothing)
        return set()


def _value_findings(tensors: list[tuple[str, torch.Tensor]]) -> list[Finding]:
    """Device, dtype and values of everything the model holds (lazy tensors left out)."""
    findings = _Findings()
    on_meta = [n for n, t in tensors if _is_meta(t)]
    if on_meta:
        shown = ", ".join(on_meta[:4]) + (", ..." if len(on_meta) > 4 else "")
        findings.add(
            "error",
            "meta",
            "",
            f"{len(on_meta)} tensor(s) on the meta device ({shown}): they hold no data and a forward fails; "
            "materialize with to_empty() plus each module's own init, or load weights with assign=True and "
            "recompute non-persistent buffers",
        )
    devices = defaultdict(int)
    for _, t in tensors:
        devices[str(_try(lambda t=t: t.device, "unknown"))] += 1
    if len(devices) > 1:
        findings.add(
            "warning",
            "mixed devices",
            "",
            "tensors on several devices ("
            + ", ".join(f"{d}: {n}" for d, n in sorted(devices.items()))
            + "): a forward that combines them fails",
        )
    dtypes = defaultdict(int)
    for _, t in tensors:
        if _try(t.is_floating_point, False):
            dtypes[_dtype(t)] += 1
    if len(dtypes) > 1:
        findings.add(
            "note",
            "mixed dtypes",
            "",
            "floating tensors in several dtypes ("
            + ", ".join(f"{d}: {n}" for d, n in sorted(dtypes.items()))
            + "): intended in mixed precision, a bug after a partial cast",
        )
    for name, t in tensors:
        found = _non_finite(t)
        if found == "NaN" or (found == "±inf" and isinstance(t, nn.Parameter)):
            findings.add(
                "error",
                "non-finite",
                name,
                f"holds {found} ({_describe(t)}): every output it touches is non-finite",
            )
    return findings


def _non_finite(t: torch.Tensor) -> str | None:
    """What a tensor's stored values hold that is not finite: "NaN", "±inf" or None. A sparse tensor's values
    and a nested tensor's pieces are read; meta, lazy and quantized tensors have nothing to read."""
    if not _floating(t) or _try(lambda: t.dtype.itemsize, 1) == 1:
        return None  # no floating values, or a float8 type isnan() does not cover
    has_inf = False
    for part in _parts(t) or ():
        if not _floating(part) or not _numel(part):
            continue
        try:
            with torch.no_grad():
                if bool(torch.isfinite(part.sum())):
                    continue  # one reduction; a NaN or inf anywhere makes the sum non-finite
                if bool(torch.isnan(part).any()):
                    return "NaN"
                has_inf = has_inf or bool(torch.isinf(part).any())
        except Exception:  # noqa: BLE001, S112 (a tensor subclass without these operations)
            continue
    return "±inf" if has_inf else None


def _containers(value, cut: list | None = None, where: str = ""):
    """The mutable containers inside an attribute value (lists, deques, dicts, sets, dataclass instances,
    SimpleNamespaces, plain objects), with a shallow copy of each."""
    for _, item in _walk(value, where, cut):
        if isinstance(item, torch.Tensor | nn.Module):
            continue
        if isinstance(item, list | deque):
            yield item, list(item)
        elif isinstance(item, dict):
            yield item, dict(item)
        elif isinstance(item, set):
            yield item, set(item)
        elif _record(item):
            yield item, _fields(item)


def _put_items(container, items) -> None:
    """Give a container back the items it had."""
    if isinstance(container, list):
        container[:] = items
    elif isinstance(container, deque):
        container.clear()
        container.extend(items)
    elif isinstance(container, dict | set):
        container.clear()
        container.update(items)
    else:  # a dataclass instance, a SimpleNamespace (frozen dataclasses too) or a plain object
        if not dataclasses.is_dataclass(container):  # drop what the forward added
            for name in _fields(container).keys() - items.keys():
                _try(lambda name=name: object.__delattr__(container, name))
        for name, item in items.items():
            if getattr(container, name, _MISSING) is not item:
                _try(lambda name=name, item=item: object.__setattr__(container, name, item))


def _numpy():
    """NumPy, where it is installed (this file needs only torch)."""
    return _try(lambda: __import__("numpy"))


def _rng_states():
    """The global random states a forward can draw from: torch's (the CPU's and the accelerators' in use),
    Python's `random` (LayerDrop draws from it) and NumPy's legacy global one."""
    states = [(torch.set_rng_state, torch.get_rng_state()), (random.setstate, random.getstate())]
    numpy = _numpy()
    if numpy is not None:
        states.append((numpy.random.set_state, numpy.random.get_state()))
    if torch.cuda.is_initialized():
        states.append((torch.cuda.set_rng_state_all, torch.cuda.get_rng_state_all()))
    if torch.backends.mps.is_available():
        states.append((torch.mps.set_rng_state, torch.mps.get_rng_state()))
    return states


def _generator_kinds() -> tuple:
    """The random number generators a model can hold: torch's, Python's and NumPy's (where installed)."""
    numpy = _numpy()
    return (torch.Generator, random.Random) + ((numpy.random.Generator, numpy.random.RandomState) if numpy else ())


def _generator_state(g):
    """A copy of a generator's state, or None where it has none to read (random.SystemRandom)."""
    if isinstance(g, torch.Generator):
        return g.get_state()
    if isinstance(g, random.Random):
        return _try(g.getstate)
    if hasattr(g, "bit_generator"):  # a NumPy Generator
        return g.bit_generator.state  # a new dict each read
    return _try(lambda: g.get_state(legacy=False))  # a NumPy RandomState


def _set_generator_state(g, state) -> None:
    if isinstance(g, torch.Generator):
        g.set_state(state)
    elif isinstance(g, random.Random):
        g.setstate(state)
    elif hasattr(g, "bit_generator"):
        g.bit_generator.state = state
    else:
        g.set_state(state)


def _equal_states(a, b) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return torch.equal(a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal_states(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_equal_states(x, y) for x, y in zip(a, b, strict=True))
    if hasattr(a, "shape") and hasattr(b, "shape"):  # NumPy arrays
        return bool(_numpy().array_equal(a, b))
    return bool(a == b)


def _copy(t: torch.Tensor):
    """A copy of a tensor's values to compare and restore, or None where it has none to copy."""
    return None if _lazy(t) or _is_meta(t) else _try(lambda: t.detach().clone())


def _snapshot(model: nn.Module):
    """Every module's attributes, registered tensors and plain containers, with copies of every tensor's values,
    and the states of the random number generators: the global ones and any torch.Generator the model holds."""
    saved = [
        (m, dict(vars(m)), *(dict(_entries(m, r)) for r in ("_parameters", "_buffers", "_modules")))
        for _, m in _named_modules(model)
    ]
    values, containers, generators, cut = {}, {}, {}, []
    paths = {id(m): p for p, m in _named_modules(model)}
    for module, attrs, params, bufs, _ in saved:
        tensors = [*params.values(), *bufs.values()]
        for name, value in attrs.items():
            if name not in _INTERNAL:
                tensors += [t for _, t in _tensors_in(value, name)]
                where = _join(paths.get(id(module), "?"), name)
                containers.update((id(c), (c, items)) for c, items in _containers(value, cut, where))
                generators.update(
                    (id(g), (g, _generator_state(g))) for _, g in _found_in(value, name, _generator_kinds())
                )
        for t in tensors:
            if t is not None and id(t) not in values:
                values[id(t)] = (t, _copy(t))
    generators = {k: v for k, v in generators.items() if v[1] is not None}
    rng = _rng_states() + [(functools.partial(_set_generator_state, g), state) for g, state in generators.values()]
    return saved, values, containers, rng, _Registered(model), generators, cut


def _put_back(tensor: torch.Tensor, copy: torch.Tensor) -> None:
    if _shape(tensor) == _shape(copy) and _layout(tensor) == _layout(copy):
        try:
            tensor.copy_(copy)
            return
        except Exception:  # noqa: BLE001, S110 (a kind of tensor copy_ does not take: try set_)
            pass
    # resized in place (observers do): give it back its own shape and values
    _try(lambda: tensor.set_(copy.clone()))


def _restore(snapshot) -> None:
    saved, values, containers, rng, *_ = snapshot
    for module, attrs, params, bufs, children in saved:
        module.__dict__.clear()
        module.__dict__.update(attrs)
        for name, entries in (("_parameters", params), ("_buffers", bufs), ("_modules", children)):
            registry = vars(module).get(name)
            if isinstance(registry, dict):
                registry.clear()
                registry.update(entries)
            elif registry is not None:
                # a TorchScript wrapper: put back what changed, where it lets us
                now = _entries(module, name)
                for key, item in entries.items():
                    if now.get(key) is not item:
                        _try(lambda r=registry, k=key, i=item: r.__setitem__(k, i))
    for container, items in containers.values():
        _put_items(container, items)
    with torch.no_grad():
        for tensor, copy in values.values():
            if copy is not None:
                _put_back(tensor, copy)
    for set_state, state in rng:
        set_state(state)


def _same(now: torch.Tensor, before) -> bool:
    """Equal shapes and values, NaN equal to NaN; True where the values cannot be read (nothing to report)."""
    if before is None:
        return True
    if (_shape(now), _dtype(now), _layout(now)) != (_shape(before), _dtype(before), _layout(before)):
        return False
    parts_now, parts_before = _parts(now, coalesce=True), _parts(before, coalesce=True)
    if parts_now is None or parts_before is None:
        return True
    if len(parts_now) != len(parts_before):
        return False
    for a, b in zip(parts_now, parts_before, strict=True):
        try:
            if a.shape == b.shape and torch.equal(a, b):
                continue
            if not (a.shape == b.shape and _floating(a) and bool(((a == b) | (a.isnan() & b.isnan())).all())):
                return False
        except Exception:  # noqa: BLE001, S112 (a tensor subclass without these operations)
            continue
    return True


def _same_items(container, items) -> bool:
    """The same objects in the same places (compared by identity, so tensors are not compared by value here)."""
    if isinstance(container, list | deque):
        return len(container) == len(items) and all(a is b for a, b in zip(container, items, strict=True))
    if isinstance(container, set):
        return {id(a) for a in container} == {id(b) for b in items}
    now = container if isinstance(container, dict) else _fields(container)
    return now.keys() == items.keys() and all(now[k] is items[k] for k in items)


_MISSING = object()


def _changes(snapshot, model: nn.Module) -> list[tuple[str, str, str]]:
    """(module path, name, what) for each parameter, buffer or plain attribute a forward replaced, changed or
    created, and each torch.Generator attribute it drew from.
    Plain attributes that only hold again what the model registers (aliases), and attributes a forward pre-hook
    recomputes, are not state of their own: a change to a registered buffer is reported under the buffer."""
    saved, values, containers, _, registered, generators, _ = snapshot
    paths = {id(m): p for p, m in _named_modules(model)}
    held = frozenset(  # what attributes hold directly now: a list of them again is an alias
        id(value)
        for module, *_ in saved
        for name, value in vars(module).items()
        if name not in _INTERNAL and isinstance(value, torch.Tensor | nn.Module)
    )
    changed = []
    for module, attrs, params, bufs, _ in saved:
        prefix = paths.get(id(module), "?")
        for kind, registry, entries in (("parameter", "_parameters", params), ("buffer", "_buffers", bufs)):
            now = _entries(module, registry)
            for name, before in entries.items():
                if now.get(name) is not before:
                    changed.append((prefix, name, f"{kind} replaced"))
                elif before is not None and not _same(before, values[id(before)][1]):
                    changed.append((prefix, name, f"{kind} updated in place"))
            for name in now.keys() - entries.keys():
                if now[name] is not None:
                    changed.append((prefix, name, f"{kind} created"))
        derived = _hook_outputs(module)
        extra = getattr(type(module), "get_extra_state", None) is not nn.Module.get_extra_state
        for name, value in vars(module).items():
            if name in _INTERNAL or name in derived:
                continue
            before = attrs.get(name, _MISSING)
            if registered.alias_only(value, held) and (before is _MISSING or registered.alias_only(before, held)):
                continue
            holds = any(True for _ in _tensors_in(value, name)) or any(not _record(c) for c, _ in _containers(value))
            drawn = [
                g
                for _, g in _found_in(value, name, _generator_kinds())
                if id(g) in generators and not _equal_states(_generator_state(g), generators[id(g)][1])
            ]
            if drawn:
                changed.append((prefix, name, "generator advanced"))
            if not holds:
                continue
            what = None
            if before is _MISSING:
                what = "plain attribute created"
            elif value is not before:
                what = "plain attribute replaced"
            elif any(
                id(t) in values and not registered.holds(t) and not _same(t, values[id(t)][1])
                for _, t in _tensors_in(value, name)
            ) or any(id(c) in containers and not _same_items(c, containers[id(c)][1]) for c, _ in _containers(value)):
                what = "plain attribute updated in place"
            if what and extra:  # get_extra_state() may save it: state_dict is not the question, DDP is
                what = what.replace("plain attribute", "attribute of a module with extra state")
            if what:
                changed.append((prefix, name, what))
    return changed


def _forward_target(model: nn.Module) -> tuple[nn.Module, str]:
    """The module whose forward to run: a torch.compile wrapper's original module (so that the report does not
    compile it), else the model."""
    original = _entries(model, "_modules").get("_orig_mod")
    if type(model).__name__ == "OptimizedModule" and isinstance(original, nn.Module):
        return original, " of the module torch.compile wraps (_orig_mod), not compiled,"
    return model, ""


def _no_forward(model: nn.Module) -> str | None:
    """Why no forward may be run on the model (lazy modules it would materialize, tensors on meta), or None."""
    held = [t for _, t in _state_of(model)]
    if any(_lazy(t) for t in held):
        return (
            "example_inputs given, but no forward was run: it would materialize the lazy modules, and this report "
            "changes nothing"
        )
    if any(_is_meta(t) for t in held):
        return "example_inputs given, but no forward was run: tensors are on meta"
    return None


def _arguments(example_inputs) -> tuple[tuple, dict]:
    """example_inputs as the forward's (args, kwargs): a tuple is its positional arguments, a dict its keyword
    arguments, anything else its one argument."""
    if isinstance(example_inputs, tuple):
        return example_inputs, {}
    return ((), example_inputs) if isinstance(example_inputs, dict) else ((example_inputs,), {})


def _change_message(what: str, mode: str) -> str:
    """What a change a `mode` forward made to the model's state does under DDP and to state_dict."""
    by = f"{what} by {'an' if mode == 'eval' else 'a'} {mode}-mode forward"
    if what.startswith("buffer"):
        return (
            f"{by}: under DDP each rank updates its own copy, and rank 0's overwrites the others at the next "
            "synced forward"
        )
    if what.startswith("parameter"):
        old = "; an optimizer built before holds the old Parameter, or none"
        return (
            f"{by}, outside autograd: DDP averages gradients, never parameters, so the ranks' copies drift apart"
            f"{'' if what == 'parameter updated in place' else old}"
        )
    if what == "generator advanced":
        return (
            f"a random number generator the {mode}-mode forward draws from: its state is not in state_dict, "
            "so a resumed run draws other numbers, and each DDP rank draws its own"
        )
    if what.startswith("attribute of a module with extra state"):
        return (
            f"{by}: get_extra_state() can carry it into state_dict, but DDP never syncs it, so each rank keeps "
            "its own value"
        )
    return f"{by}: each DDP rank keeps its own value for good, and it is not saved in state_dict"


def _change_findings(snapshot, model: nn.Module, mode: str, half: dict) -> list[Finding]:
    """One finding per module and kind of change the `mode` forward made, after a warning for each
    half-precision buffer (`half`: module path -> names of its half-precision buffers before the forward) it
    updated."""
    findings = _Findings()
    grouped = defaultdict(list)  # one finding per module and kind of change
    for prefix, name, what in _changes(snapshot, model):
        grouped[(prefix, what)].append(name)
    for (prefix, what), names in grouped.items():
        path = _join(prefix, names[0]) if len(names) == 1 else f"{prefix or '(model)'}: {', '.join(names)}"
        if what.startswith("buffer"):
            for name in names:
                if name in half.get(prefix, ()):
                    findings.add(
                        "warning",
                        "half-precision buffer",
                        _join(prefix, name),
                        f"a half-precision buffer the {mode}-mode forward updates: small updates vanish "
                        "once it grows; keep it in float32",
                    )
        severity = "warning" if what.startswith(("plain", "parameter")) else "note"
        findings.add(severity, "forward changes state", path, _change_message(what, mode))
    return findings


def _forward_notes(cut: list, failed: list[str], through: str) -> list[Finding]:
    """The notes that close the forward checks: where the walk of attributes stopped, if it did, and what was
    run and restored."""
    findings = _Findings()
    if cut:
        shown = ", ".join(cut[:3]) + (", ..." if len(cut) > 3 else "")
        findings.add(
            "note",
            "forward",
            "",
            f"the walk of attributes stopped {_DEEP} levels down, at {shown}: what is held below there is neither "
            "checked nor restored",
        )
    ran = [mode for mode in ("eval", "train") if mode not in failed]
    rngs = "torch, Python's random and NumPy" if _numpy() else "torch and Python's random"
    done = (
        "ran one eval-mode and one train-mode forward"
        if len(ran) == 2
        else f"ran one {ran[0]}-mode forward (the {failed[0]}-mode one raised)"
        if ran
        else "tried one eval-mode and one train-mode forward (both raised)"
    )
    findings.add(
        "note",
        "forward",
        "",
        f"{done}{through} under torch.no_grad(); parameters, buffers, attributes and what they hold (lists, "
        f"dicts, objects, {_DEEP} levels deep), training flags, the random generators the model holds and the "
        f"global random states of {rngs} were restored",
    )
    return findings


def _forward_findings(model: nn.Module, example_inputs) -> list[Finding]:
    """One eval-mode and one train-mode forward under torch.no_grad(), each followed by a restore of the model
    and the random states: what each changed, then what was run."""
    why_not = _no_forward(model)
    if why_not:
        return [_finding("note", "forward", "", why_not)]
    args, kwargs = _arguments(example_inputs)
    half = {
        prefix: {n for n, b in _entries(m, "_buffers").items() if b is not None and _try(lambda b=b: b.dtype) in HALF}
        for prefix, m in _named_modules(model)
    }
    findings = _Findings()
    target, through = _forward_target(model)
    snapshot = _snapshot(model)
    failed: list[str] = []  # the modes whose forward raised
    try:
        for mode in ("eval", "train"):
            try:
                type(model).train(model, mode == "train")  # the class's: an override counts
                with torch.no_grad():
                    target(*args, **kwargs)
            except Exception as error:  # noqa: BLE001 (the report says what failed)
                findings.add("error", "forward", "", f"the {mode}-mode forward{through} raised {one_line(error, 160)}")
                failed.append(mode)
                _restore(snapshot)
                continue
            findings += _change_findings(snapshot, model, mode, half)
            _restore(snapshot)
    except BaseException:
        _restore(snapshot)
        raise
    return findings + _forward_notes(snapshot[-1], failed, through)


def inspect_module(model: nn.Module, example_inputs=None) -> Report:
    """Report what .to(), state_dict, initialization loops, meta construction and DDP will do with `model`.

    example_inputs (a tensor, a tuple of positional arguments or a dict of keyword arguments): run one
    eval-mode and one train-mode forward under torch.no_grad() and report the state they change; the model and
    the global random states of torch, Python's random and NumPy are restored afterwards."""
    findings, buffers = _state_findings(model)
    if example_inputs is not None:
        findings += _forward_findings(model, example_inputs)
    return Report(type(model).__name__, findings, buffers, forward_run=example_inputs is not None)


def shorten(text: str, limit: int = 400) -> str:
    """`text` on one line; longer than `limit` characters, it ends with its last whole sentence (or word)
    that fits, then " ...": never cut mid-word."""
    text = " ".join(text.split())
    if len(text) > limit:
        cut = text[: limit - 4]
        end = cut.rfind(". ")
        text = (cut[: end + 1] if end >= limit // 2 else cut.rsplit(" ", 1)[0] if " " in cut else cut) + " ..."
    return text


def one_line(error: BaseException, limit: int = 400) -> str:
    """`Type: message` on one line, however many lines the message has, shortened as `shorten` does."""
    text = shorten(_try(lambda: str(error), ""), limit)
    if isinstance(error, TargetError):
        return text
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class TargetError(Exception):
    """FILE:FUNCTION cannot give what is asked: no such file, no such function, the wrong kind of result.
    Its message is the whole story; `one_line` prints it without the class name."""


def split_target(target: str) -> tuple[str, str]:
    """`path/to/file.py:function` as (path, function); ValueError when either part is missing."""
    path, _, name = target.rpartition(":")
    if not path or not name or not name.isidentifier():
        raise ValueError(f"{target!r} is not path/to/file.py:function")
    return path, name


def call_from_file(target: str):
    """What the function named by `path/to/file.py:function` returns, called without arguments: the file is run
    as a module, with its own folder first on sys.path while it loads and the function runs (so
    `from mylayers import Block` finds the file next to it), then sys.path and the modules imported from that
    folder are put back as they were."""
    path, name = split_target(target)
    if not os.path.isfile(path):
        raise TargetError(f"no such file: {path}")
    folder = os.path.dirname(os.path.abspath(path))
    modules_before = dict(sys.modules)
    sys.path.insert(0, folder)
    try:
        spec = importlib.util.spec_from_file_location("inspected", path)
        if spec is None or spec.loader is None:
            raise OSError(f"{path} is not a Python file")
        source = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = source  # dataclasses and pickle look the module up
        spec.loader.exec_module(source)
        function = vars(source).get(name)
        if function is None:
            raise TargetError(f"{path} has no function {name}")
        if not callable(function):
            raise TargetError(f"{name} in {path} is a {type(function).__name__}, not a function")
        return function()
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
        for module_name in set(sys.modules) - modules_before.keys():
            file = getattr(sys.modules[module_name], "__file__", None) or ""
            top = module_name.partition(".")[0]
            if top not in modules_before and os.path.abspath(file).startswith(folder + os.sep):
                del sys.modules[module_name]
        if "inspected" in modules_before:
            sys.modules["inspected"] = modules_before["inspected"]
        else:
            sys.modules.pop("inspected", None)


def load_model(target: str) -> nn.Module:
    """The model that `path/to/file.py:build_model` builds (see call_from_file)."""
    model = call_from_file(target)
    if not isinstance(model, nn.Module):
        raise TargetError(f"{split_target(target)[1]}() returned {type(model).__name__}, not an nn.Module")
    return model


def load_inputs(target: str):
    """The example_inputs that `path/to/file.py:make_inputs` returns, called without arguments: a tensor (the
    forward's one argument), a tuple (its positional arguments) or a dict (its keyword arguments)."""
    inputs = call_from_file(target)
    if not isinstance(inputs, torch.Tensor | tuple | dict):
        raise TargetError(
            f"{split_target(target)[1]}() returned {type(inputs).__name__}, not a tensor, "
            "a tuple of positional arguments or a dict of keyword arguments"
        )
    return inputs


def main(argv: list[str] | None = None) -> int:
    """python inspect_module.py path/to/file.py:build_model [--inputs path/to/file.py:make_inputs]:
    print the report for build_model()'s model, with one forward on make_inputs()'s inputs if given.

    Exit status 0 once the report is printed, 1 (with one line on stderr) when the model or its
    inputs cannot be built, 2 on wrong usage."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python inspect_module.py", description="Print chapter 8's report on the model FUNCTION in FILE returns."
    )
    parser.add_argument("target", metavar="FILE:FUNCTION", help="path/to/file.py:build_model")
    parser.add_argument(
        "--inputs",
        metavar="FILE:FUNCTION",
        help="path/to/file.py:make_inputs, returning a tensor, a tuple of positional "
        "arguments or a dict of keyword arguments: runs the forward checks",
    )
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
        for target in filter(None, (args.target, args.inputs)):
            if ":" not in target:
                parser.error(f"{target!r} is not FILE:FUNCTION, e.g. my_model.py:build_model")
    except SystemExit as stop:  # argparse's usage message is printed: the status, returned
        return stop.code
    built = {}
    for what, target, load in (("model", args.target, load_model), ("inputs", args.inputs, load_inputs)):
        try:
            built[what] = None if target is None else load(target)
        except (Exception, SystemExit) as error:  # noqa: BLE001 (one line, no traceback)
            print(f"inspect_module: cannot build the {what} from {target}: {one_line(error)}", file=sys.stderr)
            return 1
    model, inputs = built["model"], built["inputs"]
    try:
        report = inspect_module(model, inputs)
    except Exception as error:  # noqa: BLE001 (one clear line, not a traceback)
        print(f"inspect_module: cannot inspect the model from {args.target}: {one_line(error)}", file=sys.stderr)
        return 1
    report.forward_hint = "add --inputs FILE:FUNCTION to run them"
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
