"""inspect_checkpoint: what torch.load and load_state_dict will do with a checkpoint file, before they do it.

From the book "Inside nn.Module", chapter 5 (File I/O, checkpoints that survive). Needs torch 2.6 or newer;
safetensors only to confirm a .safetensors file with the library that loads it.

    report = inspect_checkpoint("model.pt")               # the file alone
    report = inspect_checkpoint("model.pt", model)        # and against the model it is meant for
    print(report)                                         # a table, most severe first
    report.findings, report.of_kind("prefix")             # the same findings as data (inspect_module's API)
    report.tensors                                        # one dict per tensor: key, dtype, shape, bytes, storage

It never runs code from the file and never raises on a file: a file it cannot read gives one error finding,
"not a checkpoint", with the reason.

* The pickle is read opcode by opcode (pickletools) into a plain description of what it would build; no global
  is imported and no callable is called. torch's own weights_only unpickler then reads it once more with every
  storage on the meta device (no tensor data), to say what torch.load would accept.
* A zip checkpoint is opened with torch's zip reader (torch._C.PyTorchFileReader, the reader torch.load uses):
  its record list, the sizes and data offsets it resolves. The archive layout is also parsed here, byte by
  byte with bounds checks, to find what two zip readers would read differently and which CRCs fail.
* Tensor bytes are read in bounded chunks (CHUNK bytes at a time, up to `scan_bytes` in all) for CRC-32s and
  NaN/inf counts, only over the elements a tensor views. Memory stays at a few chunks whatever the file size.
* A safetensors header is parsed here with bounds checks (8-byte length, JSON, offsets that must tile the data
  exactly) before safetensors.safe_open is asked to confirm it.
"""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import math
import os
import pickle
import pickletools
import re
import stat
import struct
import time
import warnings
import zlib
from collections import Counter, defaultdict

import torch
from torch import nn

from inside_nn.inspect_module import BOOK, Finding, Report, one_line, shorten

__all__ = ["SECTIONS", "CheckpointReport", "inspect_checkpoint"]

# Tensor bytes read for CRCs and NaN/inf counts before the report stops reading (None: no limit).
SCAN_BYTES = 2 * 2**30
CHUNK = 16 * 2**20  # bytes read at a time
# A data.pkl larger than this, or with more opcodes, is not read (a real one holds kilobytes to megabytes): the
# description of what it builds takes a few Python objects per opcode.
PICKLE_LIMIT = 32 * 2**20
OPCODE_LIMIT = 4_000_000
HEADER_LIMIT = 100_000_000  # safetensors' own MAX_HEADER_SIZE
DIRECTORY_LIMIT = (
    16 * 2**20
)  # a zip central directory larger than this is not read (a torch.save one: kilobytes)
ENTRY_LIMIT = 200_000  # nor one with more entries than this
# Deflated records are inflated (for their CRCs and values) up to INFLATE_RATIO times the file's size, or
# INFLATE_FLOOR bytes if more, in all: a zip bomb costs time linear in its size.
INFLATE_RATIO = 16
INFLATE_FLOOR = 256 * 2**20
SMALL_RECORD = 4096  # version, byteorder, .format_version: anything larger is not read
SHOWN = 6  # keys named in one finding before "..."

_FILE_IO = "notebooks/05_file_io.html#"
_SURVIVE = "notebooks/05_checkpoints_that_survive.html#"
_LAZY = "notebooks/03_meta_device.html#"
# Where the book explains each kind of finding (page and section anchor, relative to BOOK).
SECTIONS = {
    "not a checkpoint": _FILE_IO + "loading-files-you-did-not-write",
    "format": _FILE_IO + "saving-tensors",
    "tensors": _FILE_IO + "saving-a-model-the-state-not-the-code",
    "tied keys": "notebooks/01_parameter_management.html#tied-parameters",
    "shared storage": _FILE_IO + "large-models-no-second-copy-in-memory",
    "nested checkpoint": _SURVIVE + "a-checkpoint-you-can-resume-from",
    "no state dict": _SURVIVE + "a-checkpoint-you-can-resume-from",
    "pickled module": _FILE_IO + "saving-a-model-the-state-not-the-code",
    "prefix": _FILE_IO + "the-module-and-orig-mod-prefixes",
    "file name": _FILE_IO + "safetensors-a-format-with-no-code-in-it",
    "unsafe pickle": _FILE_IO + "loading-files-you-did-not-write",
    "weights_only": _FILE_IO + "allowing-your-own-classes",
    "device": _FILE_IO + "map-location",
    "truncated": _SURVIVE + "a-process-killed-in-the-middle-of-a-save",
    "bad crc": _SURVIVE + "a-loader-with-a-contract",
    "no crc": _SURVIVE + "a-loader-with-a-contract",
    "compressed record": _FILE_IO + "large-models-no-second-copy-in-memory",
    "duplicate record": _SURVIVE + "a-loader-with-a-contract",
    "archive layout": _SURVIVE + "a-loader-with-a-contract",
    "record size": _SURVIVE + "a-loader-with-a-contract",
    "missing record": _SURVIVE + "a-loader-with-a-contract",
    "unreferenced record": _SURVIVE + "a-loader-with-a-contract",
    "safetensors header": _FILE_IO + "safetensors-a-format-with-no-code-in-it",
    "non-finite": _SURVIVE + "a-loader-with-a-contract",
    "not scanned": _SURVIVE + "a-loader-with-a-contract",
    "missing keys": _FILE_IO + "missing-and-unexpected-keys",
    "unexpected keys": _FILE_IO + "missing-and-unexpected-keys",
    "strict=False": _FILE_IO + "missing-and-unexpected-keys",
    "shape mismatch": _FILE_IO + "missing-and-unexpected-keys",
    "dtype mismatch": _FILE_IO + "missing-and-unexpected-keys",
    "safetensors tie": _FILE_IO + "safetensors-a-format-with-no-code-in-it",
    "split tie": _LAZY + "lazy-meta-assign",
    "non-persistent buffer": _LAZY + "lazy-meta-assign",
    "lazy": _LAZY + "before-the-dry-run-shapes-checkpoints-ddp",
}
FIX_PREFIX = (
    'torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(sd, "{prefix}")'
)
NO_CRC_CHECK = (
    "torch.load never checks CRCs (PyTorch builds miniz with MINIZ_DISABLE_ZIP_READER_CRC32_CHECKS, "
    "cmake/Dependencies.cmake)"
)
# Callables a hostile pickle calls to run code; named as such in the report (everything not allowlisted is refused
# by weights_only=True either way).
_DANGEROUS_MODULES = {
    "os", "posix", "nt", "subprocess", "_posixsubprocess", "sys", "runpy", "importlib", "shutil", "socket", "pty",
    "commands", "webbrowser", "code", "codeop", "ctypes", "multiprocessing", "pickle", "_pickle", "marshal",
    "platform", "asyncio", "requests", "urllib", "http", "ftplib", "telnetlib", "tempfile", "pathlib", "io", "_io",
    "zipimport", "pydoc", "timeit", "bdb", "pdb", "signal", "threading", "_thread",
}  # fmt: skip
_DANGEROUS_NAMES = {
    "eval", "exec", "execfile", "compile", "__import__", "system", "popen", "spawn", "getattr", "setattr", "delattr",
    "open", "apply", "breakpoint", "input", "globals", "locals", "vars", "attrgetter", "methodcaller",
}  # fmt: skip


def _finding(severity: str, kind: str, path: str, message: str) -> Finding:
    return Finding(severity, kind, path, message, BOOK + SECTIONS[kind])


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _mib(nbytes: int) -> str:
    if nbytes >= 2**30:
        return f"{nbytes / 2**30:.2f} GiB"
    return f"{nbytes / 2**20:.2f} MiB" if nbytes >= 2**17 else f"{nbytes} bytes"


def _names(keys, limit: int = SHOWN) -> str:
    keys = list(keys)
    shown = ", ".join(str(k) for k in keys[:limit])
    return shown + (f", ... ({len(keys)} in all)" if len(keys) > limit else "")


_MINIZ = ". This is an internal miniz error"


