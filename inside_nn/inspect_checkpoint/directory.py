"""A directory given as the checkpoint: a torch.distributed.checkpoint (DCP) save (`.metadata` and
`__<rank>_<n>.distcp` files) or a Hugging Face sharded save (`model.safetensors.index.json` or
`pytorch_model.bin.index.json` and the shards it names). Read without running code from it: the DCP
`.metadata` pickle into the symbolic reader's nodes (every global a stand-in, see _Stub), each shard with
inspect_checkpoint itself."""

from __future__ import annotations

import gc
import io
import json
import math
import os
import pickle
import stat

from inside_nn.inspect_checkpoint.allow_list import runs_code
from inside_nn.inspect_checkpoint.checkpoint_report import _count, _mib, _names, _shape_text
from inside_nn.inspect_checkpoint.files import _File
from inside_nn.inspect_checkpoint.limits import PICKLE_LIMIT
from inside_nn.inspect_checkpoint.pickle_reader import _Global, _mapping, _Obj
from inside_nn.inspect_checkpoint.state import _InspectionState
from inside_nn.inspect_checkpoint.tensors import _dtype_global, _ints, _Tensor
from inside_nn.inspect_module import one_line

INDEXES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")
INDEX_LIMIT = 64 * 2**20  # a shard index holds one line per tensor: megabytes at most

# What a DCP .metadata may name: its own data classes, torch's dtypes and sizes, a path (the checkpoint_id).
_DCP = "torch.distributed.checkpoint."
_DATA = {"torch.Size", "torch.serialization._get_layout", "collections.OrderedDict", "builtins.set"}
_PATHS = (
    "pathlib.PosixPath",
    "pathlib.WindowsPath",
    "pathlib.PurePosixPath",
    "pathlib.PureWindowsPath",
    "pathlib.Path",
)

_DCP_LOAD = (
    "Load it with torch.distributed.checkpoint.load(state_dict, checkpoint_id=DIR), which fills a state "
    "dict with the same keys in place (e.g. {{'model': model.state_dict()}}), or make one torch.save file of "
    "it with torch.distributed.checkpoint.format_utils.dcp_to_torch_save(DIR, 'model.pt') and inspect that. "
    "Both unpickle .metadata with pickle.load{bytes}: only for a folder you trust"
)


class _Stub(_Obj):
    """What a global of the .metadata pickle stands for, in place of the class or function it names: calling it
    (REDUCE), NEWOBJ, BUILD, SETITEMS and APPENDS record what they would do, as pickle_reader's _Obj does, so that
    C's fast unpickler reads a 50,000-tensor .metadata in a blink, importing nothing and running nothing of it."""

    __slots__ = ()
    glob = _Global("", "")

    def __new__(cls, *args, **kwargs):
        obj = object.__new__(cls)
        _Obj.__init__(obj, cls.glob, args)
        return obj

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        self.state = state

    def __setitem__(self, key, value):
        self.items.append((key, value))

    def append(self, item):
        self.elements.append(item)

    def extend(self, items):
        self.elements.extend(items)


class _StubUnpickler(pickle.Unpickler):
    """pickle's own unpickler with every global replaced by a _Stub subclass that names it (no import)."""

    def __init__(self, data: bytes):
        super().__init__(io.BytesIO(data))
        self.named: dict = {}

    def find_class(self, module: str, name: str):
        key = f"{module}.{name}"
        if key not in self.named:
            self.named[key] = type(name, (_Stub,), {"__slots__": (), "glob": _Global(module, name)})
        return self.named[key]

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("a persistent id, which a DCP .metadata never holds")


def _plain(value):
    """A stand-in class used as a value (a dtype such as torch.float32) as the _Global it names."""
    return value.glob if isinstance(value, type) and issubclass(value, _Stub) else value


def _pairs(node):
    """The (key, value) pairs of a dict, a pickled OrderedDict or a _Dict; None for anything else."""
    return list(node.items()) if isinstance(node, dict) else _mapping(node)


def _state(node) -> dict:
    """The attributes BUILD gives an object (a dataclass's __dict__), as a dict of plain keys."""
    pairs = _pairs(node.state) if isinstance(node, _Obj) and node.state is not None else None
    return {k: v for k, v in pairs or () if isinstance(k, str)}


