"""Checkpoints that survive: the tools of chapter 5.1 (05_checkpoints_that_survive.ipynb), to reuse.

Saving, so that a crash leaves the old file or the new one, never a broken one:

- `save_atomically(obj, path)`: `torch.save` to a temporary file in the same directory, `fsync`, then
  `os.replace` onto `path`; keeps an existing file's mode, writes through a symlink to its target.
- `fsync_directory(directory)`: makes a rename in `directory` durable (POSIX; nothing on Windows).
- `sha256_of(path)`: the SHA-256 digest of a file's bytes, in hexadecimal.

Loading after a crash, under a stated contract (the page's "A loader with a contract"):

- `load_newest_valid(paths)`: `(name, contents)` of the first usable checkpoint in `paths`, given newest
  first; prints one line per file it skips or loads, names escaped so that a file cannot forge a line.
- `judge(path)`: `(contents, None)` for a usable checkpoint, `(None, why not)` otherwise.
- `DamagedCheckpoint`: what every check raises, with the reason as its message.

It **accepts** what `torch.save` (zip or legacy format, default pickle protocol) or safetensors writes,
holding a non-empty dict with string keys and at least one tensor: strided tensors of any dtype on any
recorded device, loaded to the CPU, `±inf` allowed. It **refuses**, with one line each: a file that is not
regular, is empty or changes size while read; a zip with a compressed or duplicate record, sizes beyond the
file, a bad CRC-32, or a storage whose record is not the size its pickle claims; what `weights_only=True`
refuses; no tensor, a `meta` or sparse tensor, NaN in a stored storage, or a view with more elements than
the file holds. It **costs** one read of each file and about twice its size in memory, time linear in the
size, with `data.pkl` capped at `PICKLE_LIMIT` bytes. It **never** writes, renames or deletes a file.

`judge` runs these checks in order, each of which raises `DamagedCheckpoint`: `read_once` (the bytes),
`parse` (the format: `check_zip`, which calls `check_storage_sizes`, then `torch.load(weights_only=True)`
or safetensors), `check_contents` (which calls `check_tensor` on every tensor). Any other exception a
damaged file provokes becomes a refusal with its type and first line.

The page shows `save_atomically`, `check_zip`, `parse`, `check_tensor`, `check_contents`, `judge` and
`load_newest_valid` in its cells; tests/test_checkpoint.py holds those cells and this module to the same
source. Only torch is required: without safetensors, safetensors files are refused.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import stat
import warnings
import zipfile
from collections.abc import Mapping
from pathlib import Path

import torch
from torch.serialization import get_unsafe_globals_in_checkpoint

try:
    from safetensors.torch import load as load_safetensors_bytes
except ImportError:  # pragma: no cover (the book's environments all have safetensors)

    def load_safetensors_bytes(data):
        raise DamagedCheckpoint("is safetensors, and safetensors is not installed")


__all__ = [
    "LEGACY_MAGIC",
    "PICKLE_LIMIT",
    "DamagedCheckpoint",
    "check_contents",
    "check_storage_sizes",
    "check_tensor",
    "check_zip",
    "fsync_directory",
    "judge",
    "load_newest_valid",
    "parse",
    "printable",
    "read_once",
    "save_atomically",
    "sha256_of",
]

PICKLE_LIMIT = 2**22  # bytes of data.pkl (or of a whole legacy file)
LEGACY_MAGIC = b"\x8a\n" + (0x1950A86A20F9469CFC6C).to_bytes(10, "little")  # before 1.6


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


def judge(path):
    """(contents, None) for a usable checkpoint, (None, why not) otherwise."""
    try:
        data = read_once(path)
        state = parse(data)
        check_contents(state, len(data))
        return state, None
    except DamagedCheckpoint as err:
        return None, str(err)
    except Exception as err:  # noqa: BLE001 - any other way a damaged file fails
        return None, f"{type(err).__name__}: {str(err).strip()}".splitlines()[0]


def load_newest_valid(paths):
    """(name, contents) of the first usable checkpoint in `paths`, newest first."""
    for path in map(Path, paths):
        state, reason = judge(path)
        if reason is None:
            print(f"loaded {printable(path.name)}")
            return path.name, state
        print(f"skipping {printable(path.name)}: {printable(reason)}")
    raise FileNotFoundError("no usable checkpoint among the candidates")


# --- The checks judge runs, in order ----------------------------------------------------------------


def read_once(path):
    """The bytes of a regular, non-empty file, read once; a FIFO or a missing file is refused."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)  # O_NONBLOCK: a FIFO does not wait for a writer
    except OSError as err:
        raise DamagedCheckpoint(f"cannot be opened: {err.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise DamagedCheckpoint("is not a regular file")
    with open(fd, "rb") as f:
        data = f.read(info.st_size + 1)
    if not data:
        raise DamagedCheckpoint("is empty")
    if len(data) != info.st_size:
        raise DamagedCheckpoint("changed size while it was read")
    return data


def parse(data):
    """The contents of a zip, legacy or safetensors checkpoint, on the CPU, by weights_only=True."""
    if data.startswith(b"PK\x03\x04"):
        check_zip(data)
    elif data[8:9] == b"{":
        return load_safetensors_bytes(data)
    elif LEGACY_MAGIC not in data[:32]:
        raise DamagedCheckpoint(f"is not a checkpoint: it starts {data[:10]!r}")
    elif len(data) > PICKLE_LIMIT:
        raise DamagedCheckpoint(f"is a legacy file over {PICKLE_LIMIT:,} bytes")
    try:
        with warnings.catch_warnings():  # TypedStorage, sparse CSR, ...
            warnings.simplefilter("ignore")
            return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:
        why = str(err).split("error:")[-1].strip().splitlines()[0]
        try:
            needs = get_unsafe_globals_in_checkpoint(io.BytesIO(data))
        except Exception:  # noqa: BLE001 - it fails on the same opcodes
            needs = []
        reason = ", ".join(sorted(needs)) or why
        raise DamagedCheckpoint(f"is refused by weights_only=True: {reason}") from None


def check_zip(data):
    """Refuse a zip checkpoint from its directory, then check every record's CRC-32 and storage size."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            records = archive.infolist()
            sizes = {r.filename: r.file_size for r in records}
            prefix = (
                records[0].filename.split("/")[0] if records else ""
            )  # as torch reads
            if len(sizes) < len(records):
                raise DamagedCheckpoint("has two records with the same name")
            if f"{prefix}/data.pkl" not in sizes:
                raise DamagedCheckpoint("is a zip archive without data.pkl")
            if sizes[f"{prefix}/data.pkl"] > PICKLE_LIMIT:
                raise DamagedCheckpoint(f"has a data.pkl over {PICKLE_LIMIT:,} bytes")
            for record in records:
                if record.compress_type != zipfile.ZIP_STORED:
                    raise DamagedCheckpoint(f"has a compressed {record.filename}")
            if sum(sizes.values()) > len(data):
                raise DamagedCheckpoint("has records larger than the file")
            for record in records:
                if record.CRC != 0:
                    archive.read(record)  # raises BadZipFile on a CRC mismatch
            check_storage_sizes(archive.read(f"{prefix}/data.pkl"), prefix, sizes)
    except zipfile.BadZipFile as err:
        raise DamagedCheckpoint(f"is a damaged zip archive: {err}") from None


class _Inert(dict):
    """Stands in for every class or function the pickle names: making one runs nothing."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def __setstate__(self, state):
        pass

    __hash__ = object.__hash__  # may be a dict key, as a tensor may


class _StorageClaims(pickle.Unpickler):
    """Reads data.pkl, calling no global, and collects each storage's (type, key, count)."""

    def find_class(self, module, name):
        return name if name.endswith("Storage") else _Inert

    def persistent_load(self, saved_id):  # ("storage", type, key, location, count)
        self.claims.append((saved_id[1], saved_id[2], saved_id[4]))
        return _Inert()


def check_storage_sizes(pickled, prefix, sizes):
    """Refuse a data.pkl that claims a storage size its record does not hold (torch 2.6 reads past it)."""
    reader = _StorageClaims(io.BytesIO(pickled))
    reader.claims = []
    try:
        reader.load()
    except Exception as err:  # noqa: BLE001 - whatever a damaged pickle provokes
        raise DamagedCheckpoint(f"has a damaged data.pkl: {err}") from None
    for kind, key, count in reader.claims:
        if kind == "UntypedStorage":
            itemsize = 1
        else:  # torch's own table, the one torch.load uses
            itemsize = torch.storage._get_dtype_from_pickle_storage_type(kind).itemsize
        size = sizes.get(f"{prefix}/data/{key}")
        if size is None:
            raise DamagedCheckpoint(f"has no record for storage {str(key)[:20]}")
        if count * itemsize != size:
            raise DamagedCheckpoint(
                f"claims {count:,} elements for storage {str(key)[:20]}, whose record holds {size} bytes"
            )


def check_contents(state, file_size):
    """Refuse anything but a str-keyed dict holding tensors; check every tensor, keys too, once."""
    if not isinstance(state, Mapping) or not all(isinstance(k, str) for k in state):
        raise DamagedCheckpoint(f"holds a {type(state).__name__}, not a str-keyed dict")
    pending, seen, scanned, tensors = [state], set(), set(), 0
    while pending:
        value = pending.pop()
        if id(value) not in seen:
            seen.add(id(value))
            if isinstance(value, Mapping):
                pending += [*value.keys(), *value.values()]
            elif isinstance(value, (list, tuple, set, frozenset)):
                pending += value
            elif isinstance(value, torch.Tensor):
                check_tensor(value, file_size, scanned)
                tensors += 1
    if not tensors:
        raise DamagedCheckpoint("holds no tensor")


def check_tensor(t, file_size, scanned):
    """Refuse a meta, sparse or oversized tensor, or NaN in its storage (each scanned once)."""
    if t.is_meta:
        raise DamagedCheckpoint("has a tensor on the meta device: it holds no values")
    if t.layout != torch.strided:
        raise DamagedCheckpoint(
            f"has a {t.layout} tensor: only strided ones are checked"
        )
    if t.numel() * t.element_size() > file_size:
        raise DamagedCheckpoint(
            f"has a view of {t.numel():,} elements, more than the file holds"
        )
    storage = t.untyped_storage()
    if (t.is_floating_point() or t.is_complex()) and (
        storage.data_ptr(),
        t.dtype,
    ) not in scanned:
        scanned.add((storage.data_ptr(), t.dtype))
        if torch.empty(0, dtype=t.dtype).set_(storage).isnan().any():
            raise DamagedCheckpoint("holds NaN: the run had diverged")
