"""Checkpoints that survive: the tools of chapter 5.1 (05_checkpoints_that_survive.ipynb), to reuse.

Saving, so that a crash leaves the old file or the new one, never a broken one:

- `save_atomically(obj, path)`: `torch.save` to a temporary file in the same directory, `fsync`, then
  `os.replace` onto `path`; keeps an existing file's mode, writes through a symlink to its target.
- `fsync_directory(directory)`: makes a rename in `directory` durable (POSIX; nothing on Windows).
- `sha256_of(path)`: the SHA-256 digest of a file's bytes, in hexadecimal.

Loading after a crash, under a stated contract (the page's "A loader with a contract"):

- `load_newest_valid(paths, **limits)`: `(name, contents)` of the first usable checkpoint in `paths`, given
  newest first; prints one line per file it skips or loads (a reason wrapped at 80 columns, continued on
  indented lines), names escaped so that a file cannot forge a line.
- `judge(path, *, pickle_limit=PICKLE_LIMIT, view_limit=VIEW_LIMIT)`: `(contents, None)` for a usable
  checkpoint, `(None, why not)` otherwise.
- `DamagedCheckpoint`: what every check raises, with the reason as its message.

Validation uses the reader that loads. `inspect_checkpoint` (inside_nn.inspect_checkpoint) reads the archive
with torch's own zip reader, `torch._C.PyTorchFileReader`, parses the pickle without running it, asks
`torch.load(weights_only=True)` on the meta device whether it accepts the file, and reads every tensor byte
once, in 16 MiB chunks, for CRC-32s and NaN counts. `check_report` turns its errors into a refusal and adds
the loader's own rules; `load` then reads the file with `torch.load(weights_only=True, mmap=True)` (zip),
`torch.load(weights_only=True)` (legacy) or `safetensors.torch.load_file`; `check_contents` walks what came
back. `judge` refuses a file whose identity (device, inode, size, mtime) changed between the first and the
last step.

It **accepts** what `torch.save` (zip or legacy format, CRCs on or off) or safetensors writes, holding a
non-empty dict with string keys and at least one tensor: strided tensors of any dtype on any recorded device,
loaded to the CPU, `±inf` allowed. It **refuses**, with one line each: whatever inspect_checkpoint reports as
an error (not a checkpoint, truncated, a bad CRC-32, compressed or duplicated records, an archive two zip
readers read differently, a record the pickle does not fit, what `weights_only=True` refuses, NaN in an
element a tensor views); a zip in which some records carry CRC 0 and others a CRC (`torch.save` writes all or
none); a pickle over `pickle_limit` bytes; no tensor, a `meta` or sparse tensor, a view with more bytes than
the file, views adding up to more than `view_limit` times the file's size; a file that changed while judged.
It **costs** about two reads of each file's tensor bytes (the inspection's, then the NaN check's) and time
linear in the size; memory is the pickle's objects and a few 16 MiB chunks, while the zip's tensors map the
file rather than copy it. It **never** writes, renames or deletes a file.

The page shows `check_report`, `load`, `check_tensor`, `check_contents`, `judge` and `load_newest_valid` in
its cells; tests/test_checkpoint.py holds those cells and this module to the same source. Only torch is
required: without safetensors, safetensors files are refused.
"""

from __future__ import annotations

import hashlib
import os
import stat
import warnings
from collections.abc import Mapping
from pathlib import Path

import torch

from inside_nn import inspect_checkpoint as _inspector
from inside_nn.inspect_checkpoint import inspect_checkpoint
from inside_nn.inspect_checkpoint.scan import VALUE_DTYPES
from inside_nn.inspect_module import wrap

try:
    from safetensors.torch import load_file as load_safetensors
except ImportError:  # pragma: no cover (the book's environments all have safetensors)

    def load_safetensors(path):
        raise DamagedCheckpoint("is safetensors, and safetensors is not installed")


__all__ = [
    "FIRST",
    "PICKLE_LIMIT",
    "VIEW_LIMIT",
    "DamagedCheckpoint",
    "cause_first",
    "check_contents",
    "check_report",
    "check_tensor",
    "file_identity",
    "fsync_directory",
    "holds_nan",
    "judge",
    "load",
    "load_newest_valid",
    "pickle_bytes",
    "printable",
    "save_atomically",
    "sha256_of",
]

