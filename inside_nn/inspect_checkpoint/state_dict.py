"""Where the state dict is in what the pickle builds (flat, nested in a training checkpoint, or a pickled
nn.Module's registries), and the key prefixes wrappers add."""

from __future__ import annotations

import dataclasses

from inside_nn.inspect_checkpoint.pickle_reader import (
    _Global,
    _last_wins,
    _mapping,
    _Obj,
    _Set,
)
from inside_nn.inspect_checkpoint.tensors import _subscript, _tensor_of

_STATE_DICT_NAMES = (
    "state_dict", "model_state_dict", "model", "module", "net", "network", "model_state", "weights", "params",
    "ema_state_dict", "state_dict_ema", "model_ema", "ema", "generator", "student", "teacher",
)  # fmt: skip


@dataclasses.dataclass
class _StateDict:
    path: tuple  # the keys leading to it from the file's top object
    entries: dict  # key -> node
    how: str  # "flat", "nested", "module" (a pickled nn.Module), "none"
    others: list  # (key, summary) of the top-level entries beside it
    alternatives: list  # paths of other dicts of tensors
    node: object = None  # the pickle's node of the state dict (its _metadata, if any, is in its state)
    # every dict of tensors found, (path, entries, node), the chosen one first
    candidates: list = dataclasses.field(default_factory=list)


def _tensor_share(pairs) -> tuple[int, int]:
    """(tensors, entries) among the values of (key, value) pairs with string keys."""
    n = sum(1 for k, v in pairs if isinstance(k, str) and _tensor_of(v, "") is not None)
    return n, len(pairs)


def _is_state_dict(pairs) -> bool:
    tensors, entries = _tensor_share(pairs)
    return tensors > 0 and tensors * 2 >= entries and all(isinstance(k, str) for k, _ in pairs)


def _module_state(node, prefix: str, out: dict, depth: int = 0, visits: list | None = None) -> bool:
    """A pickled nn.Module's state_dict, from its __dict__ (_parameters, persistent _buffers, _modules)."""
    visits = [0] if visits is None else visits
    visits[0] += 1
    if depth > 30 or visits[0] > 100_000 or not isinstance(node, _Obj) or node.state is None:
        return False
    state = _mapping(node.state)
    if state is None:
        return False
    attrs = _last_wins(state)
    if "_parameters" not in attrs or "_modules" not in attrs:
        return False
    non_persistent = attrs.get("_non_persistent_buffers_set")
    skip = {e for e in non_persistent.elements if isinstance(e, str)} if isinstance(non_persistent, _Set) else set()
    if isinstance(non_persistent, _Obj):  # set([...]) as REDUCE(builtins.set, ([...],))
        for arg in non_persistent.args:
            if isinstance(arg, list):
                skip.update(e for e in arg if isinstance(e, str))
    for registry in ("_parameters", "_buffers"):
        for name, value in _mapping(attrs.get(registry)) or ():
            if value is not None and not (registry == "_buffers" and name in skip):
                out[prefix + str(name)] = value
    for name, child in _mapping(attrs.get("_modules")) or ():
        if child is not None:
            _module_state(child, f"{prefix}{name}.", out, depth + 1, visits)
    return True


def _summary(node) -> str:
    if isinstance(node, bool | int | float) or node is None:
        return repr(node)
    if isinstance(node, str):
        return repr(node) if len(node) <= 40 else repr(node[:37] + "...")
    if _tensor_of(node, "") is not None:
        return "a tensor"
    pairs = _mapping(node)
    if pairs is not None:
        return f"a dict of {len(pairs)}"
    if isinstance(node, list | tuple):
        return f"a {type(node).__name__} of {len(node)}"
    if isinstance(node, _Obj) and isinstance(node.func, _Global):
        return f"a {node.func}"
    return type(node).__name__.strip("_").lower()


def _find_state_dict(root, fit=None) -> _StateDict:
    """Where the state dict is in what the pickle builds. fit: entries -> a sortable score, higher for a dict of
    tensors that fits the model better: among several dicts of tensors the best fit wins, then the usual name."""
    pairs = _mapping(root)
    if pairs is not None and _is_state_dict(pairs):
        return _StateDict((), dict(_last_wins(pairs)), "flat", [], [], root)
    module_sd = {}
    if _module_state(root, "", module_sd):
        return _StateDict((), module_sd, "module", [], [])
    if pairs is None:
        return _StateDict((), {}, "none", [], [])
    top = _last_wins(pairs)
    candidates = []  # (priority, path, entries)

    def visit(node, path, depth):
        sub = _mapping(node)
        if sub is not None and _is_state_dict(sub):
            name = path[-1] if path else ""
            priority = _STATE_DICT_NAMES.index(name) if name in _STATE_DICT_NAMES else len(_STATE_DICT_NAMES)
            candidates.append((priority, -_tensor_share(sub)[0], path, dict(_last_wins(sub)), node))
            return
        module_sd = {}
        if _module_state(node, "", module_sd) and module_sd:
            candidates.append((len(_STATE_DICT_NAMES), -len(module_sd), path, module_sd, None))
            return
        if depth < 3 and sub is not None:
            for k, v in sub:
                if isinstance(k, str) and k not in (
                    "optimizer",
                    "optimizer_states",
                    "optimizer_state_dict",
                    "optim",
                ):
                    visit(v, (*path, k), depth + 1)

    for k, v in top.items():
        if isinstance(k, str):
            visit(v, (k,), 1)
    if not candidates:
        return _StateDict((), {}, "none", [(k, _summary(v)) for k, v in top.items()], [])
    candidates.sort(key=lambda c: (c[0], c[1]))
    if fit is not None and len(candidates) > 1:
        candidates.sort(key=lambda c: fit(c[3]), reverse=True)  # stable: equal fits keep the name order
    _, _, path, entries, node = candidates[0]
    others = [(k, _summary(v)) for k, v in top.items() if k != path[0]]
    found = [c[2:] for c in candidates]
    return _StateDict(path, entries, "nested", others, [c[2] for c in candidates[1:]], node, found)


_KNOWN_PREFIXES = ("module._orig_mod.", "_orig_mod.module.", "module.", "_orig_mod.")


def _common_prefixes(keys) -> list[str]:
    """The dotted prefixes ("model.", "model.backbone.") every key starts with, longest first (two levels at most)."""
    keys = list(keys)
    if not keys:
        return []
    out = []
    parts = keys[0].split(".")
    for depth in (1, 2):
        if len(parts) > depth:
            prefix = ".".join(parts[:depth]) + "."
            if all(k.startswith(prefix) and len(k) > len(prefix) for k in keys):
                out.append(prefix)
    return out[::-1]


def _path_text(path: tuple) -> str:
    return "".join(_subscript(k) for k in path)
