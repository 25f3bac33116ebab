"""Tensors, as the pickle describes them: the _Tensor a rebuild call would make, and a walk over every
tensor anywhere in what the pickle builds."""

from __future__ import annotations

import dataclasses
import json
import math

import torch

from inside_nn.inspect_checkpoint.checkpoint_report import _dtype_name, _shape_text
from inside_nn.inspect_checkpoint.pickle_reader import (
    _Dict,
    _Global,
    _mapping,
    _Obj,
    _Persistent,
    _Set,
)


@dataclasses.dataclass
class _Tensor:
    key: str
    # the storage key (zip: record data/<key>; legacy: the storage's root key; safetensors: the tensor's name)
    storage: str | None
    dtype: torch.dtype | None
    shape: tuple | None
    stride: tuple | None
    offset: int  # storage offset, in elements
    storage_numel: int | None  # elements the storage declares
    location: str
    kind: str  # "dense", "parameter", "quantized", "sparse", "meta", "other"
    view: tuple | None = None  # legacy view_metadata: (view key, offset, size)
    nan: int = 0
    inf: int = 0
    scanned: bool = False
    digest: int | None = None  # CRC-32 of the bytes it views (dense tensors, when the scanner tracks values)
    absmax: float | None = None  # the largest finite |value| (floating dense tensors, the same)
    extremes: tuple | None = None  # (smallest, largest) value (integer dense tensors, the same)

    @property
    def itemsize(self) -> int:
        return _itemsize(self.dtype)

    @property
    def numel(self) -> int:
        return math.prod(self.shape) if self.shape is not None else 0

    @property
    def nbytes(self) -> int:
        return self.numel * self.itemsize

    def span(self) -> tuple[int, int] | None:
        """(first, end) elements of the storage this tensor views, or None for no elements."""
        if self.shape is None or self.stride is None or self.numel == 0:
            return None
        if self.offset < 0 or len(self.stride) != len(self.shape) or min(self.stride, default=0) < 0:
            return None
        last = sum((n - 1) * abs(s) for n, s in zip(self.shape, self.stride, strict=False))
        return self.offset, self.offset + last + 1

    def dense(self) -> bool:
        """Whether the view covers its span exactly (a contiguous tensor, or a permutation of one)."""
        span = self.span()
        return span is not None and span[1] - span[0] == self.numel

    def describe(self) -> str:
        kind = "" if self.kind in ("dense", "parameter") else f"{self.kind} "
        return f"{kind}{_dtype_name(self.dtype)} {_shape_text(self.shape)}"


def _itemsize(dtype) -> int:
    try:
        return dtype.itemsize
    except AttributeError:
        return 1


def _storage_dtype(node) -> torch.dtype | None:
    """The dtype of a pickled storage type (torch.FloatStorage, torch.UntypedStorage, ...)."""
    if not isinstance(node, _Global):
        return None
    if node.name == "UntypedStorage":
        return torch.uint8
    try:
        return torch.storage._get_dtype_from_pickle_storage_type(node.name)
    except (KeyError, AttributeError):
        return None


def _dtype_global(node) -> torch.dtype | None:
    if isinstance(node, _Global) and node.module == "torch":
        value = getattr(torch, node.name, None)
        if isinstance(value, torch.dtype):
            return value
    return None


def _ints(value) -> tuple | None:
    if isinstance(value, _Obj) and isinstance(value.func, _Global) and str(value.func) == "torch.Size":
        value = value.args[0] if value.args else ()
    if isinstance(value, tuple | list) and all(type(v) is int and v >= 0 for v in value):
        return tuple(value)
    return None


def _storage_of(node):
    """(key, dtype, location, numel, view) of a persistent storage id, or None."""
    if not isinstance(node, _Persistent) or not isinstance(node.pid, tuple) or len(node.pid) < 5:
        return None
    pid = node.pid
    typename = pid[0].decode("ascii", "replace") if isinstance(pid[0], bytes) else pid[0]
    if typename != "storage":
        return None
    storage_type, key, location, numel = pid[1:5]
    key = key.decode("ascii", "replace") if isinstance(key, bytes) else str(key)
    location = location.decode("ascii", "replace") if isinstance(location, bytes) else str(location)
    view = pid[5] if len(pid) > 5 and isinstance(pid[5], tuple) else None
    return (
        key,
        _storage_dtype(storage_type),
        location,
        numel if type(numel) is int else None,
        view,
    )


_REBUILD = "torch._utils."