def _named(node, name: str) -> bool:
    return isinstance(node, _Obj) and isinstance(node.func, _Global) and node.func.name == name


def _size(path: str) -> int | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


class _Directory(_InspectionState):
    """A directory: which checkpoint it is, what it holds, and how to load it (part of _Inspection)."""

    def _directory(self) -> None:
        try:
            names = sorted(os.listdir(self.path))
        except OSError as error:
            self.not_a_checkpoint(f"a directory that cannot be listed ({error.strerror or one_line(error)})")
            return
        if ".metadata" in names:
            self.format = "dcp"
            collecting = gc.isenabled()
            gc.disable()  # a node or more per opcode: the collector's passes over them would cost 5 times the read
            try:
                self._dcp(names)
            finally:
                if collecting:
                    gc.enable()
        for index in INDEXES:
            if self.format is None and index in names:
                self.format = "hf sharded " + ("safetensors" if "safetensors" in index else "bin")
                self._sharded(index, names)
        if self.format is not None:
            if self.model is not None:
                self._folder_against(self.model)
            return
        files = [n for n in names if n.endswith((".safetensors", ".bin", ".pt", ".pth", ".ckpt"))]
        # no .metadata (a DCP save) and no shard index (a Hugging Face sharded save)
        inside = f": it holds {_names(files)}, neither a DCP save nor a sharded one; inspect each file" if files else ""
        self.not_a_checkpoint("a directory, not a file" + inside)

    # torch.distributed.checkpoint

    def _dcp(self, names: list) -> None:
        where = os.path.join(self.path, ".metadata")
        try:
            self.f = _File(where)
            if self.f.size > PICKLE_LIMIT:
                raise ValueError(f"{_mib(self.f.size)}, more than the {_mib(PICKLE_LIMIT)} this report reads")
            reader = _StubUnpickler(self.f.read(0, self.f.size))
            root = reader.load()
        except Exception as error:  # noqa: BLE001 (any damage is said, not raised)
            self.add(
                "error",
                "distributed checkpoint",
                ".metadata",
                f"a DCP save whose .metadata cannot be read "
                f"({one_line(error, 200)}): torch.distributed.checkpoint.load fails on it too",
            )
            return
        finally:
            if self.f is not None:
                self.f.close()
        unknown = sorted(set(reader.named) - _DATA - set(_PATHS))
        unknown = [g for g in unknown if not g.startswith(_DCP) and _dtype_global(_Global(*g.rsplit(".", 1))) is None]
        code = [g for g in unknown if runs_code(*g.rsplit(".", 1))]  # the rule weights_only.py's advice follows
        if code:
            self.add(
                "error",
                "unsafe pickle",
                ".metadata",
                f".metadata names {_names(code)}, which can run code: torch.distributed.checkpoint.load "
                "unpickles it with pickle.load, which would import and call them. Do not load this folder",
            )
        elif unknown:
            self.add(
                "warning",
                "unsafe pickle",
                ".metadata",
                f".metadata names {_names(unknown)}, classes beyond the data a DCP save holds (a planner's own "
                "data?): torch.distributed.checkpoint.load unpickles it with pickle.load, which imports them; "
                "load the folder only if they are yours",
            )
        meta = _state(root) if _named(root, "Metadata") else {}
        entries = _pairs(meta.get("state_dict_metadata"))
        if entries is None:
            self.add(
                "error",
                "distributed checkpoint",
                ".metadata",
                "a .metadata that holds no DCP Metadata (no state_dict_metadata): not a DCP save torch can load",
            )
            return
        stored = self._dcp_storage(meta.get("storage_data"), names)
        others = []
        for key, node in entries:
            if _named(node, "TensorStorageMetadata"):
                self._dcp_tensor(str(key), _state(node), stored.get(str(key), []))
            else:
                others.append(str(key))
        total = sum(t.nbytes for t in self.tensors)
        files = sorted({f for items in stored.values() for f, _, _ in items})
        tops = list(dict.fromkeys(str(k).split(".")[0] for k, _ in entries))
        bytes_note = ", and the non-tensor entries with torch.load(weights_only=False)" if others else ""
        self.add(
            "note",
            "distributed checkpoint",
            "",
            f"a torch.distributed.checkpoint (DCP) save: {_count(len(self.tensors), 'tensor')} ({_mib(total)}) in "
            f"{_count(len(files), 'file')}, {len(others)} non-tensor entr{'y' if len(others) == 1 else 'ies'}"
            f"{f' ({_names(others, 3)})' if others else ''}; top-level keys: {_names(tops)}. "
            + _DCP_LOAD.format(bytes=bytes_note),
        )
        unused = [n for n in names if n.endswith(".distcp") and n not in files]
        if unused:
            self.add("note", "distributed checkpoint", "", f"{_names(unused)}: not named by .metadata, never read")

    def _dcp_storage(self, node, names: list) -> dict:
        """fqn -> [(file, offset, length)] from .metadata's storage_data; missing and short files said."""
        stored: dict = {}
        for index, info in _pairs(node) or ():
            where, item = _state(index), _state(info)
            fqn, path = where.get("fqn"), item.get("relative_path")
            if isinstance(fqn, str) and isinstance(path, str):
                stored.setdefault(fqn, []).append((path, item.get("offset"), item.get("length")))
        sizes = {}
        for path in {p for items in stored.values() for p, _, _ in items}:
            inside = os.path.normpath(path) == os.path.basename(path) and path in names
            sizes[path] = _size(os.path.join(self.path, path)) if inside else None
        missing = sorted(p for p, s in sizes.items() if s is None)
        if missing:
            keys = [k for k, items in stored.items() if any(p in missing for p, _, _ in items)]
            self.add(
                "error",
                "missing record",
                missing[0],
                f"{_names(missing)} named by .metadata but not in the "
                f"folder: torch.distributed.checkpoint.load raises on {_names(keys, 3)}; copy the whole folder",
            )
        short = {}
        for key, items in stored.items():
            for path, offset, length in items:
                bad = not (type(offset) is int and type(length) is int and offset >= 0 and length >= 0)
                if sizes.get(path) is not None and (bad or offset + length > sizes[path]):
                    short.setdefault(path, []).append(key)
        for path, keys in short.items():
            self.add(
                "error",
                "truncated",
                path,
                f"{path} is {_mib(sizes[path])}, shorter than .metadata says: "
                f"{_count(len(keys), 'entry')} ({_names(keys, 3)}) past its end; an interrupted copy or save",
            )
        return stored

    def _dcp_tensor(self, key: str, node: dict, items: list) -> None:
        properties = node.get("properties")
        state = properties.state if isinstance(properties, _Obj) else None
        dtype = _dtype_global(_plain(state[0])) if isinstance(state, tuple) and state else None
        dtype = dtype or _dtype_global(_plain(_state(properties).get("dtype")))
        shape = _ints(node.get("size"))
        stride = tuple(math.prod(shape[i + 1 :]) for i in range(len(shape))) if shape is not None else None
        path, offset = (items[0][0], items[0][1]) if items else (None, 0)
        self.tensors.append(
            _Tensor(key, path, dtype, shape, stride, offset if type(offset) is int else 0, None, "cpu", "dense")
        )
        chunks = [_state(c) for c in node.get("chunks") or [] if isinstance(c, _Obj)]
        covered = sum(math.prod(_ints(c.get("sizes")) or ()) for c in chunks if _ints(c.get("sizes")) is not None)
        if shape is not None and covered < math.prod(shape):
            self.add(
                "error",
                "distributed checkpoint",
                key,
                f"{key}: its chunks cover {covered} of "
                f"{math.prod(shape)} elements: a rank's part was never written; the load leaves the rest as it was",
            )
        elif chunks and not items:
            self.add("error", "missing record", key, f"{key}: .metadata names no file for its bytes")

    def _folder_against(self, model) -> None:
        """The model's state dict keys and shapes against the folder's tensors, under the top-level key that
        fits it best (DCP saves {"model": ..., "optim": ...}); what the folder's own loader does with each."""
        dcp = self.format == "dcp"
        expected = {k: v for k, v in model.state_dict(keep_vars=True).items() if hasattr(v, "shape")}
        held = {t.key: t for t in self.tensors}
        tops = sorted({k.split(".")[0] + "." for k in held if "." in k})
        self.prefix = max(["", *tops], key=lambda p: sum(p + k in held for k in expected))
        missing = [k for k in expected if self.prefix + k not in held]
        tied = [] if dcp else self._fed_by_ties(model, expected, missing)  # from_pretrained re-ties after loading
        missing = [k for k in missing if k not in tied]
        unexpected = [k for k in held if k.startswith(self.prefix) and k[len(self.prefix) :] not in expected]
        shapes = [
            k
            for k in expected
            if self.prefix + k in held and held[self.prefix + k].shape not in (None, tuple(expected[k].shape))
        ]
        under = f' under "{self.prefix[:-1]}"' if self.prefix else ""
        loader = "torch.distributed.checkpoint.load" if dcp else "from_pretrained"
        if missing:
            self.add(
                "error" if dcp else "warning",
                "missing keys",
                missing[0],
                f"{_count(len(missing), 'model key')} "
                f"not in the folder{under} ({_names(missing)}): "
                + (
                    "torch.distributed.checkpoint.load raises (Missing key in checkpoint state_dict)"
                    if dcp
                    else "from_pretrained leaves them freshly initialized"
                ),
            )
        for k in shapes:
            found = held[self.prefix + k].shape
            self.add(
                "error",
                "shape mismatch",
                k,
                f"{k}: the folder holds {_shape_text(found)}, the model "
                f"{_shape_text(tuple(expected[k].shape))}: {loader} raises",
            )
        if unexpected:
            self.add(
                "note",
                "unexpected keys",
                unexpected[0],
                f"{_count(len(unexpected), 'key')} of the folder{under} "
                f"that the model does not have ({_names(unexpected)}): {loader} leaves them out",
            )
        if not missing and not shapes:
            target = f"{{'{self.prefix[:-1]}': model.state_dict()}}" if self.prefix else "model.state_dict()"
            self.load_outcome = f"{loader} fills all {len(expected)} entries of the model's state dict" + (
                f" (load into {target})" if dcp else f" ({len(tied)} through a tie)" if tied else ""
            )

    def _fed_by_ties(self, model, expected: dict, missing: list) -> list:
        """The missing keys that a tie of the model fills, with a note: the model ties them (one
        Parameter under several names) to a name the folder holds, whose values they get. Hugging Face drops the
        tied copy (lm_head.weight of tie_word_embeddings=True) from a sharded save."""
        from inside_nn.inspect_checkpoint.against import _model_ties

        tied_to = {}
        for names in _model_ties(model, expected):
            present = [n for n in names if n not in missing]
            if present:
                tied_to.update((n, present[0]) for n in names if n in missing)
        if tied_to:
            shown = [f"{k} (tied to {v})" for k, v in tied_to.items()]
            self.add(
                "note",
                "tied keys",
                next(iter(tied_to)),
                f"the folder lacks {_count(len(tied_to), 'name')} that the model ties to a name it holds: "
                f"{_names(shown, 4)}. Hugging Face saves a tie once; from_pretrained ties the weights after "
                "loading, so they get the values of the names they are tied to. Merging the shards into one "
                f"dict, load_state_dict(sd) raises Missing key(s) {_names(list(tied_to), 3)}, and strict=False "
                "fills them through the tie",
            )
        return list(tied_to)

    # Hugging Face sharded

    def _sharded(self, index: str, names: list) -> None:
        weight_map, declared = self._read_index(index)
        if weight_map is None:
            return
        shards: dict = {}
        for key, shard in weight_map.items():
            shards.setdefault(shard, []).append(key)
        budget = self.scan_bytes
        for shard, keys in shards.items():
            self._shard(shard, keys, names, budget)
            if budget is not None:
                budget = max(0, self.scan_bytes - self.dir_scanned)
        total = sum(t.nbytes for t in self.tensors)
        how = (
            "safetensors.torch.load_file(shard) for each shard (or transformers' load_sharded_checkpoint(model, DIR))"
            if index == INDEXES[0]
            else "torch.load(shard, weights_only=True) for each shard (or transformers' "
            "load_sharded_checkpoint(model, DIR))"
        )
        self.add(
            "note",
            "sharded checkpoint",
            "",
            f"a Hugging Face sharded checkpoint ({index}): {_count(len(weight_map), 'tensor')} in "
            f"{_count(len(shards), 'shard')}, {_mib(total)}. from_pretrained(DIR) reads it; without transformers, "
            f"{how}, merging the dicts",
        )
        if type(declared) is int and self.tensors and declared != total:
            self.add(
                "note",
                "sharded checkpoint",
                index,
                f'the index\'s "total_size" is {declared} bytes, the '
                f"shards' tensors hold {total}: the index was written for other shards",
            )
        suffix = ".safetensors" if index == INDEXES[0] else ".bin"
        unnamed = [n for n in names if n.endswith(suffix) and "-of-" in n and n not in shards]
        if unnamed:
            self.add(
                "note",
                "sharded checkpoint",
                "",
                f"{_names(unnamed)}: shard files the index does not name, "
                "never read by from_pretrained (left from another save?)",
            )

    def _read_index(self, index: str):
        where = os.path.join(self.path, index)
        pairs_seen = []

        def pairs(items):
            pairs_seen.append([k for k, _ in items])
            return dict(items)

        try:
            self.f = _File(where)
            if self.f.size > INDEX_LIMIT:
                raise ValueError(f"{_mib(self.f.size)}, more than an index holds")
            data = json.loads(self.f.read(0, self.f.size), object_pairs_hook=pairs)
        except (OSError, ValueError) as error:
            self.add(
                "error",
                "sharded checkpoint",
                index,
                f"{index} cannot be read ({one_line(error, 200)}): from_pretrained fails on it too",
            )
            return None, None
        finally:
            if self.f is not None:
                self.f.close()
                self.f = None
        weight_map = data.get("weight_map") if isinstance(data, dict) else None
        if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
            self.add(
                "error",
                "sharded checkpoint",
                index,
                f'{index} has no "weight_map" of key -> shard file: from_pretrained cannot find the tensors',
            )
            return None, None
        twice = sorted({k for keys in pairs_seen for k in keys if keys.count(k) > 1} & set(weight_map))
        if twice:
            self.add(
                "warning",
                "sharded checkpoint",
                twice[0],
                f"{index} names {_names(twice)} twice: only the last shard named is read for each",
            )
        metadata = data.get("metadata")
        return weight_map, metadata.get("total_size") if isinstance(metadata, dict) else None

    def _shard(self, shard: str, keys: list, names: list, budget) -> None:
        from inside_nn.inspect_checkpoint import inspect_checkpoint

        if os.path.normpath(shard) != os.path.basename(shard) or shard not in names:
            self.add(
                "error",
                "missing record",
                shard,
                f"{shard}, named by the index for {_names(keys, 3)}, is not "
                "in the folder: from_pretrained raises; download it too",
            )
            return
        report = inspect_checkpoint(os.path.join(self.path, shard), scan_bytes=budget)
        self.dir_scanned += report.scanned_bytes
        for finding in report.findings:
            if finding.severity != "note" or finding.kind not in ("format", "tensors"):  # the folder's note says
                self.add(finding.severity, finding.kind, finding.path or shard, f"{shard}: {finding.message}")
        held = {t["key"]: t for t in report.tensors}
        for t in report.tensors:
            self.tensors.append(
                _Tensor(
                    t["key"],
                    f"{shard}/{t['storage']}",
                    _dtype_of(t["dtype"]),
                    t["shape"],
                    None,
                    t["offset"] or 0,
                    None,
                    t["location"] or "cpu",
                    "dense",
                )
            )
            self.tensors[-1].nan, self.tensors[-1].inf = t["nan"], t["inf"]
        absent = [k for k in keys if k not in held]
        if absent and report.tensors:
            self.add(
                "error",
                "sharded checkpoint",
                absent[0],
                f"the index names {_names(absent)} in {shard}, which "
                "does not hold them: from_pretrained counts them as loaded and leaves them uninitialized",
            )
        extra = [k for k in held if k not in keys]
        if extra:
            self.add(
                "warning",
                "sharded checkpoint",
                extra[0],
                f"{shard} holds {_names(extra)}, which the index "
                "does not name there: from_pretrained does not expect them (unexpected keys, or ignored)",
            )


def _dtype_of(name: str):
    import torch

    value = getattr(torch, name, None)
    return value if isinstance(value, torch.dtype) else None
