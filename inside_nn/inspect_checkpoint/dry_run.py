"""The load itself, run without data: the model deep-copied with every parameter and buffer on the meta device,
and its own load_state_dict (hooks, _load_from_state_dict overrides, the file's _metadata versions) called on a
state dict of meta tensors of the file's shapes and dtypes. What that returns or raises is what
model.load_state_dict(sd) will do, minus what only data can show (copy_ of a sparse, meta or quantized tensor into
a dense one: probed on one-element tensors of the same kinds)."""

from __future__ import annotations

import copy
import dataclasses
import warnings
from collections import OrderedDict

import torch
from torch import nn

from inside_nn.inspect_checkpoint.pickle_reader import _last_wins, _mapping, _Obj
from inside_nn.inspect_checkpoint.tensors import _Tensor, _tensor_of
from inside_nn.inspect_module import one_line

_AGGREGATE = "Error(s) in loading state_dict for "


@dataclasses.dataclass
class _DryRun:
    """What the model's own load_state_dict(sd, strict=False) did on its meta copy: the keys it reports missing
    and unexpected, the errors it raises (one per key, as torch words them); or why it could not be run."""

    missing: list = dataclasses.field(default_factory=list)
    unexpected: list = dataclasses.field(default_factory=list)
    errors: list = dataclasses.field(default_factory=list)
    failed: str | None = None  # why there is no answer (the model cannot be copied, the load raised midway)
    # keys the load left missing that the model's own load_state_dict post-hooks removed from missing_keys: not
    # loaded, yet not reported (a fine-tuning head kept at its initial values)
    dropped: list = dataclasses.field(default_factory=list)
    # the model's own load code could not be tried (it raised on meta: a hook that reads a value): the outcome
    # is unknown
    untried: bool = False


class _Opaque:
    """Stands for an object in the file that is neither a tensor nor plain data (a class instance)."""

    def __repr__(self) -> str:
        return "<an object from the file>"


def meta_copy(model: nn.Module) -> nn.Module:
    """A deep copy of the model whose parameters, buffers and tensor attributes are meta tensors of the same
    shapes and dtypes: no data is copied, and a tensor registered under several names stays one tensor."""
    memo = {}
    for module in model.modules():
        tensors = [*module._parameters.values(), *module._buffers.values()]
        tensors += [v for v in vars(module).values() if isinstance(v, torch.Tensor)]
        for t in tensors:
            if t is not None and id(t) not in memo:
                stand_in = _meta_like(t)
                if stand_in is not None:
                    memo[id(t)] = stand_in
    return copy.deepcopy(model, memo)


def _meta_like(t: torch.Tensor) -> torch.Tensor | None:
    """t on meta, a Parameter for a Parameter; None where that cannot be made (deepcopy copies it then)."""
    try:
        if isinstance(t, nn.parameter.UninitializedTensorMixin):
            cls = nn.UninitializedParameter if isinstance(t, nn.Parameter) else nn.UninitializedBuffer
            return cls(requires_grad=t.requires_grad, device="meta", dtype=t.dtype)
        meta = torch.empty_like(t, device="meta")
        return nn.Parameter(meta, requires_grad=t.requires_grad) if isinstance(t, nn.Parameter) else meta
    except Exception:  # noqa: BLE001 (a quantized or subclassed tensor: deepcopy copies it)
        return None


def plain_metadata(node) -> OrderedDict | None:
    """The state dict's _metadata (module path -> {"version": n, ...}) as torch.load rebuilds it from the pickle."""
    if not isinstance(node, _Obj) or node.state is None:
        return None
    state = _mapping(node.state)
    meta = _mapping(_last_wins(state).get("_metadata")) if state is not None else None
    if meta is None:
        return None
    out = OrderedDict()
    for key, value in meta:
        fields = _mapping(value)
        if isinstance(key, str) and fields is not None:
            out[key] = {k: v for k, v in fields if isinstance(k, str) and isinstance(v, int | float | str | bool)}
    return out