def _short(error: BaseException, limit: int = 400) -> str:
    """torch's error in one line, without miniz's paragraph of advice (dropped before the text is
    shortened, so that a cut never lands inside it), never cut mid-word."""
    text = _try_str(error).split(_MINIZ)[0]
    text = shorten(text, limit)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _try_str(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:  # noqa: BLE001 (an error that cannot say is reported by its type)
        return ""


def _dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.") if dtype is not None else "unknown dtype"


def _shape_text(shape) -> str:
    if shape is None:
        return "unknown shape"
    return "×".join(str(n) for n in shape) or "scalar"


class CheckpointReport(Report):
    """inspect_module's Report for a file: the findings, most severe first, plus what the file holds.

    format: "zip" (torch.save), "legacy" (torch.save(..., _use_new_zipfile_serialization=False)), "safetensors",
    "torchscript", "legacy tar", or None when the file is not a checkpoint. tensors: one dict per tensor of the
    state dict (key, dtype, shape, bytes, storage, offset, location, tied_with, nan, inf). records: one dict per
    zip record or storage (name, bytes, offset, compressed, crc). state_dict_path: where the state dict sits in
    the file ('' for the file itself, '["state_dict"]' in a training checkpoint). prefix: the prefix the report
    would strip ('' for none). scanned_bytes: tensor bytes read; seconds: the time the report took."""

    def __init__(self, path, findings: list[Finding], **facts):
        super().__init__(str(path), findings, [])
        self.path = str(path)
        self.format = facts.get("format")
        self.tensors = facts.get("tensors", [])
        self.records = facts.get("records", [])
        self.state_dict_path = facts.get("state_dict_path")
        self.prefix = facts.get("prefix", "")
        self.scanned_bytes = facts.get("scanned_bytes", 0)
        self.seconds = facts.get("seconds", 0.0)
        # With a model and no error: what model.load_state_dict(sd) will do, in one sentence.
        self.load_outcome = facts.get("load_outcome")

    subject = "inspect_checkpoint"
    whole = "(file)"

    def closing(self) -> list[str]:
        """What load_state_dict will do, when the report was made against a model and found no error."""
        if self.load_outcome is None or any(
            f.severity == "error" for f in self.findings
        ):
            return []
        return [self.load_outcome]

    __str__ = Report.__str__
    __repr__ = __str__

    def table(self, limit: int = 50) -> str:
        """The tensors as a table: key, dtype, shape, bytes, storage (and the keys it is tied with)."""
        rows = [("key", "dtype", "shape", "bytes", "storage")]
        for t in self.tensors[:limit]:
            tied = f" = {', '.join(t['tied_with'])}" if t["tied_with"] else ""
            rows.append(
                (
                    t["key"],
                    t["dtype"],
                    _shape_text(t["shape"]),
                    _mib(t["bytes"]),
                    f"{t['storage']}{tied}",
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        lines = [
            "  ".join(c.ljust(w) for c, w in zip(r[:4], widths, strict=True))
            + "  "
            + r[4]
            for r in rows
        ]
        if len(self.tensors) > limit:
            lines.append(f"... {len(self.tensors) - limit} more")
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------------------------
# Reading bytes: every read is bounded and positional.


class NotRegular(OSError):
    """A path that is not a regular file: reading it could block or never end."""


class _File:
    """A file read with pread: no position to share, nothing cached beyond the chunk asked for."""

    def __init__(self, path: str):
        self.path = path
        # O_NONBLOCK: opening a FIFO does not wait for a writer; it is then refused as not a regular file.
        self.fd = os.open(
            path,
            os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0),
        )
        info = os.fstat(self.fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(self.fd)
            raise NotRegular("not a regular file (a FIFO, a socket or a device)")
        self.size = info.st_size
        self.buffer = bytearray(
            min(CHUNK, max(self.size, 1))
        )  # a chunk never exceeds what the file holds
        self.scanned = 0

    def close(self):
        os.close(self.fd)

    def reopen(self):
        """A file object on the same open file (not the path again, which may since name another), at byte 0."""
        opened = open(os.dup(self.fd), "rb")  # noqa: SIM115 (the caller closes it)
        opened.seek(0)
        return opened

    def read(self, offset: int, n: int) -> bytes:
        """Up to n bytes at offset (fewer at the end of the file); n is capped by the caller."""
        if offset < 0 or n <= 0 or offset >= self.size:
            return b""
        return os.pread(self.fd, min(n, self.size - offset), offset)

    def chunks(self, offset: int, n: int):
        """(position relative to offset, memoryview) over [offset, offset + n), CHUNK bytes at a time into one
        reused buffer; stops early at the end of the file."""
        done = 0
        while done < n:
            want = min(CHUNK, n - done)
            got = os.preadv(self.fd, [memoryview(self.buffer)[:want]], offset + done)
            if got <= 0:
                return
            self.scanned += got
            yield done, memoryview(self.buffer)[:got]
            done += got
            if got < want:
                return


# --------------------------------------------------------------------------------------------------------------
# The pickle, read without running it: a symbolic machine over pickletools.genops.


class _PickleError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class _Global:
    module: str
    name: str

    def __str__(self) -> str:
        return f"{self.module}.{self.name}"


class _Obj:
    """What REDUCE, NEWOBJ, INST or OBJ would build: func(*args), then BUILD's state, SETITEMS' items, APPENDS'."""

    __slots__ = ("args", "elements", "func", "items", "state")

    def __init__(self, func, args):
        self.func = func
        self.args = args
        self.state = None
        self.items = []
        self.elements = []


class _Dict:
    __slots__ = ("items",)

    def __init__(self, items=None):
        self.items = list(items or [])


class _Persistent:
    __slots__ = ("pid",)

    def __init__(self, pid):
        self.pid = pid


class _Set:
    __slots__ = ("elements",)

    def __init__(self, elements=()):
        self.elements = list(elements)


_MARK = object()


def _global(module: str, name: str) -> _Global:
    """The global a pickle names, with the Python 2 names mapped as pickle (fix_imports) and weights_only map them."""
    from _compat_pickle import IMPORT_MAPPING, NAME_MAPPING

    if (module, name) in NAME_MAPPING:
        module, name = NAME_MAPPING[(module, name)]
    elif module in IMPORT_MAPPING:
        module = IMPORT_MAPPING[module]
    return _Global(module, name)


@dataclasses.dataclass
class _Pickle:
    root: object
    globals: list  # (_Global, position)
    calls: list  # _Obj built by REDUCE/NEWOBJ/INST/OBJ
    protocol: int
    end: int  # the position after STOP


def _parse_pickle(stream, limit: int = PICKLE_LIMIT) -> _Pickle:
    """Read one pickle from `stream` into _Global/_Obj/_Dict/_Persistent/list/tuple values, calling nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore"
        )  # pickletools decoding a damaged STRING warns (invalid escape)
        return _parse_pickle_quietly(stream, limit)


def _parse_pickle_quietly(stream, limit: int) -> _Pickle:
    start = stream.tell()
    stack, memo, marks = [], {}, []
    found_globals, calls = [], []
    protocol = 0

    def pop_mark():
        if not marks:
            raise _PickleError("a pickle that pops a MARK it never set")
        items = stack[marks[-1] + 1 :]
        del stack[marks.pop() :]
        return items

    def pop():
        if not stack or (marks and len(stack) - 1 == marks[-1]):
            raise _PickleError("a pickle that pops an empty stack")
        return stack.pop()

    def top():
        if not stack:
            raise _PickleError("a pickle that reads an empty stack")
        return stack[-1]

    try:
        for count, (opcode, arg, pos) in enumerate(pickletools.genops(stream)):
            if (pos is not None and pos - start > limit) or count > OPCODE_LIMIT:
                raise _PickleError(
                    f"a pickle longer than {_mib(limit)} or {OPCODE_LIMIT:,} opcodes"
                )
            name = opcode.name
            if name == "PROTO":
                protocol = arg
            elif name in ("FRAME",):
                continue
            elif name == "STOP":
                if len(stack) != 1:
                    raise _PickleError(
                        f"a pickle that stops with {len(stack)} values on its stack"
                    )
                return _Pickle(stack[0], found_globals, calls, protocol, stream.tell())
            elif name == "MARK":
                marks.append(len(stack))
                stack.append(_MARK)
            elif name == "POP":
                pop()
            elif name == "POP_MARK":
                pop_mark()
            elif name == "DUP":
                stack.append(top())
            elif name in ("NONE",):
                stack.append(None)
            elif name in ("NEWTRUE", "NEWFALSE"):
                stack.append(name == "NEWTRUE")
            elif name in (
                "INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4", "FLOAT", "BINFLOAT",
                "STRING", "BINSTRING", "SHORT_BINSTRING", "UNICODE", "BINUNICODE", "SHORT_BINUNICODE",
                "BINUNICODE8", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8",
            ):  # fmt: skip
                stack.append(arg)
            elif name == "BYTEARRAY8":
                stack.append(bytes(arg))
            elif name == "EMPTY_LIST":
                stack.append([])
            elif name == "EMPTY_TUPLE":
                stack.append(())
            elif name == "EMPTY_DICT":
                stack.append(_Dict())
            elif name == "EMPTY_SET":
                stack.append(_Set())
            elif name == "LIST":
                stack.append(list(pop_mark()))
            elif name == "TUPLE":
                stack.append(tuple(pop_mark()))
            elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
                n = int(name[-1])
                items = [pop() for _ in range(n)][::-1]
                stack.append(tuple(items))
            elif name == "DICT":
                items = pop_mark()
                stack.append(_Dict(zip(items[::2], items[1::2], strict=False)))
            elif name == "FROZENSET":
                stack.append(_Set(pop_mark()))
            elif name in ("APPEND", "APPENDS"):
                items = [pop()] if name == "APPEND" else pop_mark()
                target = top()
                if isinstance(target, list):
                    target.extend(items)
                elif isinstance(target, _Obj):
                    target.elements.extend(items)
                else:
                    raise _PickleError(f"APPEND onto a {type(target).__name__}")
            elif name == "ADDITEMS":
                items = pop_mark()
                target = top()
                if isinstance(target, _Set):
                    target.elements.extend(items)
            elif name in ("SETITEM", "SETITEMS"):
                if name == "SETITEM":
                    value = pop()
                    key = pop()
                    pairs = [(key, value)]
                else:
                    items = pop_mark()
                    pairs = list(zip(items[::2], items[1::2], strict=False))
                target = top()
                if isinstance(target, _Dict | _Obj):
                    target.items.extend(pairs)
                else:
                    raise _PickleError(f"SETITEM onto a {type(target).__name__}")
            elif name in ("GET", "BINGET", "LONG_BINGET"):
                if arg not in memo:
                    raise _PickleError(f"a memo GET of {arg}, never PUT")
                stack.append(memo[arg])
            elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
                memo[arg] = top()
            elif name == "MEMOIZE":
                memo[len(memo)] = top()
            elif name in ("GLOBAL", "INST"):
                module, _, gname = str(arg).partition(" ")
                g = _global(module, gname)
                found_globals.append((g, pos))
                if name == "GLOBAL":
                    stack.append(g)
                else:
                    obj = _Obj(g, tuple(pop_mark()))
                    calls.append(obj)
                    stack.append(obj)
            elif name == "STACK_GLOBAL":
                gname, module = pop(), pop()
                if not isinstance(gname, str) or not isinstance(module, str):
                    raise _PickleError("STACK_GLOBAL of a name that is not a string")
                g = _global(module, gname)
                found_globals.append((g, pos))
                stack.append(g)
            elif name in ("EXT1", "EXT2", "EXT4"):
                g = _Global("copyreg extension", str(arg))
                found_globals.append((g, pos))
                stack.append(g)
            elif name == "REDUCE":
                args = pop()
                func = pop()
                obj = _Obj(func, args if isinstance(args, tuple) else (args,))
                calls.append(obj)
                stack.append(obj)
            elif name == "NEWOBJ":
                args = pop()
                cls = pop()
                obj = _Obj(cls, args if isinstance(args, tuple) else (args,))
                calls.append(obj)
                stack.append(obj)
            elif name == "NEWOBJ_EX":
                kwargs, args, cls = pop(), pop(), pop()
                obj = _Obj(
                    cls, (*(args if isinstance(args, tuple) else (args,)), kwargs)
                )
                calls.append(obj)
                stack.append(obj)
            elif name == "OBJ":
                items = pop_mark()
                if not items:
                    raise _PickleError("OBJ without a class")
                obj = _Obj(items[0], tuple(items[1:]))
                calls.append(obj)
                stack.append(obj)
            elif name == "BUILD":
                state = pop()
                target = top()
                if isinstance(target, _Obj):
                    target.state = state
            elif name == "PERSID":
                stack.append(_Persistent(arg))
            elif name == "BINPERSID":
                stack.append(_Persistent(pop()))
            elif name in ("NEXT_BUFFER", "READONLY_BUFFER"):
                g = _Global("pickle", "PickleBuffer (out-of-band)")
                found_globals.append((g, pos))
                stack.append(g)
            else:
                raise _PickleError(f"opcode {name} is not understood")
    except _PickleError:
        raise
    except (
        ValueError,
        IndexError,
        KeyError,
        EOFError,
        struct.error,
        UnicodeDecodeError,
        OverflowError,
    ) as error:
        raise _PickleError(f"a damaged pickle ({one_line(error, 160)})") from None
    raise _PickleError("a pickle without STOP (the stream ends before the pickle does)")


def _mapping(node):
    """The (key, value) pairs of a dict or OrderedDict node, else None."""
    if isinstance(node, _Dict):
        return node.items
    if (
        isinstance(node, _Obj)
        and isinstance(node.func, _Global)
        and str(node.func)
        in ("collections.OrderedDict", "builtins.dict", "__builtin__.dict")
        and not node.elements
    ):
        return node.items
    return None


def _last_wins(pairs) -> dict:
    out = {}
    for k, v in pairs:
        if isinstance(k, str | int | float | bool | bytes | type(None)):
            out[k] = v
    return out


# --------------------------------------------------------------------------------------------------------------
# Tensors, as the pickle describes them.


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
        if (
            self.offset < 0
            or len(self.stride) != len(self.shape)
            or min(self.stride, default=0) < 0
        ):
            return None
        last = sum(
            (n - 1) * abs(s) for n, s in zip(self.shape, self.stride, strict=False)
        )
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
    if (
        isinstance(value, _Obj)
        and isinstance(value.func, _Global)
        and str(value.func) == "torch.Size"
    ):
        value = value.args[0] if value.args else ()
    if isinstance(value, tuple | list) and all(
        type(v) is int and v >= 0 for v in value
    ):
        return tuple(value)
    return None


def _storage_of(node):
    """(key, dtype, location, numel, view) of a persistent storage id, or None."""
    if (
        not isinstance(node, _Persistent)
        or not isinstance(node.pid, tuple)
        or len(node.pid) < 5
    ):
        return None
    pid = node.pid
    typename = (
        pid[0].decode("ascii", "replace") if isinstance(pid[0], bytes) else pid[0]
    )
    if typename != "storage":
        return None
    storage_type, key, location, numel = pid[1:5]
    key = key.decode("ascii", "replace") if isinstance(key, bytes) else str(key)
    location = (
        location.decode("ascii", "replace")
        if isinstance(location, bytes)
        else str(location)
    )
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
    if (
        func == "torch._tensor._rebuild_from_type_v2"
        and len(args) >= 3
        and isinstance(args[2], tuple)
    ):
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
            return _Tensor(
                key, None, None, _ints(args[2]), _ints(args[3]), 0, None, "?", "other"
            )
        skey, dtype, location, numel, view = storage
        if func.endswith(
            "_v3"
        ):  # (untyped storage, offset, size, stride, requires_grad, hooks, dtype, ...)
            dtype = _dtype_global(args[6]) if len(args) > 6 else None
            numel = (
                numel // _itemsize(dtype)
                if numel is not None and dtype is not None
                else None
            )
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
    if (
        func == _REBUILD + "_rebuild_sparse_tensor"
        and len(args) >= 2
        and isinstance(args[1], tuple)
    ):
        parts = args[1]
        shape = next((_ints(p) for p in parts if _ints(p) is not None), None)
        pieces = [
            t for t in (_tensor_of(p, key, depth + 1) for p in parts) if t is not None
        ]
        dtype = (
            pieces[-1].dtype if pieces else None
        )  # the values' dtype (indices come first)
        return _Tensor(key, None, dtype, shape, None, 0, None, "?", "sparse")
    if func.startswith(_REBUILD + "_rebuild_"):
        return _Tensor(key, None, None, None, None, 0, None, "?", "other")
    return None


def _sub_tensors(node, key: str):
    """Tensors nested in a node that is not itself a tensor (a sparse tensor's indices and values)."""
    if (
        isinstance(node, _Obj)
        and isinstance(node.func, _Global)
        and "sparse" in node.func.name
    ):
        for part in (
            node.args[1]
            if len(node.args) > 1 and isinstance(node.args[1], tuple)
            else ()
        ):
            t = _tensor_of(part, key)
            if t is not None and t.storage is not None:
                yield t


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


# --------------------------------------------------------------------------------------------------------------
# Where the state dict is in what the pickle builds.

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


def _tensor_share(pairs) -> tuple[int, int]:
    """(tensors, entries) among the values of (key, value) pairs with string keys."""
    n = sum(1 for k, v in pairs if isinstance(k, str) and _tensor_of(v, "") is not None)
    return n, len(pairs)


def _is_state_dict(pairs) -> bool:
    tensors, entries = _tensor_share(pairs)
    return (
        tensors > 0
        and tensors * 2 >= entries
        and all(isinstance(k, str) for k, _ in pairs)
    )


def _module_state(
    node, prefix: str, out: dict, depth: int = 0, visits: list | None = None
) -> bool:
    """A pickled nn.Module's state_dict, from its __dict__ (_parameters, persistent _buffers, _modules)."""
    visits = [0] if visits is None else visits
    visits[0] += 1
    if (
        depth > 30
        or visits[0] > 100_000
        or not isinstance(node, _Obj)
        or node.state is None
    ):
        return False
    state = _mapping(node.state)
    if state is None:
        return False
    attrs = _last_wins(state)
    if "_parameters" not in attrs or "_modules" not in attrs:
        return False
    non_persistent = attrs.get("_non_persistent_buffers_set")
    skip = (
        {e for e in non_persistent.elements if isinstance(e, str)}
        if isinstance(non_persistent, _Set)
        else set()
    )
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


def _find_state_dict(root) -> _StateDict:
    pairs = _mapping(root)
    if pairs is not None and _is_state_dict(pairs):
        return _StateDict((), dict(_last_wins(pairs)), "flat", [], [])
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
            priority = (
                _STATE_DICT_NAMES.index(name)
                if name in _STATE_DICT_NAMES
                else len(_STATE_DICT_NAMES)
            )
            candidates.append(
                (priority, -_tensor_share(sub)[0], path, dict(_last_wins(sub)))
            )
            return
        module_sd = {}
        if _module_state(node, "", module_sd) and module_sd:
            candidates.append(
                (len(_STATE_DICT_NAMES), -len(module_sd), path, module_sd)
            )
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
        return _StateDict(
            (), {}, "none", [(k, _summary(v)) for k, v in top.items()], []
        )
    candidates.sort(key=lambda c: (c[0], c[1]))
    _, _, path, entries = candidates[0]
    others = [(k, _summary(v)) for k, v in top.items() if k != path[0]]
    return _StateDict(path, entries, "nested", others, [c[2] for c in candidates[1:]])


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


# --------------------------------------------------------------------------------------------------------------
# The zip archive, as bytes: the layout two zip readers could read differently.

_LOCAL = b"PK\x03\x04"
_CENTRAL = b"PK\x01\x02"
_EOCD = b"PK\x05\x06"
_EOCD64 = b"PK\x06\x06"
_LOCATOR = b"PK\x06\x07"
_DESCRIPTOR = b"PK\x07\x08"


@dataclasses.dataclass
class _Entry:
    index: int
    name: str
    flags: int
    method: int
    crc: int
    csize: int
    usize: int
    header: int  # offset of the local header (as the central directory says)
    data: int | None = None  # where the data starts, after the local header
    local_name: str | None = None
    local_method: int | None = None
    descriptor_crc: int | None = None
    descriptor_end: int | None = None
    problems: list = dataclasses.field(default_factory=list)

    @property
    def end(self) -> int | None:
        return None if self.data is None else self.data + self.csize


@dataclasses.dataclass
class _Layout:
    entries: list
    cd_offset: int
    cd_size: int
    eocd: int  # offset of the end-of-central-directory record
    end: int  # where the archive ends (after the EOCD and its comment)
    shift: int  # bytes before the archive that the central directory's offsets do not count (prepended data)
    declared: int  # entries the EOCD declares
    problems: list


def _zip64_extra(extra: bytes, need: list[str]) -> dict:
    out, pos = {}, 0
    while pos + 4 <= len(extra):
        tag, size = struct.unpack_from("<HH", extra, pos)
        body = extra[pos + 4 : pos + 4 + size]
        if tag == 1:
            for i, field in enumerate(need):
                if 8 * i + 8 <= len(body):
                    out[field] = struct.unpack_from("<Q", body, 8 * i)[0]
        pos += 4 + size
    return out


def _find_eocd(f: _File) -> int | None:
    """The offset of the last end-of-central-directory signature in the file's last 64 KiB + 22 bytes."""
    tail_start = max(0, f.size - (65535 + 22))
    tail = f.read(tail_start, f.size - tail_start)
    i = tail.rfind(_EOCD)
    while i >= 0 and len(tail) - i < 22:
        i = tail.rfind(_EOCD, 0, i)
    return None if i < 0 else tail_start + i


def _zip_layout(f: _File) -> tuple[_Layout | None, str]:
    """The central directory and local headers, parsed with bounds checks; (None, why) when there is none."""
    eocd = _find_eocd(f)
    if eocd is None:
        return None, "no end-of-central-directory record"
    raw = f.read(eocd, 22)
    _, _, _, _, declared, cd_size, cd_offset, comment = struct.unpack("<4s4H2LH", raw)
    end = eocd + 22 + comment
    problems = []
    if end > f.size:
        problems.append(
            f"the end record declares a {comment}-byte comment past the end of the file"
        )
        end = f.size
    cd_end = eocd
    locator = f.read(eocd - 20, 20) if eocd >= 20 else b""
    if locator[:4] == _LOCATOR:
        # the zip64 end record sits just before its locator (where Python's zipfile reads it); the locator also
        # gives its offset (where miniz reads it): the two differ when data was inserted in front of the archive
        _, _, stated, _ = struct.unpack("<4sLQL", locator)
        eocd64 = eocd - 20 - 56
        record = f.read(eocd64, 56) if eocd64 >= 0 else b""
        if len(record) == 56 and record[:4] == _EOCD64:
            _, _, _, _, _, _, _, declared, cd_size, cd_offset = struct.unpack(
                "<4sQ2H2L4Q", record
            )
            cd_end = eocd64
            if stated != eocd64 and stated != cd_offset + cd_size:
                problems.append(
                    f"the zip64 locator places the zip64 end record at byte {stated}, it is at byte {eocd64}"
                )
        else:
            problems.append("no zip64 end record before the zip64 locator")
    shift = cd_end - cd_size - cd_offset
    if cd_size > DIRECTORY_LIMIT or declared > ENTRY_LIMIT:
        return (
            None,
            (
                f"a central directory of {_mib(cd_size)} and {declared:,} entries (more than this report reads: "
                f"{_mib(DIRECTORY_LIMIT)}, {ENTRY_LIMIT:,} entries)"
            ),
        )
    if shift < 0:
        return (
            None,
            f"a central directory ({_mib(cd_size)} at byte {cd_offset}) that runs past its end record",
        )
    directory = f.read(cd_offset + shift, cd_size)
    entries, pos = [], 0
    while pos + 46 <= len(directory) and directory[pos : pos + 4] == _CENTRAL:
        fields = struct.unpack_from("<4s6H3L5H2L", directory, pos)
        flags, method, crc, csize, usize = (
            fields[3],
            fields[4],
            fields[7],
            fields[8],
            fields[9],
        )
        n_len, e_len, c_len, header = fields[10], fields[11], fields[12], fields[16]
        name_bytes = directory[pos + 46 : pos + 46 + n_len]
        extra = directory[pos + 46 + n_len : pos + 46 + n_len + e_len]
        need = [
            f
            for f, v in (("usize", usize), ("csize", csize), ("header", header))
            if v == 0xFFFFFFFF
        ]
        big = _zip64_extra(extra, need)
        entries.append(
            _Entry(
                len(entries),
                name_bytes.decode("utf-8" if flags & 0x800 else "cp437", "replace"),
                flags,
                method,
                crc,
                big.get("csize", csize),
                big.get("usize", usize),
                big.get("header", header),
            )
        )
        pos += 46 + n_len + e_len + c_len
    if len(entries) != declared:
        problems.append(
            f"the end record declares {declared} entries, the central directory holds {len(entries)}"
        )
    for e in entries:
        _read_local(f, e, shift)
    return _Layout(
        entries, cd_offset, cd_size, eocd, end, shift, declared, problems
    ), ""


def _read_local(f: _File, e: _Entry, shift: int) -> None:
    """The local header of an entry (where torch's reader and every other zip reader find its data)."""
    at = e.header + shift
    raw = f.read(at, 30)
    if len(raw) < 30 or raw[:4] != _LOCAL:
        e.problems.append(f"no local header at byte {at}")
        return
    _, _, flags, method, _, _, _, _, _, n_len, e_len = struct.unpack("<4s5H3L2H", raw)
    e.local_name = f.read(at + 30, n_len).decode(
        "utf-8" if flags & 0x800 else "cp437", "replace"
    )
    e.local_method = method
    e.data = at + 30 + n_len + e_len
    if e.local_name != e.name:
        e.problems.append(
            f"the central directory names it {e.name!r}, its local header {e.local_name!r}"
        )
    if method != e.method:
        e.problems.append(
            f"the central directory says method {e.method}, its local header {method}"
        )
    if e.data + e.csize > f.size:
        e.problems.append(
            f"its data ({_mib(e.csize)} from byte {e.data}) runs {_mib(e.data + e.csize - f.size)} past the end of the file"
        )
    if flags & 0x8:
        tail = f.read(e.data + e.csize, 24)
        if tail[:4] == _DESCRIPTOR:
            e.descriptor_crc = struct.unpack_from("<L", tail, 4)[0]
            wide = len(tail) >= 24 and struct.unpack_from("<QQ", tail, 8) == (
                e.csize,
                e.usize,
            )
            e.descriptor_end = e.data + e.csize + (24 if wide else 16)
        elif len(tail) >= 12:
            e.descriptor_crc = struct.unpack_from("<L", tail, 0)[0]
            e.descriptor_end = e.data + e.csize + 12
        if e.descriptor_crc is not None and e.descriptor_crc != e.crc and e.crc != 0:
            e.problems.append(
                f"its data descriptor says CRC {e.descriptor_crc:#010x}, the central directory {e.crc:#010x}"
            )


def _walk_local_headers(f: _File, budget: int) -> tuple[list, int]:
    """For an archive without its central directory (truncated): the complete entries from the front, as
    (name, data offset, data size), found by walking local headers and their data descriptors; and the offset
    where the first incomplete entry starts."""
    found, pos, searched = [], 0, 0
    while pos + 30 <= f.size:
        raw = f.read(pos, 30)
        if raw[:4] != _LOCAL:
            break
        _, _, flags, _, _, _, _, csize, _, n_len, e_len = struct.unpack(
            "<4s5H3L2H", raw
        )
        name = f.read(pos + 30, n_len).decode("utf-8", "replace")
        data = pos + 30 + n_len + e_len
        if not flags & 0x8 and csize not in (0, 0xFFFFFFFF):
            end = data + csize
            if end > f.size:
                return found, pos
            found.append((name, data, csize))
            pos = end
            continue
        # the size is in the data descriptor after the data: search for it (and the next header after it)
        at = data
        while True:
            block = f.read(at, CHUNK + 64)
            # Count what the search consumes (up to the descriptor it finds), not the whole block read:
            # a block can reach the end of a small file, which would count it once per entry.
            if not block or searched > budget:
                return found, pos
            hit = -1
            i = block.find(_DESCRIPTOR)
            while i >= 0 and i + 4 <= len(block):
                for width in (24, 16):
                    nxt = f.read(at + i + width, 4)
                    if nxt in (_LOCAL, _CENTRAL):
                        size = at + i - data
                        sizes = f.read(at + i + 8, 16)
                        if (
                            width == 24 and struct.unpack_from("<Q", sizes)[0] == size
                        ) or (
                            width == 16
                            and struct.unpack_from("<L", sizes)[0] == size & 0xFFFFFFFF
                        ):
                            hit = width
                            break
                if hit > 0:
                    break
                i = block.find(_DESCRIPTOR, i + 1)
            if hit > 0:
                searched += i + hit
                size = at + i - data
                found.append((name, data, size))
                pos = at + i + hit
                break
            searched += min(len(block), CHUNK)
            if len(block) < CHUNK + 64:
                return found, pos
            at += CHUNK
    return found, pos


# --------------------------------------------------------------------------------------------------------------
# Values: CRCs and NaN/inf counts over bounded chunks.


def _count_non_finite(chunk: torch.Tensor) -> tuple[int, int]:
    """(NaN, inf) among a 1-d tensor's values."""
    if not chunk.numel():
        return 0, 0
    try:
        if chunk.dtype.itemsize > 1 and bool(torch.isfinite(chunk.sum())):
            return 0, 0  # one reduction; a NaN or inf anywhere makes the sum non-finite
        return int(torch.isnan(chunk).sum()), int(torch.isinf(chunk).sum())
    except (RuntimeError, TypeError):
        nan = inf = 0
        for i in range(0, chunk.numel(), 2**22):
            part = chunk[i : i + 2**22].float()
            nan += int(torch.isnan(part).sum())
            inf += int(torch.isinf(part).sum())
        return nan, inf


def _floating(dtype) -> bool:
    return (
        dtype is not None
        and (dtype.is_floating_point or dtype.is_complex)
        and dtype.itemsize >= 1
    )


class _Scanner:
    """Reads a storage's bytes once, chunk by chunk: its CRC-32, and the NaN/inf counts of the dense tensors
    that view it (only the elements they view). Stops reading when the byte budget is spent."""

    def __init__(self, f: _File, budget: int | None):
        self.f = f
        self.budget = budget
        self.unscanned = []  # (what, bytes) not read for lack of budget
        self.skipped = []  # tensors whose views are too sparse to read in bounded pieces
        self.inflate_error = None  # why the last deflated record stopped inflating
        self.values = (
            True  # False: CRCs only (big-endian storages are not read as values)
        )

    def allowed(self, n: int) -> bool:
        return self.budget is None or self.f.scanned + n <= self.budget

    def storage(
        self,
        what: str,
        offset: int,
        n: int,
        views: list,
        crc: bool,
        inflate: bool = False,
        csize=0,
    ):
        """CRC of [offset, offset + n) (stored) or of the n bytes that the csize deflated bytes at offset
        inflate to; counts for `views`. Returns (crc, bytes seen) or None when not read."""
        if not self.allowed(n):
            self.unscanned.append((what, n))
            return None
        dense = (
            [t for t in views if _floating(t.dtype) and t.dense()]
            if self.values
            else []
        )
        value, seen = 0, 0
        source = (
            self._inflate(offset, csize, n) if inflate else self.f.chunks(offset, n)
        )
        for pos, chunk in source:
            if crc:
                value = zlib.crc32(chunk, value)
            for t in dense:
                self._count(t, pos, chunk)
            seen = pos + len(chunk)
        for t in dense:
            t.scanned = seen >= (t.span()[1] * t.itemsize)
        if inflate:
            self.f.scanned += max(0, seen - csize)  # the budget counts inflated bytes
        return value, seen

    def _inflate(self, offset: int, csize: int, limit: int):
        """Inflated bytes of a deflated record in CHUNK-sized pieces (so that every piece starts on an element),
        never more than `limit` bytes out: a zip bomb stops there."""
        d = zlib.decompressobj(-15)
        pending, out = bytearray(), 0
        for _, chunk in self.f.chunks(offset, csize):
            data = chunk
            while data and out + len(pending) < limit:
                try:
                    pending += d.decompress(data, CHUNK)
                except zlib.error as error:
                    self.inflate_error = one_line(error)
                    return
                data = d.unconsumed_tail
                del pending[limit - out :]
                while len(pending) >= CHUNK:
                    yield out, memoryview(bytearray(pending[:CHUNK]))
                    del pending[:CHUNK]
                    out += CHUNK
            if out + len(pending) >= limit:
                break
        if pending:
            yield out, memoryview(bytearray(pending))

    @staticmethod
    def _count(t: _Tensor, pos: int, chunk: memoryview) -> None:
        size = t.itemsize
        first, end = t.span()
        lo, hi = max(first * size, pos), min(end * size, pos + len(chunk))
        if hi <= lo:
            return
        lo -= pos
        hi -= pos
        hi -= (hi - lo) % size
        values = torch.frombuffer(chunk[lo:hi], dtype=t.dtype) if hi > lo else None
        if values is not None:
            nan, inf = _count_non_finite(values)
            t.nan += nan
            t.inf += inf

    def strided(self, t: _Tensor, offset: int) -> None:
        """NaN/inf counts of a tensor that views its storage with gaps (a slice, a transposed view): the span is
        read in pieces along its outermost dimension, each piece as_strided over what it views."""
        if not _floating(t.dtype) or not self.values:
            return
        first, end = t.span()
        if not self.allowed((end - first) * t.itemsize):
            self.unscanned.append((t.key, (end - first) * t.itemsize))
            return
        # A dimension of stride 0 (an expanded view) repeats the same elements: read them once, count them
        # as often as the view repeats them.
        repeats = math.prod(n for n, s in zip(t.shape, t.stride, strict=True) if s == 0)
        dims = [d for d in range(len(t.shape)) if t.stride[d] != 0 and t.shape[d] != 1]
        if not dims:  # every element is the one at the offset
            raw = bytearray(self.f.read(offset + first * t.itemsize, t.itemsize))
            self.f.scanned += len(raw)
            if len(raw) == t.itemsize:
                nan, inf = _count_non_finite(torch.frombuffer(raw, dtype=t.dtype))
                t.nan, t.inf, t.scanned = (
                    t.nan + nan * repeats,
                    t.inf + inf * repeats,
                    True,
                )
            return
        order = sorted(dims, key=lambda d: -abs(t.stride[d]))
        outer = order[0]
        inner_shape = [t.shape[d] for d in order[1:]]
        inner_stride = [t.stride[d] for d in order[1:]]
        inner = (
            sum((n - 1) * s for n, s in zip(inner_shape, inner_stride, strict=True)) + 1
        )
        if (
            inner * t.itemsize > 4 * CHUNK
        ):  # one row alone spans too much: not read in bounded pieces
            self.skipped.append(t.key)
            return
        step = max(1, (CHUNK // t.itemsize - inner) // max(1, t.stride[outer]) + 1)
        for i in range(0, t.shape[outer], step):
            rows = min(step, t.shape[outer] - i)
            start = t.offset + i * t.stride[outer]
            count = (rows - 1) * t.stride[outer] + inner
            raw = bytearray(
                self.f.read(offset + start * t.itemsize, count * t.itemsize)
            )
            self.f.scanned += len(raw)
            if len(raw) < count * t.itemsize:
                return
            base = torch.frombuffer(raw, dtype=t.dtype)
            view = base.as_strided(
                [rows, *inner_shape], [t.stride[outer], *inner_stride]
            )
            nan, inf = _count_non_finite(view.reshape(-1))
            t.nan += nan * repeats
            t.inf += inf * repeats
        t.scanned = True


# --------------------------------------------------------------------------------------------------------------
# What kind of file this is, from its first and last bytes.


def _what_else(f: _File, head: bytes) -> str:
    """Why a file is not a checkpoint: what it looks like instead."""
    if f.size == 0:
        return "an empty file (0 bytes): an interrupted download or save"
    stripped = head.lstrip()
    lower = stripped[:512].lower()
    if (
        lower.startswith((b"<!doctype html", b"<html", b"<?xml", b"<head", b"<body"))
        or b"<html" in lower[:200]
    ):
        title = re.search(
            rb"<title>(.{0,80}?)</title>", head, re.IGNORECASE | re.DOTALL
        )
        named = (
            f" ({title.group(1).decode('utf-8', 'replace').strip()!r})" if title else ""
        )
        return (
            f"an HTML page{named}, {f.size} bytes: a server's error or login page saved in place of the file "
            "(download it again, with the token or the direct link)"
        )
    if stripped.startswith(b"version https://git-lfs"):
        return (
            "a Git LFS pointer (a text stub): run `git lfs pull` to fetch the real file"
        )
    if not head.strip(b"\0"):
        tail = f.read(max(0, f.size - 65536), 65536)
        where = (
            "only zero bytes"
            if not tail.strip(b"\0")
            else "zero bytes where its header should be"
        )
        return f"{where} ({f.size} bytes): space reserved but never written, or a block the disk lost"
    if head.startswith(b"\x1f\x8b"):
        return "a gzip-compressed file: decompress it first (gunzip), then inspect what comes out"
    if head.startswith(b"\x89HDF"):
        return "an HDF5 file (Keras .h5 weights?), not a PyTorch checkpoint"
    if head.startswith(b"GGUF"):
        return "a GGUF file (llama.cpp), not a PyTorch checkpoint"
    if head.startswith(b"\x93NUMPY"):
        return "a NumPy .npy array: numpy.load reads it; torch.from_numpy turns it into a tensor"
    if head.startswith((b"PK\x05\x06", b"PK\x01\x02")):
        return "a zip archive without entries"
    if head.startswith(b"PYTORCH1"):
        return (
            "a zip archive from the preview release of the format, which torch refuses"
        )
    if stripped.startswith((b"{", b"[")):
        return "a JSON or text file (a config? an index of shards?), not a tensor file"
    try:
        text = head[:4096].decode("utf-8")
    except UnicodeDecodeError:
        return f"{f.size} bytes in no format torch or safetensors reads (it starts with {bytes(head[:8])!r})"
    first = text.strip().splitlines()[0][:80] if text.strip() else ""
    return f"a text file, {f.size} bytes, starting {first!r}"


def _special_file(path) -> str | None:
    """What a path that exists but is neither a regular file nor a directory is (a named pipe, a device, a
    socket), in words; None for anything else (a missing path is the caller's to report)."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    for test, what in (
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return what
    return "a special file"


def _device_here(location: str) -> bool:
    """Whether this machine has the device a storage was saved on ("cuda:1", "mps", "xpu:0")."""
    kind, _, index = location.partition(":")
    if kind == "mps":
        return torch.backends.mps.is_available()
    module = getattr(torch, kind, None)
    try:
        if not module.is_available():
            return False
        return not index or int(index) < (
            module.device_count() if hasattr(module, "device_count") else 1
        )
    except (AttributeError, ValueError, RuntimeError):
        return False


def _pickle_like(f: _File) -> bool:
    """A pickle of protocol 0 or 1 (text opcodes, no PROTO): whether one parses from the start of the file."""
    try:
        _parse_pickle(_BoundedStream(f), min(f.size, PICKLE_LIMIT))
    except _PickleError:
        return False
    return True


def _offsets(spec) -> tuple[int, int] | None:
    """A safetensors header entry's data_offsets as (begin, end), or None where they are not [begin, end]."""
    offsets = spec.get("data_offsets") if isinstance(spec, dict) else None
    if (
        isinstance(offsets, list)
        and len(offsets) == 2
        and all(type(o) is int and o >= 0 for o in offsets)
        and offsets[0] <= offsets[1]
    ):
        return offsets[0], offsets[1]
    return None


def _safetensors_like(head: bytes, size: int) -> bool:
    if len(head) < 9 or size < 10:
        return False
    n = struct.unpack_from("<Q", head)[0]
    return 2 <= n <= min(HEADER_LIMIT, size - 8) and head[8:9] == b"{"


# --------------------------------------------------------------------------------------------------------------
# The inspection.


class _Inspection:
    def __init__(self, path: str, model: nn.Module | None, scan_bytes: int | None):
        self.path = path
        self.model = model
        self.scan_bytes = scan_bytes
        self.findings: list[Finding] = []
        self.format = None
        self.tensors: list[_Tensor] = []  # every tensor of the state dict
        self.sd: _StateDict | None = None
        self.entries: dict = {}  # state-dict key -> node
        self.records: list[dict] = []
        self.prefix = ""
        self.f: _File | None = None
        self.scanner: _Scanner | None = None
        self.refused = False  # weights_only refuses the file
        self.load_outcome: str | None = None  # set by _against when every key fits
        self.tied_notes: dict = {}  # frozenset of tied keys -> index of their "tied keys" note

    def add(self, severity: str, kind: str, path: str, message: str) -> None:
        self.findings.append(_finding(severity, kind, path, message))

    def not_a_checkpoint(self, why: str) -> None:
        self.add("error", "not a checkpoint", "", f"not a checkpoint: {why}")

    # ----------------------------------------------------------------------------------------------------------
    def run(self) -> None:
        if os.path.isdir(self.path):
            self.not_a_checkpoint(self._directory())
            return
        special = _special_file(self.path)
        # Opening a named pipe blocks, a device never ends: neither is read.
        if special is not None:
            self.not_a_checkpoint(
                f"{special}, not a regular file: torch.load would wait on it or read it without end; "
                "save the checkpoint to a file and inspect that"
            )
            return
        try:
            self.f = _File(self.path)
        except IsADirectoryError:
            self.not_a_checkpoint(self._directory())
            return
        except NotRegular as error:
            self.not_a_checkpoint(str(error))
            return
        except OSError as error:
            why = error.strerror or one_line(error, 200)  # no path: the caller knows it
            self.not_a_checkpoint(f"the file cannot be opened ({why})")
            return
        try:
            self.scanner = _Scanner(self.f, self.scan_bytes)
            head = self.f.read(0, 65536)
            length = struct.unpack_from("<Q", head)[0] if len(head) >= 8 else None
            if head[:4] == _LOCAL:
                self.format = "zip"
                self._zip()
                return
            if _safetensors_like(head, self.f.size) or (
                self.path.endswith(".safetensors")
                and length is not None
                and length < 2**32
            ):
                self.format = "safetensors"
                self._safetensors(head)
            elif (
                head[:1] == b"\x80" and len(head) > 1 and head[1] in (2, 3, 4, 5)
            ) or _pickle_like(self.f):
                self._legacy()
            elif len(head) >= 262 and head[257:262] == b"ustar":
                self.format = "legacy tar"
                self.add(
                    "error",
                    "weights_only",
                    "",
                    "a tar archive: the oldest torch.save format (storages, tensors, pickle); torch.load(weights_only=True) "
                    "refuses it ('Cannot use weights_only=True with files saved in the legacy .tar format'), and "
                    "weights_only=False unpickles it, running whatever it names: re-save it from a trusted "
                    "environment",
                )
            else:
                named = (
                    "named .safetensors, but "
                    if self.path.endswith(".safetensors")
                    else ""
                )
                self.not_a_checkpoint(named + _what_else(self.f, head))
            self._embedded_zip()
        finally:
            self.f.close()

    def _directory(self) -> str:
        if os.path.exists(os.path.join(self.path, ".metadata")):
            return (
                "a directory holding a torch.distributed.checkpoint (DCP) save: load it with "
                "torch.distributed.checkpoint.load, or convert it with "
                "torch.distributed.checkpoint.format_utils.dcp_to_torch_save"
            )
        return "a directory, not a file"

    def _embedded_zip(self) -> None:
        """A file that is not a zip at its start but ends like one: a zip with data in front of it."""
        if self.f.size < 22 or self.f.read(0, 4) == _LOCAL:
            return
        layout, _ = _zip_layout(self.f)
        if layout is None or not layout.entries:
            return
        first = min(e.header + layout.shift for e in layout.entries)
        self.add(
            "error",
            "archive layout",
            "",
            f"a zip archive ({len(layout.entries)} entries: {_names(e.name for e in layout.entries)}) lies behind "
            f"{first} bytes of other data: torch.load checks only the first four bytes for a zip signature "
            "(torch.serialization._is_zipfile), finds none and reads the file as a legacy pickle, while Python's "
            "zipfile and unzip find the archive from its end. Two readers, two different files: treat it as "
            "hostile, or cut the prefix off if you made it",
        )

    # ----------------------------------------------------------------------------------------------------------
    # zip: torch.save's format
    def _zip(self) -> None:
        f = self.f
        layout, why = _zip_layout(f)
        if self.path.endswith(".safetensors"):
            self.add(
                "error",
                "file name",
                "",
                "a torch.save zip archive named .safetensors: torch.load hands every path ending in .safetensors to "
                "safetensors.torch.load_file, which refuses it (SafetensorError: header too large); rename it .pt (or load it from an open file object)",
            )
        with self.f.reopen() as opened:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    reader = torch._C.PyTorchFileReader(
                        opened
                    )  # what torch.serialization._open_zipfile_reader does
                    records = reader.get_all_records()
            except Exception as error:  # noqa: BLE001 (torch's reader refuses the archive: say why)
                self._zip_refused(layout, why, error)
                return
            self._zip_records(reader, records, layout, why)

    def _zip_records(
        self, reader, records: list, layout: _Layout | None, why: str
    ) -> None:
        if (
            layout is None
        ):  # torch's reader read it and ours did not: trust torch's, report ours
            self.add(
                "warning",
                "archive layout",
                "",
                f"torch's reader opens the archive, but {why}",
            )
            return
        archive = layout.entries[0].name.partition("/")[0] if layout.entries else ""
        by_name = defaultdict(list)
        for e in layout.entries:
            by_name[e.name].append(e)
        info = {}

        def locate(name):
            """(size, data offset) as torch's reader resolves them. torch 2.6's reader has no
            get_record_size, and its get_record_offset allocates a compressed record's declared size:
            there the directory entry gives both (the layout findings say where ours and miniz's differ)."""
            if hasattr(reader, "get_record_size"):
                return reader.get_record_size(name), reader.get_record_offset(name)
            entry = by_name[f"{archive}/{name}"][-1]
            return (
                entry.usize,
                entry.data if entry.method else reader.get_record_offset(name),
            )

        for name in records:
            try:
                info[name] = locate(name)
            except Exception as error:  # noqa: BLE001
                self.add(
                    "error",
                    "archive layout",
                    name,
                    f"torch's reader cannot locate record {name}: {_short(error)}",
                )
        self._layout_findings(layout, archive, by_name, info)
        if "constants.pkl" in records or any(r.startswith("code/") for r in records):
            self.format = "torchscript"
            self.add(
                "error",
                "weights_only",
                "",
                "a TorchScript archive (torch.jit.save: constants.pkl, code/): torch.load(weights_only=True) refuses "
                "it ('Cannot use weights_only=True with TorchScript archives'); torch.jit.load loads it and runs its "
                "TorchScript code. Its parameters: torch.jit.load(path).state_dict()",
            )
            self._crc_pass(layout, archive, {})
            return
        if "data.pkl" not in info:
            self.not_a_checkpoint(
                f"a zip archive without data.pkl (records: {_names(records)}): not written by torch.save"
            )
            return
        small = {}
        for name in (
            ".data/version",
            "version",
            "byteorder",
            ".format_version",
            ".storage_alignment",
        ):
            if name in info and info[name][0] <= SMALL_RECORD:
                try:
                    small[name] = (
                        bytes(reader.get_record(name))
                        .decode("ascii", "replace")
                        .strip()
                    )
                except Exception as error:  # noqa: BLE001 (a damaged record: say so, go on)
                    self.add(
                        "error",
                        "archive layout",
                        name,
                        f"torch's reader cannot read record {name}: {_short(error)}; torch.load fails on it",
                    )
        pkl_size = info["data.pkl"][0]
        pkl_entry = (by_name.get(f"{archive}/data.pkl") or [None])[-1]
        if pkl_size > PICKLE_LIMIT:
            self.add(
                "warning",
                "record size",
                "data.pkl",
                f"data.pkl declares {_mib(pkl_size)}, more than this report reads ({_mib(PICKLE_LIMIT)}; a state "
                "dict's holds kilobytes to megabytes): torch.load allocates that much and unpickles it all. Its "
                "tensors are not described here; the records' CRCs are checked",
            )
            self._crc_pass(layout, archive, {})
            return
        if pkl_entry is not None and pkl_entry.method not in (0, 8):
            self.add(
                "error",
                "compressed record",
                "data.pkl",
                f"data.pkl is compressed with method {pkl_entry.method}, which miniz cannot read",
            )
            return
        try:
            data = bytes(reader.get_record("data.pkl"))
        except Exception as error:  # noqa: BLE001
            self.add(
                "error",
                "archive layout",
                "data.pkl",
                f"torch's reader cannot read data.pkl: {_short(error)}",
            )
            return
        try:
            parsed = _parse_pickle(io.BytesIO(data))
        except _PickleError as error:
            self.add(
                "error",
                "not a checkpoint",
                "data.pkl",
                f"not a checkpoint: data.pkl is {error}; torch.load fails on it",
            )
            self._crc_pass(layout, archive, {})
            return
        self._globals(parsed)
        self._torch_load_meta()
        self._describe(
            parsed,
            small,
            f"zip (torch.save), format version {small.get('.data/version') or small.get('version', '?')}",
        )
        self._zip_storages(layout, archive, by_name, info, small)

    def _zip_refused(self, layout: _Layout | None, why: str, error: Exception) -> None:
        """torch's reader refuses the archive: find out why, from the bytes."""
        message = f"torch.load fails with {_short(error, 160)}"
        try:  # the same reader given the path (miniz reads the file itself) words it differently
            torch._C.PyTorchFileReader(self.path)
        except Exception as other:  # noqa: BLE001
            said = _short(other, 240)
            if said not in message:
                message += f"; torch's reader given the path: {said}"
        if layout is None:
            found, stop = _walk_local_headers(self.f, self.scan_bytes or self.f.size)
            names = [n.partition("/")[2] or n for n, _, _ in found]
            pkl = next(((d, s) for n, d, s in found if n.endswith("/data.pkl")), None)
            described = ""
            if pkl is not None and pkl[1] <= PICKLE_LIMIT:
                try:
                    parsed = _parse_pickle(io.BytesIO(self.f.read(pkl[0], pkl[1])))
                    keys = {
                        t.storage
                        for _, t, _ in _walk(parsed.root, "", set())
                        if t.storage is not None
                    }
                    complete = {
                        n.partition("data/")[2] for n in names if n.startswith("data/")
                    }
                    described = (
                        f"; data.pkl names {len(keys)} storage(s), {len(keys & complete)} of them complete in what is "
                        "left"
                    )
                except _PickleError:
                    pass
            self.add(
                "error",
                "truncated",
                "",
                f"truncated: a zip archive of {_mib(self.f.size)} that stops before its end: the central "
                f"directory and end record that close every zip are missing. {len(found)} complete "
                f"record(s) at its start ({_names(names)}), the next one cut at byte {stop}{described}. A "
                "partial download or a save killed before it finished: download or save it again. "
                f"({message})",
            )
            return
        prefix = self._layout_findings(layout, "", None, None)
        if not prefix:
            names = [e.name for e in layout.entries]
            hint = ""
            if names and "/" not in names[0]:
                hint = (
                    f". Its entries ({_names(names, 4)}) are not inside one folder, as torch.save writes them "
                    "(archive/data.pkl, archive/data/0, ...): re-zipped without the folder, or a zip of something "
                    "else (a NumPy .npz?)"
                )
            self.add(
                "error", "not a checkpoint", "", f"not a checkpoint: {message}{hint}"
            )

    def _layout_findings(self, layout: _Layout, archive: str, by_name, info) -> bool:
        """Findings on the archive's bytes: what two zip readers would read differently. True if any."""
        f, found = self.f, False
        for problem in layout.problems:
            self.add(
                "error",
                "archive layout",
                "",
                f"the archive's end record is inconsistent: {problem}",
            )
            found = True
        if layout.shift > 0:
            self.add(
                "error",
                "archive layout",
                "",
                f"{layout.shift} bytes inside the archive that its central directory does not count (data inserted "
                "before the entries, or a directory written for another file): Python's zipfile shifts every offset "
                "to make up for it, torch's miniz reader does not, so the two read different bytes",
            )
            found = True
        if layout.end < f.size:
            self.add(
                "warning",
                "archive layout",
                "",
                f"{f.size - layout.end} bytes after the end of the archive: zip readers ignore them, other tools may "
                "not; a file appended to or written over a longer one",
            )
            found = True
        ordered = sorted(
            (e for e in layout.entries if e.data is not None), key=lambda e: e.header
        )
        for a, b in itertools.pairwise(ordered):
            if (a.descriptor_end or a.end) > b.header + layout.shift:
                self.add(
                    "error",
                    "archive layout",
                    b.name,
                    f"entries {a.name!r} and {b.name!r} overlap in the file (bytes {b.header + layout.shift}.."
                    f"{a.descriptor_end or a.end}): a zip-bomb construction, or a damaged directory; the same bytes "
                    "are read as two records",
                )
                found = True
        for e in layout.entries:
            for problem in e.problems:
                severity = (
                    "warning" if problem.startswith("its data descriptor") else "error"
                )
                self.add(
                    severity, "archive layout", e.name, f"entry {e.name!r}: {problem}"
                )
                found = True
            if e.method == 0 and e.csize != e.usize:
                self.add(
                    "error",
                    "archive layout",
                    e.name,
                    f"entry {e.name!r} is stored (not compressed) yet declares {e.csize:,} bytes in the file and "
                    f"{e.usize:,} unpacked: miniz, torch's reader, refuses the archive",
                )
                found = True
            if e.method == 8 and e.usize > 2**26 and e.usize > 1000 * max(e.csize, 1):
                self.add(
                    "error",
                    "compressed record",
                    e.name,
                    f"entry {e.name!r} declares {_mib(e.usize)} inflated from {_mib(e.csize)} (a ratio over "
                    f"{e.usize // max(e.csize, 1):,}): a zip bomb; torch's reader allocates the declared size before "
                    "inflating",
                )
                found = True
            elif e.method not in (0, 8):
                self.add(
                    "error",
                    "compressed record",
                    e.name,
                    f"entry {e.name!r} uses compression method {e.method}, which torch's reader (miniz) cannot read",
                )
                found = True
            if e.flags & 0x1:
                self.add(
                    "error",
                    "archive layout",
                    e.name,
                    f"entry {e.name!r} is encrypted: miniz cannot read it",
                )
                found = True
        if archive and by_name is not None:
            for name, group in by_name.items():
                if len(group) > 1:
                    short = name.partition("/")[2]
                    took = info.get(short, (None, None))[1]
                    torch_index = next((e.index for e in group if e.data == took), None)
                    self.add(
                        "error",
                        "duplicate record",
                        short,
                        f"{len(group)} entries named {name!r} (central directory entries "
                        f"{', '.join(str(e.index) for e in group)}): torch's reader (miniz, a binary search over "
                        f"sorted names) takes entry {torch_index}, Python's zipfile the last one ({group[-1].index}), "
                        "other tools the first: the file means different things to different readers",
                    )
                    found = True
        return found

    def _crc_pass(self, layout: _Layout, archive: str, views_by_record: dict) -> None:
        """CRC-32 of every record (and NaN/inf counts of the tensors that view each), within the byte budget."""
        zero = [e for e in layout.entries if e.crc == 0 and e.usize > 0]
        bad, inflated = [], 0
        for e in layout.entries:
            short = (
                e.name.partition("/")[2] if e.name.startswith(archive + "/") else e.name
            )
            views = views_by_record.get(short, [])
            row = {
                "name": short,
                "bytes": e.usize,
                "offset": e.data,
                "compressed": e.method != 0,
                "crc": None,
            }
            self.records.append(row)
            if (
                e.data is None
                or e.data + e.csize > self.f.size
                or e.method not in (0, 8)
            ):
                continue
            if (
                e.method == 8
            ):  # a compressed record is an error already; inflate it within a budget
                inflated += e.usize
                if inflated > max(INFLATE_RATIO * self.f.size, INFLATE_FLOOR):
                    continue
            check = e.crc != 0 or e.usize == 0
            if e.method == 0:
                result = self.scanner.storage(short, e.data, e.csize, views, crc=check)
            else:
                result = self.scanner.storage(
                    short,
                    e.data,
                    e.usize,
                    views,
                    crc=check,
                    inflate=True,
                    csize=e.csize,
                )
            if result is None:
                continue
            value, seen = result
            if e.method == 8 and seen < e.usize:
                why = (
                    f" ({self.scanner.inflate_error})"
                    if self.scanner.inflate_error
                    else ""
                )
                self.add(
                    "error",
                    "compressed record",
                    short,
                    f"record {short} inflates to {_mib(seen)}, not the {_mib(e.usize)} it declares{why}: damaged; "
                    "torch.load fails on it",
                )
                self.scanner.inflate_error = None
                continue
            if check:
                row["crc"] = value == e.crc
                if value != e.crc:
                    bad.append((e, short, value, views))
        for e, short, value, views in bad:
            held = (
                f" (holding {_names(sorted({t.key for t in views}), 4)})"
                if views
                else ""
            )
            what = "the pickle itself" if short == "data.pkl" else "its values"
            self.add(
                "error",
                "bad crc",
                short,
                f"record {short}{held} fails its CRC-32 (the directory says {e.crc:#010x}, its bytes give "
                f"{value:#010x}): {what} changed after saving (a bit flip, a zeroed block, an edit). {NO_CRC_CHECK}, "
                "so it would load the damaged bytes silently",
            )
        if zero:
            self.add(
                "note",
                "no crc",
                "",
                f"{len(zero)} record(s) carry CRC 0 ({_names(e.name.partition('/')[2] for e in zero)}): torch.save "
                "writes 0 when saved under torch.serialization.set_crc32_options(False), and for every storage saved "
                "under torch.serialization.skip_data(); their bytes cannot be checked. Not damage in itself",
            )

    def _zip_storages(self, layout, archive, by_name, info, small) -> None:
        alignment = small.get(".storage_alignment")
        alignment = (
            int(alignment)
            if alignment and alignment.isdigit() and int(alignment) > 0
            else 64
        )
        compressed, misaligned = [], []
        views = defaultdict(list)
        for t in [*self.all_tensors, *self.tensors]:
            if t.storage is not None:
                views[f"data/{t.storage}"].append(t)
        for record, ts in views.items():
            key = record.partition("/")[2]
            t0 = ts[0]
            if record not in info:
                self.add(
                    "error",
                    "missing record",
                    t0.key,
                    f"the pickle points {_names(sorted({t.key for t in ts}), 4)} at storage {key}, but the archive has "
                    f"no record {record}: torch.load fails ('file not found: {archive}/{record}')",
                )
                continue
            size, _ = info[record]
            declared = (t0.storage_numel or 0) * t0.itemsize
            if t0.storage_numel is not None and declared != size:
                self.add(
                    "error",
                    "record size",
                    t0.key,
                    f"storage {key} declares {_mib(declared)} ({t0.storage_numel} × {_dtype_name(t0.dtype)}), its "
                    f"record holds {_mib(size)}: torch.load raises (record size mismatch) and "
                    "torch.load(mmap=True) reads "
                    + (
                        "past it into the next record"
                        if declared > size
                        else "only part of it"
                    ),
                )
            for t in ts:
                span = t.span()
                if (
                    span is not None
                    and t.storage_numel is not None
                    and span[1] > t.storage_numel
                ):
                    self.add(
                        "error",
                        "record size",
                        t.key,
                        f"{t.key} ({t.describe()}, offset {t.offset}, stride {t.stride}) views elements up to "
                        f"{span[1]} of a storage of {t.storage_numel}: torch.load fails (setStorage out of bounds)",
                    )
                    t.storage_numel = None  # not scanned
            entry = (by_name.get(f"{archive}/{record}") or [None])[-1]
            if entry is not None and entry.method != 0:
                compressed.append((record, entry, ts))
            elif (
                entry is not None
                and entry.data is not None
                and entry.data % int(alignment or 64)
            ):
                misaligned.append((record, entry))
        if compressed:
            record, entry, ts = compressed[0]
            # mmap=True slices the mapped file at the record's offset for its inflated size: past the end of the
            # file the slice is short and the load raises; inside it, the compressed bytes become the values.
            past = [
                r
                for r, e, views_r in compressed
                if info[r][1] + (views_r[0].storage_numel or 0) * views_r[0].itemsize
                > self.f.size
            ]
            mapped = (
                f"raises, since {past[0]} declares more bytes than the file holds after its offset (RuntimeError: "
                "Trying to resize storage that is not resizable); where they fit, it loads garbage without an error"
                if past
                else "loads garbage without an error, since the declared bytes fit inside the file"
            )
            self.add(
                "error",
                "compressed record",
                record,
                f"{len(compressed)} storage record(s) are compressed ({_names(r for r, _, _ in compressed)}; "
                f"{record}: method {entry.method}, {_mib(entry.csize)} for {_mib(entry.usize)}): torch.load "
                "inflates them, but torch.load(mmap=True) reads the compressed bytes as the tensors' values: here "
                f"it {mapped}. torch.save never compresses: the archive was rewritten by another "
                "tool (re-zipped?); re-save it with torch.save",
            )
        if misaligned:
            record, entry = misaligned[0]
            self.add(
                "warning",
                "archive layout",
                record,
                f"{len(misaligned)} storage record(s) start off the {alignment or 64}-byte boundary torch.save keeps "
                f"({_names(r for r, _ in misaligned)}; {record} at byte {entry.data}): the archive was rewritten by "
                "another tool; torch.load(mmap=True) maps misaligned tensors",
            )
        unreferenced = [
            r
            for r in info
            if r.startswith("data/")
            and r not in views
            and r != "data.pkl"
            and info[r][0] > 0
        ]
        if unreferenced:
            total = sum(info[r][0] for r in unreferenced)
            self.add(
                "note",
                "unreferenced record",
                unreferenced[0],
                f"{len(unreferenced)} storage record(s) no tensor in the pickle points at ({_names(unreferenced)}, "
                f"{_mib(total)}): dead bytes, loaded by nothing",
            )
        scanned = {id(t) for t in self.tensors}
        usable = {
            r: [t for t in ts if t.storage_numel is not None and id(t) in scanned]
            for r, ts in views.items()
        }
        self._crc_pass(layout, archive, usable)
        for record, ts in usable.items():
            entry = (by_name.get(f"{archive}/{record}") or [None])[-1]
            if entry is None or entry.data is None or entry.method != 0:
                continue
            for t in ts:
                if _floating(t.dtype) and not t.dense() and t.span() is not None:
                    self.scanner.strided(t, entry.data)
        self._values()

    # ----------------------------------------------------------------------------------------------------------
    # legacy: torch.save(..., _use_new_zipfile_serialization=False), a sequence of pickles and raw storages
    def _legacy(self) -> None:
        f = self.f
        stream = _BoundedStream(f)
        try:
            magic = _parse_pickle(stream, 4096)
        except _PickleError:
            # Not a magic number: torch.save's is a few bytes. A plain pickle of any size still says what it
            # would run (pickle.dump of a dict with a payload), so it is read whole before being called unreadable.
            stream.seek(0)
            try:
                magic = _parse_pickle(stream)
            except _PickleError as whole:
                self.not_a_checkpoint(f"a pickle that cannot be read ({whole})")
                return
        if magic.root != 0x1950A86A20F9469CFC6C:
            stream.seek(0)
            try:
                parsed = _parse_pickle(stream)
            except _PickleError as error:
                self.not_a_checkpoint(f"a pickle that cannot be read ({error})")
                return
            self.format = None
            self.add(
                "error",
                "not a checkpoint",
                "",
                "not a checkpoint: a plain pickle, not written by torch.save (torch.load reads the first pickled "
                "value as torch.save's magic number and raises 'Invalid magic number; corrupt file?'); "
                "pickle.load runs whatever it names",
            )
            self._globals(parsed)
            return
        self.format = "legacy"
        try:
            protocol = _parse_pickle(stream, 4096)
            sys_info = _parse_pickle(stream, 65536)
            main_start = stream.tell()
            parsed = _parse_pickle(stream)
            keys = _parse_pickle(stream)
        except _PickleError as error:
            truncated = (
                stream.tell() >= f.size
            )  # the pickles ran out of file, not out of sense
            if truncated:
                self.add(
                    "error",
                    "truncated",
                    "",
                    f"truncated: a legacy torch.save file that ends at byte {f.size:,}, inside its pickles ({error}): "
                    "torch.load fails. A partial download or a save killed before it finished",
                )
            else:
                self.not_a_checkpoint(
                    f"a legacy torch.save file whose pickles cannot be read ({error})"
                )
            return
        info = _last_wins(_mapping(sys_info.root) or [])
        little = info.get("little_endian", True)
        self._globals(parsed)
        self._weights_only_legacy(main_start)
        self._describe(
            parsed,
            {"byteorder": "little" if little else "big"},
            f"legacy (torch.save with _use_new_zipfile_serialization=False, protocol {protocol.root}): "
            "torch.load(mmap=True) refuses it; no checksums in the format: damaged values go unnoticed unless they are "
            "NaN/inf",
        )
        storage_keys = keys.root if isinstance(keys.root, list) else []
        by_key = defaultdict(list)
        for t in [*self.all_tensors, *self.tensors]:
            if t.storage is not None:
                by_key[t.storage].append(t)
        in_sd = {id(t) for t in self.tensors}
        pos = keys.end
        order = "<" if little else ">"
        for key in storage_keys:
            ts = by_key.get(key, [])
            head = f.read(pos, 8)
            if len(head) < 8:
                self._legacy_truncated(key, ts, pos)
                return
            numel = struct.unpack(order + "q", head)[0]
            t0 = ts[0] if ts else None
            size = _itemsize(t0.dtype) if t0 is not None else 1
            if (
                t0 is not None
                and t0.storage_numel is not None
                and numel != t0.storage_numel
            ):
                self.add(
                    "error",
                    "record size",
                    t0.key,
                    f"storage {key}: the pickle declares {t0.storage_numel} elements, the data section {numel}: damaged",
                )
            if numel < 0 or pos + 8 + numel * size > f.size:
                self._legacy_truncated(key, ts, pos)
                return
            self.records.append(
                {
                    "name": key,
                    "bytes": numel * size,
                    "offset": pos + 8,
                    "compressed": False,
                    "crc": None,
                }
            )
            usable = []
            for t in ts:
                span = t.span()
                if span is not None and span[1] > numel:
                    self.add(
                        "error",
                        "record size",
                        t.key,
                        f"{t.key} views elements past its storage of {numel}",
                    )
                elif t.view is None and id(t) in in_sd:
                    usable.append(t)
            self.scanner.storage(key, pos + 8, numel * size, usable, crc=False)
            for t in usable:
                if _floating(t.dtype) and not t.dense() and t.span() is not None:
                    self.scanner.strided(t, pos + 8)
            pos += 8 + numel * size
        if pos < f.size:
            self.add(
                "warning",
                "archive layout",
                "",
                f"{f.size - pos} bytes after the last storage: appended data",
            )
        self._values()

    def _legacy_truncated(self, key, ts, pos) -> None:
        held = f" (holding {_names(sorted({t.key for t in ts}), 4)})" if ts else ""
        self.add(
            "error",
            "truncated",
            ts[0].key if ts else "",
            f"truncated: the file ends at byte {self.f.size}, inside storage {key}{held} that starts at byte {pos}: "
            "torch.load fails. A partial download or a save killed before it finished",
        )

    def _weights_only_legacy(self, main_start: int) -> None:
        """torch's weights_only unpickler over the legacy file's main pickle, with meta storages (no data read)."""
        if self.refused:
            return
        from torch import _weights_only_unpickler

        stream = _BoundedStream(self.f)
        stream.seek(main_start)

        def persistent_load(pid):
            typename, storage_type, _key, _location, numel = pid[:5]
            if typename != "storage":
                raise RuntimeError(f"a persistent id of type {typename!r}")
            dtype = storage_type.dtype
            untyped = torch.UntypedStorage(numel * _itemsize(dtype), device="meta")
            return torch.storage.TypedStorage(
                wrap_storage=untyped, dtype=dtype, _internal=True
            )

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                unpickler = _weights_only_unpickler.Unpickler(stream, encoding="utf-8")
                unpickler.persistent_load = persistent_load
                unpickler.load()
        except Exception as error:  # noqa: BLE001 (what the reader says is the finding)
            self._refused_by_torch(error)

    # ----------------------------------------------------------------------------------------------------------
    def _globals(self, parsed: _Pickle) -> None:
        """What the pickle imports and calls, against weights_only's allowlist; dangerous calls named, never run."""
        from torch import _weights_only_unpickler as wo

        allowed = set(wo._get_allowed_globals()) | set(wo._get_user_allowed_globals())
        refused = []
        for g, pos in parsed.globals:
            if str(g) not in allowed and g not in [r for r, _ in refused]:
                refused.append((g, pos))
        if not refused:
            return
        self.refused = True
        calls = defaultdict(list)
        for obj in parsed.calls:
            if isinstance(obj.func, _Global):
                calls[obj.func].append(obj)
        dangerous = [
            (g, pos)
            for g, pos in refused
            if g.module.partition(".")[0] in _DANGEROUS_MODULES
            or g.name in _DANGEROUS_NAMES
        ]
        for g, pos in dangerous:
            args = ""
            for obj in calls.get(g, [])[:1]:
                shown = ", ".join(
                    repr(a)[:80]
                    for a in obj.args
                    if isinstance(a, str | bytes | int | float)
                )
                args = f"({shown})" if shown else "(...)"
            self.add(
                "error",
                "unsafe pickle",
                "",
                f"the pickle imports {g}{' and calls it ' + str(g) + args if args else ''} (opcode at byte {pos}): "
                "code that runs the moment the file is unpickled. torch.load(weights_only=True), the default since "
                "torch 2.6, refuses it; weights_only=False, pickle.load or an older torch would run it. Not run "
                "here: treat the file as hostile and delete it",
            )
        others = [(g, pos) for g, pos in refused if (g, pos) not in dangerous]
        if others:
            names = [str(g) for g, _ in others]
            modules = {g.module.partition(".")[0] for g, _ in others}
            advice = (
                f"If you trust the file, allow them: with torch.serialization.safe_globals([{_names(names, 3)}]): "
                "torch.load(path); or load the state dict alone"
            )
            self.add(
                "error",
                "weights_only",
                "",
                f"the pickle names {len(names)} global(s) outside weights_only's allowlist ({_names(names)}): "
                f"torch.load(weights_only=True), the default since torch 2.6, refuses the file; weights_only=False "
                f"would import {', '.join(sorted(modules))} and build them (code of those classes runs). {advice}",
            )

    def _torch_load_meta(self) -> None:
        """torch.load with weights_only=True and every storage on meta: what the reader that loads says. Where the
        meta path itself fails (it computes storage offsets its own way), torch.load(mmap=True) confirms instead:
        it maps the file and reads no tensor data either. Not for a compressed record: torch 2.6 inflates it
        even for meta, and mmap=True would map the compressed bytes."""
        if self.refused or any(f.kind == "compressed record" for f in self.findings):
            return
        try:
            with warnings.catch_warnings(), self.f.reopen() as opened:
                warnings.simplefilter("ignore")
                torch.load(opened, weights_only=True, map_location="meta")
            return
        except pickle.UnpicklingError as error:
            self._refused_by_torch(error)
            return
        except Exception as error:  # noqa: BLE001 (what the reader says is the finding)
            first = error
        if not self.path.endswith(
            ".safetensors"
        ):  # torch.load would hand such a path to safetensors
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    torch.load(
                        self.path, weights_only=True, mmap=True, map_location="cpu"
                    )
                return
            except Exception as error:  # noqa: BLE001
                first = error
        self._refused_by_torch(first)

    def _refused_by_torch(self, error: Exception) -> None:
        text = " ".join(str(error).split())
        if (
            isinstance(error, pickle.UnpicklingError)
            or "Weights only load failed" in text
        ):
            self.refused = True
            said = text.partition("WeightsUnpickler error: ")[2] or text
            said = said.split(" Check the documentation")[0]
            operand = re.search(r"Unsupported operand (\d+)", said)
            if operand and chr(int(operand.group(1))) in pickletools.code2op:
                op = pickletools.code2op[chr(int(operand.group(1)))]
                said += f" (the pickle opcode {op.name}, of pickle protocol {op.proto}: torch.save writes protocol 2)"
            self.add(
                "error",
                "weights_only",
                "",
                f"torch.load(weights_only=True), the default since torch 2.6, refuses the file: {said[:300]}",
            )
        else:
            self.add(
                "error",
                "not a checkpoint",
                "",
                f"not a checkpoint: torch.load(weights_only=True) fails on it: {_short(error)}",
            )

    # ----------------------------------------------------------------------------------------------------------
    def _describe(self, parsed: _Pickle, small: dict, fmt: str) -> None:
        """The format, the state dict in the pickle, its tensors and ties."""
        root = parsed.root
        if small.get("byteorder") == "big":
            fmt += "; big-endian (torch.load byte-swaps every storage; values not checked for NaN/inf here)"
            self.scanner.values = False
        self.sd = _find_state_dict(root)
        self.entries = self.sd.entries
        # every tensor the pickle rebuilds, once each (what torch.load reads), named by its state-dict key if it
        # has one, else by where it sits in the file (["optimizer"]["state"][0]["exp_avg"])
        key_of = {id(node): key for key, node in self.entries.items()}
        self.all_tensors = []
        for _, t, node in _walk(root, "", set()):
            t.key = key_of.get(id(node), f"ckpt{t.key}")
            self.all_tensors += [t, *_sub_tensors(node, t.key)]
        self._structure_findings(root)
        # one _Tensor per state-dict key (two keys of one tied tensor are two entries): what load_state_dict reads
        self.tensors = [
            t
            for t in (_tensor_of(node, key) for key, node in self.entries.items())
            if t is not None
        ]
        total = sum(t.nbytes for t in self.tensors)
        self.add("note", "format", "", f"{fmt}; {_mib(self.f.size)}")
        self._tensor_findings(total)

    def _structure_findings(self, root) -> None:
        sd = self.sd
        if sd.how == "nested":
            others = ", ".join(
                f"{k}: {v}" for k, v in sd.others[:8] if isinstance(k, str)
            )
            lightning = any(k == "pytorch-lightning_version" for k, _ in sd.others)
            kind = "a Lightning checkpoint" if lightning else "a training checkpoint"
            alt = (
                f"; other dicts of tensors: {', '.join(_path_text(p) for p in sd.alternatives[:4])}"
                if sd.alternatives
                else ""
            )
            self.add(
                "note",
                "nested checkpoint",
                _path_text(sd.path),
                f"{kind}: the state dict is ckpt{_path_text(sd.path)} ({len(sd.entries)} entries), next to "
                f"{others or 'nothing else'}{alt}. Load it with sd = torch.load(path){_path_text(sd.path)}",
            )
        elif sd.how == "module":
            cls = root.func if isinstance(root, _Obj) else "?"
            self.add(
                "error",
                "pickled module",
                "",
                f"a whole pickled nn.Module ({cls}), not a state dict: torch.load(weights_only=True) refuses it, and "
                "weights_only=False imports its class from the code that saved it (which must still exist, "
                "unchanged) and runs it. Its state dict, read from the pickle here, has "
                f"{len(sd.entries)} entries: re-save model.state_dict() from a trusted environment",
            )
        elif sd.how == "none":
            what = _summary(root)
            found = (
                f" (top-level entries: {', '.join(f'{k}: {v}' for k, v in sd.others[:8])})"
                if sd.others
                else ""
            )
            tensors = len(self.all_tensors)
            self.add(
                "note" if tensors or self.refused else "warning",
                "no state dict",
                "",
                f"no state dict (a dict of tensors keyed by name) in the file: it holds {what}{found}, with "
                f"{tensors} tensor(s) in all; load_state_dict needs a dict of tensors",
            )

    def _tensor_findings(self, total: int) -> None:
        ts = self.tensors
        if not ts:
            return
        dtypes = Counter(_dtype_name(t.dtype) for t in ts)
        largest = max(ts, key=lambda t: t.nbytes)
        params = sum(
            t.numel
            for t in ts
            if t.dtype is not None and (t.dtype.is_floating_point or t.dtype.is_complex)
        )
        self.add(
            "note",
            "tensors",
            "",
            f"{len(ts)} tensors, {_mib(total)} ({params:,} floating values): "
            + ", ".join(f"{d} ×{n}" for d, n in dtypes.most_common())
            + f"; largest {largest.key} ({largest.describe()}, {_mib(largest.nbytes)})",
        )
        locations = Counter(
            t.location for t in ts if t.location not in ("cpu", "?", "meta")
        )
        if locations:
            shown = ", ".join(
                f"{n} tensor(s) on {loc}" for loc, n in locations.most_common()
            )
            missing = sorted({loc for loc in locations if not _device_here(loc)})
            here = f" (this machine has no {', '.join(missing)})" if missing else ""
            self.add(
                "warning" if missing else "note",
                "device",
                "",
                f"saved from an accelerator ({shown}): torch.load puts each storage back on the device it was "
                f"saved from, and fails on a machine without that device{here}; load with map_location='cpu' (or "
                "the device you have)",
            )
        meta = [t.key for t in ts if t.location == "meta" or t.kind == "meta"]
        if meta:
            self.add(
                "warning",
                "tensors",
                meta[0],
                f"{len(meta)} tensor(s) saved from the meta device ({_names(meta)}): shapes without values; loading "
                "them into a model copies nothing",
            )
        # ties: keys over one storage
        by_storage = defaultdict(list)
        for t in ts:
            if t.storage is not None:
                by_storage[(t.storage, t.view[0] if t.view else None)].append(t)
        for (storage, _), group in by_storage.items():
            if len(group) < 2:
                continue
            same = defaultdict(list)
            for t in group:
                same[(t.offset, t.shape, t.stride, t.dtype)].append(t.key)
            for keys in same.values():
                if len(keys) > 1:
                    self.tied_notes[frozenset(keys)] = len(self.findings)
                    self.add(
                        "note",
                        "tied keys",
                        keys[0],
                        f"{len(keys)} keys share one storage (data/{storage}), the same view: {', '.join(keys)}. A tie, "
                        "saved once; the default load_state_dict copies it into each name (a tied model stays tied), "
                        "assign=True hands each name its own Parameter over one storage",
                    )
            if len(same) > 1:
                keys = [t.key for t in group]
                self.add(
                    "note",
                    "shared storage",
                    keys[0],
                    f"{len(keys)} keys are different views of one storage (data/{storage}): {_names(keys)}; "
                    "torch.save writes the whole storage once, and loading keeps them views of one another",
                )
        for (storage, _), group in by_storage.items():
            t0 = group[0]
            if t0.storage_numel is None or not t0.storage_numel:
                continue
            viewed = set()
            for t in group:
                span = t.span()
                if span is not None:
                    viewed.add(span)
            covered, last = 0, 0
            for a, b in sorted(viewed):
                a = max(a, last)
                if b > a:
                    covered += b - a
                    last = b
            dead = (t0.storage_numel - covered) * t0.itemsize
            if dead > max(2**20, covered * t0.itemsize):
                self.add(
                    "note",
                    "shared storage",
                    t0.key,
                    f"storage data/{storage} holds {_mib(t0.storage_numel * t0.itemsize)}, of which its tensors "
                    f"({_names([t.key for t in group], 3)}) view {_mib(covered * t0.itemsize)}: torch.save writes "
                    "a view's whole storage; .clone() views before saving",
                )

    def _values(self) -> None:
        """NaN/inf findings, and what the budget left unread."""
        params = set()
        if self.model is not None:
            for name, _ in self.model.named_parameters(remove_duplicate=False):
                params.update({name, *(p + name for p in _KNOWN_PREFIXES)})
        for t in self.tensors:
            if t.nan or t.inf:
                parts = [
                    f"{n:,} {what}"
                    for n, what in ((t.nan, "NaN"), (t.inf, "±inf"))
                    if n
                ]
                if t.nan or t.key in params:
                    severity, why = (
                        "error",
                        "every output it touches is non-finite (a diverged run saved, or damaged bytes)",
                    )
                elif self.model is not None:
                    severity, why = (
                        "note",
                        "a buffer of the model, not a parameter: observers and running extremes start at ±inf",
                    )
                else:
                    severity, why = (
                        "warning",
                        "fatal in a weight; legitimate in a statistic (observers' min_val/max_val start at ±inf)",
                    )
                self.add(
                    severity,
                    "non-finite",
                    t.key,
                    f"{t.key} ({t.describe()}) holds {' and '.join(parts)} of its {t.numel:,} values: {why}",
                )
        uninitialized = [t.key for t in self.tensors if t.kind == "uninitialized"]
        if uninitialized:
            self.add(
                "warning",
                "lazy",
                uninitialized[0],
                f"{len(uninitialized)} entries are uninitialized lazy parameters or buffers ({_names(uninitialized)}): "
                "saved before the dry run, they hold no shape and no values; run one forward, then save",
            )
        floating = [
            t
            for t in self.tensors
            if _floating(t.dtype) and t.span() is not None and t.kind != "meta"
        ]
        missed = [t for t in floating if not t.scanned]
        if missed:
            total = sum(t.nbytes for t in missed)
            reasons = []
            if self.scanner.unscanned:
                reasons.append(
                    f"past the scan budget of {_mib(self.scan_bytes)} (inspect_checkpoint(path, scan_bytes=None) "
                    "reads them all)"
                )
            if self.scanner.skipped:
                reasons.append(
                    f"{_names(self.scanner.skipped, 3)}: views too sparse to read in bounded pieces"
                )
            if not self.scanner.values:
                reasons.append("big-endian storages")
            why = (
                "; ".join(reasons)
                or "their bytes are not stored where a reader could check them"
            )
            self.add(
                "note",
                "not scanned",
                missed[0].key,
                f"{len(missed)} floating tensor(s), {_mib(total)}, not checked for NaN/inf "
                f"({_names(t.key for t in missed)}): {why}",
            )
        elif self.scanner.unscanned:
            self.add(
                "note",
                "not scanned",
                "",
                f"{len(self.scanner.unscanned)} record(s) not read for their CRC, past the scan budget of "
                f"{_mib(self.scan_bytes)}",
            )

    # ----------------------------------------------------------------------------------------------------------
    # safetensors: an 8-byte header length, a JSON header, the data
    def _safetensors(self, head: bytes) -> None:
        f = self.f
        if f.size < 8:
            self.not_a_checkpoint(
                f"a .safetensors file of {f.size} bytes, shorter than its 8-byte header length"
            )
            return
        n = struct.unpack_from("<Q", head)[0]
        if n > HEADER_LIMIT or n < 2:
            what = _what_else(f, head)
            self.not_a_checkpoint(
                f"named .safetensors, but its first 8 bytes declare a header of {n:,} bytes (safetensors refuses "
                f"headers over {HEADER_LIMIT:,}: HeaderTooLarge); the file is {what}"
            )
            return
        if 8 + n > f.size:
            self.add(
                "error",
                "truncated",
                "",
                f"truncated: the safetensors header declares {n:,} bytes of JSON, the file holds {f.size - 8:,} after "
                "the length: a partial download",
            )
            return
        raw = f.read(8, n)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            self.not_a_checkpoint("a safetensors header that is not UTF-8")
            return
        if not text.startswith("{"):
            self.add(
                "error",
                "safetensors header",
                "",
                "the safetensors header does not start with '{': safetensors refuses it",
            )
            return
        duplicates = []

        def pairs_hook(pairs):
            seen = Counter(k for k, _ in pairs)
            duplicates.extend(k for k, c in seen.items() if c > 1)
            return dict(pairs)

        try:
            header = json.loads(text.rstrip(" \0"), object_pairs_hook=pairs_hook)
        except (ValueError, RecursionError) as error:
            self.add(
                "error",
                "safetensors header",
                "",
                f"the safetensors header is not valid JSON ({one_line(error, 120)}): safetensors refuses the file",
            )
            return
        if not isinstance(header, dict):
            self.add(
                "error",
                "safetensors header",
                "",
                "the safetensors header is not a JSON object",
            )
            return
        for key in duplicates:
            self.add(
                "error",
                "safetensors header",
                key,
                f"the header lists {key!r} twice: JSON readers keep one or the other, or refuse; the file is ambiguous",
            )
        metadata = header.pop("__metadata__", None) or {}
        if not isinstance(metadata, dict):
            self.add(
                "error",
                "safetensors header",
                "__metadata__",
                "__metadata__ is not a dict of strings",
            )
            metadata = {}
        data_start, data_len = 8 + n, f.size - 8 - n
        entries, problems, spans = [], [], []
        for key, spec in header.items():
            t = self._st_entry(key, spec, problems)
            if t is not None:
                entries.append(t)
            elif _offsets(spec) is not None:
                # reported above for its dtype or shape, but its bytes are its own: no hole, no extra data
                spans.append(
                    (
                        _Tensor(key, key, None, None, None, 0, None, "cpu", "dense"),
                        *_offsets(spec),
                    )
                )
        for key, message in problems:
            self.add("error", "safetensors header", key, message)
        entries.sort(key=lambda e: (e[1], e[2]))
        expected = 0
        layout = sorted(entries + spans, key=lambda e: (e[1], e[2]))
        for t, begin, end in layout:
            if begin != expected:
                if begin < expected:
                    other = next(
                        e for e in layout if e[1] <= begin < e[2] and e[0] is not t
                    )
                    if (other[1], other[2]) == (begin, end):
                        self.add(
                            "error",
                            "safetensors tie",
                            t.key,
                            f"{t.key} and {other[0].key} name the same bytes ({begin}..{end}): a tie written into a "
                            "safetensors file by hand, which the format does not allow; safetensors refuses the "
                            "file (InvalidOffset). Save one name and re-tie after loading "
                            "(safetensors.torch.save_model does that)",
                        )
                    else:
                        self.add(
                            "error",
                            "safetensors header",
                            t.key,
                            f"{t.key} (bytes {begin}..{end}) overlaps {other[0].key} (bytes {other[1]}..{other[2]}): "
                            "safetensors refuses the file (InvalidOffset)",
                        )
                else:
                    self.add(
                        "error",
                        "safetensors header",
                        t.key,
                        f"a hole of {begin - expected} bytes before {t.key} (bytes {expected}..{begin} belong to no "
                        "tensor): safetensors refuses the file (InvalidOffset)",
                    )
            expected = max(expected, end)
        self.format = "safetensors"
        self.tensors = [t for t, _, _ in entries]
        self.all_tensors = self.tensors
        total = sum(t.nbytes for t in self.tensors)
        fmt = "safetensors"
        if metadata.get("format"):
            fmt += f" (format {metadata['format']!r})"
        self.add(
            "note",
            "format",
            "",
            f"{fmt}, a header of {n:,} bytes; {_mib(f.size)}; no checksums in the format: damaged values go "
            "unnoticed unless they are NaN/inf",
        )
        truncated = expected > data_len
        if truncated:
            self.add(
                "error",
                "truncated",
                "",
                f"truncated: the header places tensors up to byte {expected:,} of the data, the file holds "
                f"{data_len:,} ({_mib(expected - data_len)} missing): a partial download; safetensors refuses it",
            )
        elif expected < data_len:
            self.add(
                "error",
                "safetensors header",
                "",
                f"{data_len - expected:,} bytes after the last tensor that the header does not describe: safetensors "
                "refuses the file (MetadataIncompleteBuffer); written over a longer file, or appended to",
            )
        if self.path.endswith((".pt", ".pth", ".bin", ".ckpt")):
            self.add(
                "error",
                "file name",
                "",
                "a safetensors file named like a torch.save file: torch.load reads it as a legacy pickle and fails "
                "(UnpicklingError); load it with safetensors.torch.load_file(path), or rename it .safetensors",
            )
        self.entries = {t.key: t for t in self.tensors}
        self.sd = _StateDict((), self.entries, "flat", [], [])
        self._tensor_findings(total)
        dropped = {
            k: v
            for k, v in metadata.items()
            if isinstance(v, str)
            and k not in self.entries
            and v in self.entries
            and k != "format"
        }
        if dropped and self.model is None:
            pairs = [f"{k} (kept as {v})" for k, v in dropped.items()]
            self.add(
                "note",
                "safetensors tie",
                next(iter(dropped)),
                f"{len(dropped)} tied name(s) are not in the file: safetensors.torch.save_model dropped them and "
                f"recorded them in the metadata: {_names(pairs, 4)}. safetensors.torch.load_model(model, path) "
                "restores the ties; load_state_dict(sd) reports them missing",
            )
        ok = (
            not truncated
            and not problems
            and not any(x.kind == "safetensors header" for x in self.findings)
        )
        if ok:
            self._safe_open()
        for t, begin, end in entries:
            if end <= data_len and _floating(t.dtype):
                self.scanner.storage(
                    t.key, data_start + begin, end - begin, [t], crc=False
                )
        self._values()

    def _st_entry(self, key: str, spec, problems: list):
        from_safetensors = {
            "F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
            "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8,
            "BOOL": torch.bool, "U16": torch.uint16, "U32": torch.uint32, "U64": torch.uint64,
            "C64": torch.complex64, "F8_E4M3": torch.float8_e4m3fn, "F8_E5M2": torch.float8_e5m2,
            "F8_E4M3FNUZ": torch.float8_e4m3fnuz, "F8_E5M2FNUZ": torch.float8_e5m2fnuz,
            "F8_E8M0": getattr(torch, "float8_e8m0fnu", None),
        }  # fmt: skip
        sub_byte = {"F4": 4, "F6_E2M3": 6, "F6_E3M2": 6}
        if not isinstance(spec, dict):
            problems.append((key, f"{key}: its header entry is not an object"))
            return None
        dtype_name, shape, offsets = (
            spec.get("dtype"),
            spec.get("shape"),
            spec.get("data_offsets"),
        )
        if not (
            isinstance(shape, list) and all(type(d) is int and d >= 0 for d in shape)
        ):
            problems.append(
                (key, f"{key}: shape {shape!r} is not a list of non-negative integers")
            )
            return None
        if _offsets(spec) is None:
            problems.append(
                (
                    key,
                    f"{key}: data_offsets {offsets!r} is not [begin, end] with begin <= end",
                )
            )
            return None
        numel = math.prod(shape)
        if dtype_name in sub_byte:
            bits, dtype = sub_byte[dtype_name], None
        elif from_safetensors.get(dtype_name) is not None:
            dtype = from_safetensors[dtype_name]
            bits = dtype.itemsize * 8
        else:
            problems.append(
                (key, f"{key}: dtype {dtype_name!r} is not one safetensors knows")
            )
            return None
        if numel * bits != (offsets[1] - offsets[0]) * 8:
            problems.append(
                (
                    key,
                    (
                        f"{key}: {dtype_name} {_shape_text(shape)} needs {numel * bits // 8:,} bytes, its offsets "
                        f"give {offsets[1] - offsets[0]:,}: safetensors refuses the file (TensorInvalidInfo)"
                    ),
                )
            )
            return None
        stride = tuple(math.prod(shape[i + 1 :]) for i in range(len(shape)))
        t = _Tensor(key, key, dtype, tuple(shape), stride, 0, numel, "cpu", "dense")
        return t, offsets[0], offsets[1]

    def _safe_open(self) -> None:
        """The validated header, confirmed by the library that loads the file."""
        try:
            from safetensors import safe_open
        except ImportError:
            return
        try:
            with safe_open(self.path, framework="pt") as opened:
                keys = set(opened.keys())
                for t in self.tensors[:4096]:
                    got = opened.get_slice(t.key).get_shape()
                    if tuple(got) != t.shape:
                        raise ValueError(
                            f"{t.key}: safetensors reads shape {got}, the header says {t.shape}"
                        )
            if keys != {t.key for t in self.tensors}:
                raise ValueError("safetensors lists other keys than the header")
        except Exception as error:  # noqa: BLE001 (the library's word is the finding)
            self.add(
                "error",
                "safetensors header",
                "",
                f"safetensors.safe_open refuses the file: {one_line(error, 300)}",
            )

    # ----------------------------------------------------------------------------------------------------------
    # The prefix, with or without a model
    def _prefix_without_model(self) -> None:
        keys = [k for k in self.entries if isinstance(k, str)]
        if not keys:
            return
        for prefix in _KNOWN_PREFIXES:
            share = sum(k.startswith(prefix) for k in keys)
            if share:
                self.prefix = prefix if share == len(keys) else ""
                self.add(
                    "warning",
                    "prefix",
                    prefix,
                    self._prefix_message(prefix, share, len(keys)),
                )
                return
        lightning = self.sd is not None and self.sd.path == ("state_dict",)
        common = _common_prefixes(keys)
        if lightning and common and len(keys) > 1:
            prefix = common[0]
            self.add(
                "note",
                "prefix",
                prefix,
                f'all {len(keys)} keys start with "{prefix}", the attribute the LightningModule kept its network '
                f"under: to load them into the bare network, {FIX_PREFIX.format(prefix=prefix)}",
            )

    def _prefix_message(self, prefix: str, share: int, n: int) -> str:
        who = {
            "module.": "DistributedDataParallel's (or DataParallel's) module.",
            "_orig_mod.": "torch.compile's _orig_mod.",
            "module._orig_mod.": "module._orig_mod. (a compiled model wrapped in DDP)",
            "_orig_mod.module.": "_orig_mod.module. (a DDP model compiled)",
        }.get(prefix, f'"{prefix}" (a wrapper\'s attribute name) as a')
        where = (
            f"sd = torch.load(path){_path_text(self.sd.path)}; "
            if self.sd and self.sd.path
            else ""
        )
        fix = f"{where}{FIX_PREFIX.format(prefix=prefix)} (in place; it renames _metadata too)"
        if share < n:
            return (
                f"{share} of {n} keys carry {who} prefix (a state dict merged from a wrapped and an unwrapped "
                f"model?): strip it with {fix}, which renames only those keys"
            )
        again = (
            ". Save model.module.state_dict() (DDP) or model._orig_mod.state_dict() (compile) next time"
            if prefix in _KNOWN_PREFIXES
            else ""
        )
        return (
            f"all {n} keys carry {who} prefix: the unwrapped model reports every key missing and unexpected. "
            f"Strip it before loading: {fix}{again}"
        )

    # ----------------------------------------------------------------------------------------------------------
    # Against a model: what load_state_dict would do
    def _against(self, model: nn.Module) -> None:
        try:
            expected = model.state_dict(keep_vars=True)
        except Exception as error:  # noqa: BLE001
            self.add(
                "error",
                "missing keys",
                "",
                f"model.state_dict() raises: {one_line(error)}",
            )
            return
        file_keys = [k for k in self.entries if isinstance(k, str)]
        model_keys = list(expected)
        model_set = set(model_keys)

        def renamed(k, strip, add):
            return add + (k[len(strip) :] if strip and k.startswith(strip) else k)

        strips = ["", *_KNOWN_PREFIXES, *_common_prefixes(file_keys)]
        adds = ["", *_KNOWN_PREFIXES, *_common_prefixes(model_keys)]
        best = ("", "", len({k for k in file_keys if k in model_set}))
        for strip in strips:
            for add in adds:
                if (strip or add) and strip != add:
                    score = len({renamed(k, strip, add) for k in file_keys} & model_set)
                    known = strip in ("", *_KNOWN_PREFIXES) and add in (
                        "",
                        *_KNOWN_PREFIXES,
                    )
                    # a prefix that is not a wrapper's needs the evidence of many keys, not one coincidence
                    if score > best[2] and (
                        known or score >= max(2, len(model_set) // 2)
                    ):
                        best = (strip, add, score)
        strip, add, _ = best
        mapping = {
            renamed(k, strip, add): k for k in file_keys
        }  # model key -> file key
        if strip and not add:
            self.prefix = strip
            share = sum(k.startswith(strip) for k in file_keys)
            self.add(
                "warning",
                "prefix",
                strip,
                self._prefix_message(strip, share, len(file_keys)),
            )
        elif add and not strip:
            wrapper = "model." + add.removesuffix(".")
            self.add(
                "warning",
                "prefix",
                add,
                f"the model's keys carry \"{add}\" (it is wrapped) and the file's do not: load into the module it "
                f"wraps, {wrapper}.load_state_dict(sd)",
            )
        elif strip and add:
            self.prefix = strip
            self.add(
                "warning",
                "prefix",
                strip,
                f'the file\'s keys carry "{strip}" where the model\'s carry "{add}": rename them, sd = '
                f'{{"{add}" + k.removeprefix("{strip}"): v for k, v in sd.items()}}',
            )
        # ties in the model: one tensor under several names
        names_of = defaultdict(list)
        for name, t in [
            *model.named_parameters(remove_duplicate=False),
            *model.named_buffers(remove_duplicate=False),
        ]:
            if name in expected:
                names_of[id(t)].append(name)
        ties = [names for names in names_of.values() if len(names) > 1]
        missing = [k for k in model_keys if k not in mapping]
        unexpected = [
            mapping_key for mapping_key in mapping if mapping_key not in expected
        ]
        unexpected_file = [mapping[k] for k in unexpected]
        # non-persistent buffers of the model
        non_persistent = []
        for prefix, module in model.named_modules():
            for name in module._non_persistent_buffers_set:
                buf = module._buffers.get(name)
                if buf is not None:
                    non_persistent.append((f"{prefix}.{name}" if prefix else name, buf))
        np_names = {n for n, _ in non_persistent}
        tie_missing, tie_hint, dropped, splits = [], {}, [], []
        for names in ties:
            present = [n for n in names if n in mapping]
            absent = [n for n in names if n not in mapping]
            if present and absent and self.format != "safetensors":
                tie_hint.update((n, present[0]) for n in absent)
            elif present and absent:
                tie_missing += absent
                dropped += [f"{n} (tied to {present[0]})" for n in absent]
            if len(present) > 1:
                in_file = [self.entries.get(mapping[n]) for n in present]
                in_file = [
                    t if isinstance(t, _Tensor) else _tensor_of(t, "") for t in in_file
                ]
                one = len({t.storage for t in in_file if t is not None}) == 1
                if one:
                    # the file's "tied keys" note is this same tie: one finding says it, the model's
                    self._drop_tied_keys_note({mapping[n] for n in present})
                splits.append(
                    f"{' = '.join(present)}{' (one storage in the file)' if one else ''}"
                )
        if dropped:
            self.add(
                "warning",
                "safetensors tie",
                tie_missing[0],
                f"the file lacks {_count(len(dropped), 'name')} that the model ties to a name it has: "
                f"{_names(dropped, 4)}. safetensors cannot store a tie, and safetensors.torch.save_model keeps "
                "one name of each; safetensors.torch.load_model(model, path) loads the file and keeps the ties. "
                f"load_state_dict(sd) raises Missing key(s) {_names(tie_missing, 3)}; load_state_dict(sd, "
                "strict=False) fills them through the names they are tied to, but it would also skip any other "
                "missing key without a word: check its missing_keys, or use load_model",
            )
        if splits:
            # A note, not a warning: the default load keeps the tie; only assign=True (meta-built models)
            # splits it, so a clean checkpoint of a tied model must not read as a problem.
            self.add(
                "note",
                "split tie",
                splits[0].split(" = ")[0],
                f"the model ties {_names(splits, 4)} (one Parameter under several names); "
                "load_state_dict(sd, assign=True) hands each name its own Parameter from the file: the tie is gone, "
                "the optimizer sees separate tensors and they drift apart. The default load (copy into the existing "
                "tensor) keeps the tie; after assign=True, re-tie (e.g. model.tie_weights())",
            )
        real_missing = [k for k in missing if k not in tie_missing]
        if real_missing:
            self.add(
                "error",
                "missing keys",
                real_missing[0],
                f"{len(real_missing)} key(s) the model expects are not in the file"
                + (f' (after stripping "{strip}")' if strip else "")
                + f": {_names(real_missing)}. load_state_dict(sd) raises; strict=False leaves them at their initial "
                "values"
                + "".join(
                    f"; {k} is tied to {tie_hint[k]} in the model, so strict=False still fills it"
                    for k in real_missing[:SHOWN]
                    if k in tie_hint
                ),
            )
        if unexpected:
            notes = [k for k in unexpected if k in np_names]
            extra = (
                f"; {_names(notes, 3)} name non-persistent buffer(s) of the model (saved by an older version of "
                "its code, when they were persistent): safe to drop"
                if notes
                else ""
            )
            self.add(
                "error",
                "unexpected keys",
                unexpected_file[0],
                f"{len(unexpected)} key(s) in the file the model does not have: {_names(unexpected_file)}. "
                f"load_state_dict(sd) raises; strict=False ignores them{extra}",
            )
        # shapes and dtypes
        lazy, casts = [], defaultdict(list)
        for name in model_keys:
            if name not in mapping:
                continue
            target = expected[name]
            node = self.entries[mapping[name]]
            t = node if isinstance(node, _Tensor) else _tensor_of(node, mapping[name])
            if name.endswith("_extra_state") or not isinstance(target, torch.Tensor):
                continue
            if t is None:
                self.add(
                    "error",
                    "shape mismatch",
                    mapping[name],
                    f"the file holds {_summary(node)} at {mapping[name]}, not a tensor: load_state_dict raises "
                    "('expected torch.Tensor or Tensor-like object from checkpoint')",
                )
                continue
            if isinstance(target, nn.parameter.UninitializedTensorMixin):
                lazy.append(name)
                continue
            model_shape = tuple(target.shape)
            if (
                t.shape is not None
                and t.shape != model_shape
                and not (model_shape == () and t.shape == (1,))
            ):
                self.add(
                    "error",
                    "shape mismatch",
                    mapping[name],
                    f"size mismatch for {name}: the file holds {_shape_text(t.shape)}, the model "
                    f"{_shape_text(model_shape)}: load_state_dict raises, with strict=False too (a different "
                    "configuration: vocabulary, width, number of classes?)",
                )
            elif t.dtype is not None and t.dtype != target.dtype:
                casts[(t.dtype, target.dtype)].append(mapping[name])
        for (have, want), keys in casts.items():
            self.add(
                "warning",
                "dtype mismatch",
                keys[0],
                f"{len(keys)} tensor(s) are {_dtype_name(have)} in the file and {_dtype_name(want)} in the model "
                f"({_names(keys)}): load_state_dict copies and casts to {_dtype_name(want)} without a word; "
                f"assign=True would put {_dtype_name(have)} into the model",
            )
        if lazy:
            self.add(
                "note",
                "lazy",
                lazy[0],
                f"{len(lazy)} lazy parameter(s) not materialized yet ({_names(lazy)}): load_state_dict materializes "
                "them with the file's shapes",
            )
        raising = [f.path for f in self.findings if f.kind == "shape mismatch"]
        if real_missing or unexpected:
            loaded = len(model_keys) - len(missing)
            outcome = (
                f"still raises, for the size mismatch of {_names(raising, 3)} (strict=False skips keys, not shapes)"
                if raising
                else f"would load {loaded} of {len(model_keys)} keys without an error, leaving {len(missing)} at "
                f"their initial values and dropping {len(unexpected)} from the file: check its return value "
                "(missing_keys, unexpected_keys)"
            )
            self.add(
                "warning",
                "strict=False",
                "",
                f"load_state_dict(sd, strict=False) {outcome}",
            )
        on_meta = [
            n for n, buf in non_persistent if bool(getattr(buf, "is_meta", False))
        ]
        elsewhere = [n for n, _ in non_persistent if n not in on_meta]
        if on_meta:
            self.add(
                "error",
                "non-persistent buffer",
                on_meta[0],
                f"{len(on_meta)} non-persistent buffer(s) on meta now ({_names(on_meta)}): in no checkpoint, so "
                "load_state_dict never sets them, and load_state_dict(assign=True) leaves them on meta; the first "
                "forward fails. Recompute them after loading (the module's own init code for them)",
            )
        if elsewhere:
            self.add(
                "note",
                "non-persistent buffer",
                elsewhere[0],
                f"{len(elsewhere)} non-persistent buffer(s) ({_names(elsewhere)}): in no checkpoint, so "
                "load_state_dict never sets them; a model built on meta and loaded with assign=True keeps them on "
                "meta: recompute them after materializing",
            )
        fits = not (
            strip or add or missing or unexpected or raising or on_meta or tie_missing
        )
        if fits:
            cast = sum(len(keys) for keys in casts.values())
            self.load_outcome = (
                f"model.load_state_dict(sd) will load all {_count(len(model_keys), 'key')} "
                "the model expects: none missing, none unexpected, every shape fits"
                + (f" ({cast} cast to the model's dtype)" if cast else "")
                + "."
            )

    def _drop_tied_keys_note(self, keys: set) -> None:
        """Remove the file's "tied keys" note about exactly these keys (the model's tie note says it)."""
        at = self.tied_notes.pop(frozenset(keys), None)
        if at is not None:
            del self.findings[at]
            self.tied_notes = {k: i - (i > at) for k, i in self.tied_notes.items()}


class _BoundedStream(io.RawIOBase):
    """A file-like view of _File for pickletools: read(n) reads at most n bytes, and never past PICKLE_LIMIT at once."""

    def __init__(self, f: _File):
        self.f = f
        self.pos = 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            n = PICKLE_LIMIT
        data = self.f.read(self.pos, min(n, PICKLE_LIMIT))
        self.pos += len(data)
        return data

    def readline(self, limit: int = -1) -> bytes:
        block = self.f.read(self.pos, 65536 if limit is None or limit < 0 else limit)
        i = block.find(b"\n")
        line = block if i < 0 else block[: i + 1]
        self.pos += len(line)
        return line

    def tell(self) -> int:
        return self.pos

    def seek(self, pos: int, whence: int = 0) -> int:
        self.pos = (
            pos
            if whence == 0
            else (self.pos + pos if whence == 1 else self.f.size + pos)
        )
        return self.pos


def inspect_checkpoint(
    path, model: nn.Module | None = None, *, scan_bytes: int | None = SCAN_BYTES
) -> CheckpointReport:
    """Report what torch.load and load_state_dict would do with the checkpoint at `path`, without loading it.

    model: also compare the file with this model (missing and unexpected keys after the prefix that would be
    stripped, shapes, dtypes, ties, non-persistent buffers). scan_bytes: how many tensor bytes to read for CRCs and
    NaN/inf counts (None: all of them). Never raises on a file, never runs code from it."""
    start = time.perf_counter()
    path = os.fspath(path)
    inspection = _Inspection(path, model, scan_bytes)
    inspection.all_tensors = []
    try:
        inspection.run()
        if inspection.sd is not None and inspection.sd.how != "none":
            if model is not None:
                inspection._against(model)
            else:
                inspection._prefix_without_model()
    except Exception as error:  # noqa: BLE001 (the report never raises on a file; say what broke)
        inspection.add(
            "error",
            "not a checkpoint",
            "",
            f"not a checkpoint: the file broke the inspection itself ({one_line(error, 300)}); torch.load would "
            "likely fail on it too",
        )
    tied = defaultdict(list)
    for t in inspection.tensors:
        if t.storage is not None:
            tied[(t.storage, t.offset, t.shape, t.stride)].append(t.key)
    tensors = [
        {
            "key": t.key,
            "dtype": _dtype_name(t.dtype),
            "shape": t.shape,
            "bytes": t.nbytes,
            "storage": f"data/{t.storage}"
            if inspection.format == "zip" and t.storage is not None
            else t.storage,
            "offset": t.offset,
            "location": t.location,
            "tied_with": [
                k
                for k in tied.get((t.storage, t.offset, t.shape, t.stride), [])
                if k != t.key
            ],
            "nan": t.nan,
            "inf": t.inf,
        }
        for t in inspection.tensors
    ]
    return CheckpointReport(
        path,
        inspection.findings,
        format=inspection.format,
        tensors=tensors,
        records=inspection.records,
        state_dict_path=_path_text(inspection.sd.path)
        if inspection.sd is not None
        else None,
        prefix=inspection.prefix,
        load_outcome=inspection.load_outcome,
        scanned_bytes=inspection.f.scanned if inspection.f is not None else 0,
        seconds=time.perf_counter() - start,
    )