PICKLE_LIMIT = _inspector.PICKLE_LIMIT  # bytes of pickle: 32 MiB, what the inspection reads
VIEW_LIMIT = 4  # the NaN check reads at most this many times the file's size
# The error a refusal quotes when the inspection reports several: the cause before its consequences.
FIRST = ["truncated", "archive layout", "duplicate record", "compressed record"]
FIRST += ["record size", "missing record", "bad crc", "unsafe pickle", "pickled module"]


# --- Saving ---------------------------------------------------------------------------------------


def fsync_directory(directory):
    """Flush `directory`'s entries to disk, so that a rename in it survives a power loss (POSIX)."""
    if os.name == "posix":  # Windows cannot open a directory this way
        directory_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(directory_fd)
        finally:
            os.close(directory_fd)


def save_atomically(obj, path):
    """`torch.save(obj, path)` such that a crash at any moment leaves the old file or the new one.

    Writes `.<name>.<16 hex digits>.tmp` next to the target, syncs it, renames it onto the target and
    syncs the directory. A new file gets the ordinary mode (umask applied), an existing one keeps its
    own; a symlink is followed, as `torch.save` does. If the save fails, the temporary file is removed
    and the exception raised; a killed process leaves it behind, harmless, for a cleanup at start.
    """
    path = Path(os.path.realpath(path))  # through a symlink, as torch.save writes
    temporary = path.with_name(f".{path.name}.{os.urandom(8).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    fd = os.open(temporary, flags, 0o666)
    try:
        with open(fd, "wb") as f:
            if path.exists():
                os.chmod(temporary, stat.S_IMODE(path.stat().st_mode))
            torch.save(obj, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    fsync_directory(path.parent)


def sha256_of(path):
    """The SHA-256 digest of the file at `path`, in hexadecimal, read in chunks of 1 MiB."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(2**20), b""):
            digest.update(chunk)
    return digest.hexdigest()


# --- Loading: the verdict on one file, and the newest usable one ------------------------------------


class DamagedCheckpoint(Exception):
    """A file the loader refuses; the message says why."""


def printable(text):
    """`text` with every unprintable character escaped (`\\n`, `\\x1b`, ...): one line, no ANSI codes."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in str(text))


def file_identity(path):
    """What changes when a file is replaced or written: device, inode, size, mtime (None if missing)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def judge(path, *, pickle_limit=PICKLE_LIMIT, view_limit=VIEW_LIMIT):
    """(contents, None) for a usable checkpoint, (None, why not) otherwise."""
    try:
        before = file_identity(path)
        report = inspect_checkpoint(path, scan_bytes=None)  # reads every byte
        check_report(report, pickle_limit)
        state = load(path, report.format)
        check_contents(state, before[2], view_limit)
        if file_identity(path) != before:
            raise DamagedCheckpoint("changed while it was read")
        return state, None
    except DamagedCheckpoint as err:
        return None, str(err)
    except Exception as err:  # noqa: BLE001 - any other way a damaged file fails
        return None, f"{type(err).__name__}: {str(err).strip()}".splitlines()[0]


def load_newest_valid(paths, **limits):
    """(name, contents) of the first usable checkpoint in `paths`, newest first."""
    for path in map(Path, paths):
        state, reason = judge(path, **limits)
        if reason is None:
            print(f"loaded {printable(path.name)}")
            return path.name, state
        # the reason wrapped at 80 columns, its lines after the first indented
        line = f"skipping {printable(path.name)}: {printable(reason)}"
        print("\n".join(wrap(line, "    ", first="")))
    raise FileNotFoundError("no usable checkpoint among the candidates")


# --- The checks judge runs, in order ----------------------------------------------------------------


def check_report(report, pickle_limit):
    """Refuse what the inspection calls an error, mixed CRCs, or too much pickle."""
    errors = [f for f in report.findings if f.severity == "error"]
    errors = [f for f in errors if f.kind != "file name"]  # load reads by content
    if errors:
        raise DamagedCheckpoint(min(errors, key=cause_first).message)
    unchecked = {r["crc"] is None for r in report.records if r["bytes"]}
    if report.format == "zip" and unchecked == {True, False}:
        raise DamagedCheckpoint(
            "has records with CRC 0 among records with a CRC-32: torch.save writes "
            "all or none, so some were zeroed after saving"
        )
    if pickle_bytes(report) > pickle_limit:
        raise DamagedCheckpoint(f"holds more pickle than pickle_limit={pickle_limit:,}")


def cause_first(finding):
    """Among several errors, the cause before its consequences."""
    return FIRST.index(finding.kind) if finding.kind in FIRST else len(FIRST)


def pickle_bytes(report):
    """data.pkl's size (zip), or what is not storage bytes (legacy); 0 for safetensors."""
    sizes = {r["name"]: r["bytes"] for r in report.records}
    if report.format != "legacy":
        return sizes.get("data.pkl", 0)
    stored = sum(n + 8 for n in sizes.values())  # each storage after its length
    return os.path.getsize(report.path) - stored


def load(path, fmt):
    """The contents on the CPU, read by the reader the inspection checked."""
    if fmt == "safetensors":  # by its contents, whatever its name
        return load_safetensors(path)
    if str(path).endswith(".safetensors"):  # torch.load hands it to safetensors
        raise DamagedCheckpoint(f"is a {fmt} torch.save file named .safetensors")
    if fmt not in ("zip", "legacy"):
        raise DamagedCheckpoint(f"is a {fmt} file, not torch.save's format")
    with warnings.catch_warnings():  # TypedStorage, sparse CSR, ...
        warnings.simplefilter("ignore")
        return torch.load(path, map_location="cpu", weights_only=True, mmap=fmt == "zip")


def check_contents(state, file_size, view_limit=VIEW_LIMIT):
    """Refuse anything but a str-keyed dict holding tensors; walk keys too, once."""
    if not isinstance(state, Mapping) or not all(isinstance(k, str) for k in state):
        raise DamagedCheckpoint(f"holds a {type(state).__name__}, not a str-keyed dict")
    pending, seen, views, read = [state], set(), set(), 0
    while pending:
        value = pending.pop()
        if id(value) not in seen:
            seen.add(id(value))
            if isinstance(value, Mapping):
                pending += [*value.keys(), *value.values()]
            elif isinstance(value, (list, tuple, set, frozenset)):
                pending += value
            elif isinstance(value, torch.Tensor):
                read += check_tensor(value, file_size, views)
                if read > view_limit * file_size:
                    raise DamagedCheckpoint(f"has views over view_limit={view_limit} times its size")
    if not views:
        raise DamagedCheckpoint("holds no tensor")


def check_tensor(t, file_size, views):
    """Refuse a meta, sparse or oversized tensor, or NaN where it looks; bytes read."""
    if t.is_meta:
        raise DamagedCheckpoint("has a tensor on the meta device: it holds no values")
    if t.layout != torch.strided:
        raise DamagedCheckpoint(f"has a {t.layout} tensor: only strided ones are read")
    if t.numel() * t.element_size() > file_size:
        raise DamagedCheckpoint(f"has a view of {t.numel():,} elements, more than the file holds")
    view = (t.untyped_storage().data_ptr(), t.dtype, t.storage_offset(), t.shape)
    if (*view, t.stride()) in views:
        return 0  # the same elements, checked already
    views.add((*view, t.stride()))
    if holds_nan(t):
        raise DamagedCheckpoint("holds NaN where a tensor looks: diverged, or damaged")
    return t.numel() * t.element_size()


def holds_nan(t, chunk=2**22):
    """Whether an element `t` views is NaN, checked `chunk` elements at a time. A dtype whose values the
    inspection does not decode either (a packed float4, a dtype torch adds later: VALUE_DTYPES) is not read:
    torch may have no kernel to convert or copy it."""
    if t.dtype not in VALUE_DTYPES:
        return False
    flat = t.reshape(-1)  # a copy only for a view with gaps: at most the file's size
    return any(flat[i : i + chunk].isnan().any() for i in range(0, flat.numel(), chunk))