def meta_value(node, key: str, target, depth: int = 0):
    """What torch.load would put at this key, with meta tensors for tensors: a tensor of the file's shape and
    dtype (the model's where the file does not say), plain data as itself, anything else an _Opaque."""
    t = node if isinstance(node, _Tensor) else _tensor_of(node, key)
    if t is not None:
        want = target if isinstance(target, torch.Tensor) else None
        if t.kind == "uninitialized":  # a lazy parameter saved before the dry run: one again, on meta
            return nn.UninitializedParameter(device="meta")
        shape = t.shape if t.shape is not None else (_shape(want) or (0,))
        dtype = t.dtype if t.dtype is not None else (want.dtype if want is not None else torch.float32)
        try:
            return torch.empty(shape, dtype=dtype, device="meta")
        except Exception:  # noqa: BLE001 (a dtype meta cannot hold, quantized: the shape is what the load checks)
            return torch.empty(shape, dtype=want.dtype if want is not None else torch.float32, device="meta")
    if isinstance(node, bool | int | float | str | bytes) or node is None:
        return node
    if depth > 8:
        return _Opaque()
    pairs = _mapping(node)
    if pairs is not None:
        return {k: meta_value(v, f"{key}.{k}", None, depth + 1) for k, v in pairs}
    if isinstance(node, list | tuple):
        return type(node)(meta_value(v, key, None, depth + 1) for v in node)
    return _Opaque()


def _shape(t) -> tuple | None:
    """A tensor's shape; None for no tensor, or an uninitialized parameter (which has none yet)."""
    try:
        return tuple(t.shape) if isinstance(t, torch.Tensor) else None
    except Exception:  # noqa: BLE001
        return None


# The work a dry run may take, in key tests (load_state_dict's `k.startswith(child_prefix)`, ~0.7 µs each):
# about 7 s. Copying one module to meta costs about as much as 1,500 of them.
COST_LIMIT = 10_000_000


def load_cost(model: nn.Module, state_dict: dict) -> tuple[int, str]:
    """(the dry run's cost in key tests, the module that costs most, in words). load_state_dict filters the
    keys under a module once per child of it: children × keys under the module, summed over the modules."""
    under = {}
    for key in state_dict:
        parts = key.split(".")
        for depth in range(len(parts)):
            prefix = ".".join(parts[:depth])
            under[prefix] = under.get(prefix, 0) + 1
    cost, widest, top = 0, "", -1
    for name, module in model.named_modules(remove_duplicate=False):
        step = len(module._modules) * under.get(name, 0)
        cost += step + 1500
        if step > top:
            widest = f"{name or 'the model'}: {len(module._modules):,} children, {under.get(name, 0):,} keys"
            top = step
    return cost, widest


def dry_run(model: nn.Module, state_dict, metadata: OrderedDict | None) -> _DryRun:
    """model.load_state_dict(state_dict, strict=False) on a meta copy of the model, the file's _metadata
    attached (state_dict: a callable that makes the state dict of meta values): the missing and unexpected keys it reports (read by a post hook registered last, so that the
    model's own post hooks have had their say) and the errors it raises."""
    try:
        state_dict = state_dict()
        cost, widest = load_cost(model, state_dict)
        if cost > COST_LIMIT:
            return _DryRun(
                failed=f"the model's load was not run on a meta copy: torch's load_state_dict hands each child of a "
                f"module the keys under it by testing every key of the module ({widest}), about {cost:,.0f} steps "
                "here, minutes of work (the real load takes as long)"
            )
        replica = meta_copy(model)
    except Exception as error:  # noqa: BLE001 (a model deepcopy refuses, a value meta cannot stand for: say so)
        return _DryRun(failed=f"the model's load could not be run on a meta copy ({one_line(error, 160)})")
    seen, dropped = {}, []

    def keep(module, incompatible):
        seen["missing"] = list(incompatible.missing_keys)
        seen["unexpected"] = list(incompatible.unexpected_keys)

    sd = OrderedDict(state_dict)
    if metadata is not None:
        sd._metadata = metadata
    errors = []
    try:
        for module in replica.modules():
            if module._load_state_dict_post_hooks:
                _watch_post_hooks(module, dropped)
        replica.register_load_state_dict_post_hook(keep)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            replica.load_state_dict(sd, strict=False)
    except RuntimeError as error:
        text = str(error)
        if not text.startswith(_AGGREGATE) or "missing" not in seen:
            return _DryRun(failed=f"the model's load_state_dict raised on meta: {one_line(error, 200)}", untried=True)
        errors = [e.strip() for e in text.partition("\n\t")[2].split("\n\t") if e.strip()]
    except Exception as error:  # noqa: BLE001 (a hook that cannot run on meta, or that fails: say which)
        return _DryRun(
            failed=f"the model's load_state_dict raised on meta: {type(error).__name__}: {one_line(error, 200)}",
            untried=True,
        )
    if "missing" not in seen:
        return _DryRun(failed="the model's load_state_dict returned without running its post hooks", untried=True)
    missing = set(seen["missing"])
    return _DryRun(seen["missing"], seen["unexpected"], errors, dropped=[k for k in dropped if k not in missing])