def _tensor_of(node, key: str, depth: int = 0) -> _Tensor | None:
    """A _Tensor for a node that rebuilds a tensor, else None."""
    if not isinstance(node, _Obj) or not isinstance(node.func, _Global) or depth > 8:
        return None
    func, args = str(node.func), node.args
    if func in (
        "torch.nn.parameter.UninitializedParameter",
        "torch.nn.parameter.UninitializedBuffer",
    ):
        return _Tensor(key, None, None, None, None, 0, 0, "?", "uninitialized")
    if func == "torch._tensor._rebuild_from_type_v2" and len(args) >= 3 and isinstance(args[2], tuple):
        return _tensor_of(_Obj(args[0], args[2]), key, depth + 1)
    if func in (
        _REBUILD + "_rebuild_parameter",
        _REBUILD + "_rebuild_parameter_with_state",
    ):
        inner = _tensor_of(args[0], key, depth + 1) if args else None
        if inner is not None and inner.kind == "dense":
            inner.kind = "parameter"
        return inner
    if func in (
        _REBUILD + "_rebuild_tensor_v2",
        _REBUILD + "_rebuild_tensor_v3",
        _REBUILD + "_rebuild_tensor",
        _REBUILD + "_rebuild_qtensor",
    ):
        if len(args) < 4:
            return None
        storage = _storage_of(args[0])
        kind = "quantized" if func.endswith("qtensor") else "dense"
        if storage is None:
            return _Tensor(key, None, None, _ints(args[2]), _ints(args[3]), 0, None, "?", "other")
        skey, dtype, location, numel, view = storage
        if func.endswith("_v3"):  # (untyped storage, offset, size, stride, requires_grad, hooks, dtype, ...)
            dtype = _dtype_global(args[6]) if len(args) > 6 else None
            numel = numel // _itemsize(dtype) if numel is not None and dtype is not None else None
        offset = args[1] if type(args[1]) is int else 0
        return _Tensor(
            key,
            skey,
            dtype,
            _ints(args[2]),
            _ints(args[3]),
            offset,
            numel,
            location,
            kind,
            view,
        )
    if func == _REBUILD + "_rebuild_meta_tensor_no_storage" and len(args) >= 3:
        return _Tensor(
            key,
            None,
            _dtype_global(args[0]),
            _ints(args[1]),
            _ints(args[2]),
            0,
            0,
            "meta",
            "meta",
        )
    if func == _REBUILD + "_rebuild_sparse_tensor" and len(args) >= 2 and isinstance(args[1], tuple):
        parts = args[1]
        shape = next((_ints(p) for p in parts if _ints(p) is not None), None)
        pieces = [t for t in (_tensor_of(p, key, depth + 1) for p in parts) if t is not None]
        dtype = pieces[-1].dtype if pieces else None  # the values' dtype (indices come first)
        return _Tensor(key, None, dtype, shape, None, 0, None, "?", "sparse")
    if func.startswith(_REBUILD + "_rebuild_"):
        return _Tensor(key, None, None, None, None, 0, None, "?", "other")
    return None


def _sub_tensors(node, key: str, depth: int = 0):
    """The tensors a tensor node holds besides its own storage, at any depth, each named `key`: a sparse tensor's
    indices and values, a per-channel quantized tensor's scales and zero points, a nested tensor's buffer and
    sizes, a subclass's inner tensors (a DTensor's local tensor and its mesh). torch.load reads their storages
    with the tensor. The node a parameter or subclass wraps is the tensor itself: only what it holds counts."""
    if not isinstance(node, _Obj) or not isinstance(node.func, _Global) or depth > 8:
        return
    func, args = str(node.func), node.args
    rest = list(args)
    if func in (_REBUILD + "_rebuild_parameter", _REBUILD + "_rebuild_parameter_with_state") and args:
        yield from _sub_tensors(args[0], key, depth + 1)
        rest = list(args[1:])
    elif func == "torch._tensor._rebuild_from_type_v2" and len(args) >= 3 and isinstance(args[2], tuple):
        yield from _sub_tensors(_Obj(args[0], args[2]), key, depth + 1)
        rest = list(args[3:])
    for part in rest:
        for _, t, inner in _walk(part, key, set()):
            t.key = key
            yield t
            yield from _sub_tensors(inner, key, depth + 1)


def _subscript(key) -> str:
    return f"[{json.dumps(key)}]" if isinstance(key, str) else f"[{key!r}]"


def _walk(node, path: str, seen: set, depth: int = 0):
    """(path, _Tensor) for every tensor anywhere in a node (dicts, lists, objects' state), each node once."""
    if depth > 40 or id(node) in seen:
        return
    t = _tensor_of(node, path)
    if t is not None:
        yield path, t, node
        return
    if isinstance(node, _Obj | _Dict | list | tuple | _Set):
        seen.add(id(node))
    pairs = _mapping(node)
    if pairs is not None:
        for k, v in pairs:
            yield from _walk(v, path + _subscript(k), seen, depth + 1)
    elif isinstance(node, list | tuple):
        for i, v in enumerate(node):
            yield from _walk(v, f"{path}[{i}]", seen, depth + 1)
    elif isinstance(node, _Set):
        for i, v in enumerate(node.elements):
            yield from _walk(v, f"{path}{{{i}}}", seen, depth + 1)
    elif isinstance(node, _Obj):
        for i, v in enumerate(node.args):
            yield from _walk(v, f"{path}({i})", seen, depth + 1)
        if node.state is not None:
            state = _mapping(node.state)
            if state is not None:
                for k, v in state:
                    yield from _walk(v, f"{path}.{k}", seen, depth + 1)
            else:
                yield from _walk(node.state, f"{path}.__state__", seen, depth + 1)
        for k, v in node.items:
            yield from _walk(v, path + _subscript(k), seen, depth + 1)
        for i, v in enumerate(node.elements):
            yield from _walk(v, f"{path}[{i}]", seen, depth + 1)