def _watch_post_hooks(module: nn.Module, dropped: list) -> None:
    """Around a module's load_state_dict post-hooks (on the meta copy): the missing keys they remove from
    incompatible_keys.missing_keys go to `dropped`. Removing a key there hides it; it loads nothing into it."""
    before = []

    def snap(module, incompatible):
        before[:] = incompatible.missing_keys

    def compare(module, incompatible):
        now = set(incompatible.missing_keys)
        dropped.extend(k for k in before if k not in now and k not in dropped)

    first = module.register_load_state_dict_post_hook(snap)
    module._load_state_dict_post_hooks.move_to_end(first.id, last=False)
    module.register_load_state_dict_post_hook(compare)


def custom_load_code(model: nn.Module) -> list:
    """The modules of the model whose load runs code of their own: load_state_dict pre- or post-hooks, or a
    _load_from_state_dict defined outside torch (module names, "" for the root)."""
    found = []
    for name, module in model.named_modules():
        hooks = [*module._load_state_dict_pre_hooks.values(), *module._load_state_dict_post_hooks.values()]
        code = [type(module)._load_from_state_dict, *(getattr(h, "hook", h) for h in hooks)]
        if any(not (getattr(c, "__module__", None) or "").startswith("torch.") for c in code):
            found.append(name)
    return found


_PROBES: dict = {}


def copy_fails(t: _Tensor, target: torch.Tensor) -> str | None:
    """What param.copy_(value) raises when the file's value is a sparse, meta or quantized tensor and the model's a
    dense one (load_state_dict's copy, which the meta run skips): tried once per kind on one-element tensors."""
    if not isinstance(target, torch.Tensor) or isinstance(target, nn.parameter.UninitializedTensorMixin):
        return None
    kind = "meta" if t.location == "meta" or t.kind == "meta" else t.kind
    if kind not in ("sparse", "meta", "quantized") or t.dtype is None:
        return None
    key = (kind, t.dtype, target.dtype, target.layout, target.is_quantized, target.is_meta)
    if key not in _PROBES:
        with warnings.catch_warnings():
            _PROBES[key] = _probe(kind, t.dtype, target)
    return _PROBES[key]


def _probe(kind: str, dtype: torch.dtype, target: torch.Tensor) -> str | None:
    try:
        warnings.simplefilter("ignore")  # (inside the caller's catch_warnings) quantized dtypes are deprecated
        dest = torch.zeros(1, dtype=target.dtype, device="meta" if target.is_meta else "cpu")
        if target.is_quantized or target.layout != torch.strided:
            return None
        if kind == "sparse":
            src = torch.zeros(1, dtype=dtype).to_sparse()
        elif kind == "meta":
            src = torch.empty(1, dtype=dtype, device="meta")
        else:
            src = torch.quantize_per_tensor(torch.zeros(1), 1.0, 0, dtype)
    except Exception:  # noqa: BLE001 (a kind this torch cannot make: nothing to say)
        return None
    try:
        with torch.no_grad():
            dest.copy_(src)
    except Exception as error:  # noqa: BLE001 (the error is the answer)
        return one_line(error, 200)
    return None
