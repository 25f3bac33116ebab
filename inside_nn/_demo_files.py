"""The demonstrations of chapter 5.1 (05_checkpoints_that_survive.ipynb): crashes and bad files, made on purpose.

Not tools: this module makes the files that the page's loader is tested on, and kills processes in the
middle of a save. It lives apart from `inside_nn.checkpoint` so that the tools a reader imports carry no
code that builds hostile pickles.

- `kill_while_saving(directory, hows)`: one child process per way of saving ("in_place", as `torch.save`
  does, or "atomically", with `save_atomically`) writes a 3 MB state dict to `directory/<how>.pt` through
  an `open` that pauses after `STOP_AFTER` bytes; each child is killed there. Returns the exit codes.
- `make_case_files(directory, training_run, marker)`: one file per case of the page's table (what a disk,
  a network, an editor or an attacker does to a checkpoint, and legitimate files), and the verdict each
  must get. `NEWEST_FIRST` is the order the page hands them to `load_newest_valid`.
- `snapshot(directory)`: every entry's size, mode, mtime and SHA-256, to show that loading changed nothing.
"""

from __future__ import annotations

import io
import os
import random
import stat
import struct
import subprocess
import sys
import time
import warnings
import zipfile
from pathlib import Path

import torch
from torch import nn

from inside_nn import checkpoint

STOP_AFTER = 1_000_000  # bytes a killed save gets to write
PAUSE_LIMIT_S = 120.0  # a child waits this long to be killed, the parent for a pause

# --- A process killed in the middle of a save ---------------------------------------------------------


def _open_that_stops(paused: Path):
    """An `open` for binary writes that, after STOP_AFTER bytes, touches `paused` and sleeps."""

    class StopsAfterFile(io.FileIO):
        written = 0

        def write(self, data):
            data = memoryview(data).cast("B")
            room = STOP_AFTER - self.written
            if len(data) >= room:
                super().write(data[:room])
                paused.touch()  # tell the parent we are paused
                time.sleep(PAUSE_LIMIT_S)
            self.written += super().write(data)
            return len(data)

    return lambda file, mode="r": StopsAfterFile(file, mode)


def _save_in_place(obj, path):
    """What `torch.save(obj, path)` does: empty the file, then write into it."""
    with open(path, "wb") as f:
        torch.save(obj, f)


def _child(how: str, path: str, paused: str) -> None:  # pragma: no cover (killed)
    """Run in the child: save a 3 MB state dict by `how`, through an open that stops after 1 MB."""
    stopping = _open_that_stops(Path(paused))
    globals()["open"] = checkpoint.open = stopping  # what both ways of saving call
    layer = nn.TransformerEncoderLayer(256, nhead=4, dim_feedforward=1024)
    snapshot = layer.state_dict()  # 3 MB
    save = {"in_place": _save_in_place, "atomically": checkpoint.save_atomically}[how]
    save(snapshot, Path(path))


def kill_while_saving(directory, hows):
    """Start one child per way of saving, kill each once it has paused; return the exit codes."""
    directory = Path(directory)
    child_main = "import sys; from inside_nn._demo_files import _child; _child(*sys.argv[1:])"
    children = {
        how: subprocess.Popen(
            [sys.executable, "-c", child_main, how, f"{how}.pt", f"{how}.paused"],
            cwd=directory,
        )
        for how in hows
    }
    codes = {}
    for how, child in children.items():
        deadline = time.monotonic() + PAUSE_LIMIT_S
        while not (directory / f"{how}.paused").exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        child.kill()
        codes[how] = child.wait(timeout=30)
        assert (directory / f"{how}.paused").exists(), "the child did not pause"
    return codes


# --- A table of damaged, hostile and legitimate files ---------------------------------------------------


class _RunsCodeWhenLoaded:
    def __init__(self, code):
        self.code = code

    def __reduce__(self):
        return (exec, (self.code,))


def _saved(obj, **kwargs):
    buffer = io.BytesIO()
    torch.save(obj, buffer, **kwargs)
    return buffer.getvalue()


def _rezipped(data, change=lambda name, record: record, compress=zipfile.ZIP_STORED):
    """A copy of a zip archive, each record passed through change (None drops it)."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as archive,
        zipfile.ZipFile(out, "w") as copy,
    ):
        for info in archive.infolist():
            record = change(info.filename, archive.read(info))
            if record is not None:
                copy.writestr(
                    zipfile.ZipInfo(info.filename, info.date_time),
                    record,
                    compress_type=compress,
                )
    return out.getvalue()


def _on_gpu(name, record):
    """Record "cuda:0" instead of "cpu" as the storages' location, as a GPU run would."""
    new = b"X\x06\x00\x00\x00cuda:0"
    return record.replace(b"X\x03\x00\x00\x00cpu", new) if name.endswith("data.pkl") else record


def _directory(data):
    """(position, name, local header offset) of each central directory entry of a zip."""
    end = data.rindex(b"PK\x05\x06")
    size, offset = struct.unpack_from("<II", data, end + 12)
    pos = offset
    while pos < offset + size:
        n, e, c = struct.unpack_from("<3H", data, pos + 28)
        local = struct.unpack_from("<I", data, pos + 42)[0]
        yield pos, data[pos + 46 : pos + 46 + n].decode(), local
        pos += 46 + n + e + c


def _zero_crc(data, record):
    """Zero one record's CRC-32, in its local header and its directory entry."""
    data = bytearray(data)
    for pos, name, local in list(_directory(bytes(data))):
        if name.endswith("/" + record):
            data[pos + 16 : pos + 20] = data[local + 14 : local + 18] = bytes(4)
    return bytes(data)


def _two_archives(shown_to_torch, shown_to_zipfile):
    """One file holding two archives: torch's reader (miniz) takes the central directory
    at the offset the end record gives, Python's zipfile the one just before the end
    record (rebasing offsets by the difference). Both archives need equal directories."""
    a, b = shown_to_torch, shown_to_zipfile
    a_size, a_offset = struct.unpack_from("<II", a, a.rindex(b"PK\x05\x06") + 12)
    end = b.rindex(b"PK\x05\x06")
    b_size, b_offset = struct.unpack_from("<II", b, end + 12)
    assert a_size == b_size
    body = a[: a_offset + a_size]
    shift = len(body) + b_offset - a_offset  # what zipfile adds to every offset
    directory = bytearray(b[b_offset : b_offset + b_size])
    for pos, _, local in list(_directory(b)):
        struct.pack_into("<I", directory, pos - b_offset + 42, len(body) + local - shift)
    tail = bytearray(b[end:])
    struct.pack_into("<I", tail, 16, a_offset)  # the directory miniz reads: a's
    return body + b[:b_offset] + bytes(directory) + bytes(tail)


def _cases(training_run: bytes, marker: Path) -> dict:
    """name: (bytes, or "directory"/"fifo"/None for missing; the verdict it must get)."""
    from safetensors.torch import save as save_safetensors_bytes

    good = _saved({"weight": torch.arange(6.0), "bias": torch.zeros(2)})
    flipped = bytearray(good)
    flipped[good.index(struct.pack("<f", 3.0)) + 2] ^= 0x80  # 3.0 becomes 6.0
    foreign = io.BytesIO()
    with zipfile.ZipFile(foreign, "w") as archive:
        archive.writestr("report/summary.txt", "not a checkpoint")
    safetensors = save_safetensors_bytes({"weight": torch.ones(100)})
    shared = [torch.ones(1)]
    for _ in range(64):
        shared = [shared, shared]  # 2**64 paths to one tensor, 65 lists
    float8 = torch.randn(4, 4).to(torch.float8_e4m3fn)
    views = torch.zeros(2**18)
    with warnings.catch_warnings():  # zipfile warns about the duplicate name
        warnings.simplefilter("ignore")
        duplicate = io.BytesIO(good)
        with zipfile.ZipFile(duplicate, "a") as archive:
            nan = _saved({"w": torch.tensor([float("nan")])})
            archive.writestr("archive/data.pkl", nan)
    causal = {
        "embedding.weight": torch.randn(5, 4),
        "mask": torch.full((4, 4), float("-inf")).triu(1),
    }
    torch.serialization.set_crc32_options(False)
    try:
        no_crc = _saved({"weight": torch.arange(6.0), "bias": torch.zeros(2)})
    finally:
        torch.serialization.set_crc32_options(True)
    runs_code = _RunsCodeWhenLoaded(f"open({str(marker)!r}, 'w').close()")
    return {
        **_refused_cases(good, flipped, foreign, safetensors, duplicate, causal, runs_code),
        **_loaded_cases(training_run, no_crc, good, safetensors, causal, float8, shared, views),
    }


def _refused_cases(good, flipped, foreign, safetensors, duplicate, causal, runs_code):
    """The files load_newest_valid must pass over, with the words of each verdict (part of _cases)."""
    return {
        "step-30.pt\nloaded step-99.pt": (
            b"\x1b[32mforged\x1b[0m",
            "not a checkpoint",
        ),
        "\x1b[1A\x1b[2Kstep-29.pt": (b"<html>", "not a checkpoint"),
        "missing.pt": (None, "cannot be opened"),
        "empty.pt": (b"", "an empty file"),
        "cut-off.pt": (good[: len(good) // 2], "truncated"),
        "flipped-bit.pt": (bytes(flipped), "fails its CRC-32"),
        "crc-zeroed.pt": (_zero_crc(bytes(flipped), "data/0"), "CRC 0 among"),
        "two-archives.pt": (_two_archives(bytes(flipped), good), "does not count"),
        "random-bytes.pt": (random.Random(0).randbytes(4096), "not a checkpoint"),
        "error-page.pt": (
            b"<!DOCTYPE html><title>502 Bad Gateway</title>\n",
            "not a checkpoint",
        ),
        "a-directory.pt": ("directory", "a directory"),
        "a-fifo.pt": ("fifo", "not a regular file"),
        "foreign-zip.pt": (foreign.getvalue(), 'hasRecord("version")'),
        "cut-off.safetensors": (safetensors[:300], "truncated"),
        "record-missing.pt": (
            _rezipped(good, lambda n, r: None if n.endswith("/data/0") else r),
            "no record data/0",
        ),
        "bad-opcode.pt": (
            _rezipped(
                good,
                lambda n, r: r[:-5] + b"\x00\x00\x00\x00." if n.endswith(".pkl") else r,
            ),
            "damaged pickle",
        ),
        "runs-code.pt": (_saved({"w": torch.ones(2), "x": runs_code}), "builtins.exec"),
        "whole-module.pt": (_saved(nn.Linear(2, 2)), "torch.nn.modules.linear.Linear"),
        "compression-bomb.pt": (
            _rezipped(_saved({"w": torch.zeros(2**24)}), compress=zipfile.ZIP_DEFLATED),
            "compressed",
        ),
        "stride-0-view.pt": (
            _saved({"w": torch.zeros(1).expand(2**40)}),
            "1,099,511,627,776 elements, more than",
        ),
        "stride-0-in-a-key.pt": (
            _saved({"w": torch.ones(2), "x": {torch.zeros(1).expand(2**40): 0}}),
            "more than the file",
        ),
        "storage-beyond-record.pt": (
            _rezipped(
                _saved({"w": torch.ones(1024)}),
                lambda n, r: r[:16] if "/data/" in n else r,
            ),
            "its record holds 16 bytes",
        ),
        "duplicate-data-pkl.pt": (
            duplicate.getvalue(),
            "2 entries named 'archive/data.pkl'",
        ),
        "legacy-protocol-4.pt": (
            _saved(causal, _use_new_zipfile_serialization=False, pickle_protocol=4),
            "Unsupported operand 149",
        ),
        "a-list.pt": (_saved([torch.ones(2)]), "holds a list, not a str-keyed dict"),
        "empty-dict.pt": (_saved({}), "holds no tensor"),
        "no-tensor.pt": (_saved({"step": 3}), "holds no tensor"),
        "meta.pt": (_saved({"w": torch.empty(3, device="meta")}), "meta device"),
        "diverged.pt": (_saved({"w": torch.tensor([1.0, float("nan")])}), "NaN"),
        "nan-in-a-key.pt": (
            _saved({"w": torch.ones(2), "x": {torch.tensor([float("nan")]): 0}}),
            "NaN",
        ),
        "sparse.pt": (_saved({"w": torch.eye(3).to_sparse()}), "sparse_coo tensor"),
    }


def _loaded_cases(training_run, no_crc, good, safetensors, causal, float8, shared, views):
    """The files it must load, odd as they are (part of _cases)."""
    nan = float("nan")
    return {
        "training-run.pt": (training_run, "loaded"),
        "no-crc.pt": (no_crc, "loaded"),
        "loss-history.pt": (
            _saved({"w": torch.ones(2), "losses": [0.5] * 200_000}),
            "loaded",
        ),
        "legacy-5-MiB.pt": (
            _saved({"w": torch.ones(5 * 2**18)}, _use_new_zipfile_serialization=False),
            "loaded",
        ),
        "nan-outside-view.pt": (
            _saved({"w": torch.tensor([nan, 1.0, 2.0])[1:]}),
            "loaded",
        ),
        "float8.pt": (_saved({"w": float8}), "loaded"),
        "causal-mask.pt": (_saved(causal), "loaded"),
        "legacy-format.pt": (
            _saved(causal, _use_new_zipfile_serialization=False),
            "loaded",
        ),
        "saved-on-gpu.pt": (_rezipped(good, _on_gpu), "loaded"),
        "model.safetensors": (safetensors, "loaded"),
        "position-ids.pt": (
            _saved({"position_ids": torch.arange(8).expand(1, -1)}),
            "loaded",
        ),
        "extra-state.pt": (
            _saved({"w": torch.ones(2), "block._extra_state": {"version": 2}}),
            "loaded",
        ),
        "shared-lists.pt": (_saved({"w": shared}), "loaded"),
        "expanded-buffer.pt": (
            _saved({"w": torch.ones(2), "b": torch.zeros(1).expand(8)}),
            "loaded",
        ),
        "1000-views.pt": (_saved({"views": [views[:] for _ in range(1000)]}), "loaded"),
    }


# Newest first, as the page hands them to load_newest_valid: the first four, two refused, two usable.
NEWEST_FIRST = [
    "step-30.pt\nloaded step-99.pt",
    "\x1b[1A\x1b[2Kstep-29.pt",
    "missing.pt",
    "empty.pt",
    "diverged.pt",
    "compression-bomb.pt",
    "training-run.pt",
    "float8.pt",
]


def make_case_files(directory, training_run, marker):
    """Make `directory` with one file per case; return {name: the verdict it must get}.

    `training_run` is a real checkpoint (its bytes become training-run.pt); loading runs-code.pt
    with code execution would create `marker`. A verdict is "loaded" or a part of the refusal.
    """
    directory = Path(directory)
    directory.mkdir()
    files = _cases(Path(training_run).read_bytes(), Path(marker))
    for name, (content, _) in files.items():
        path = directory / name
        if content == "directory":
            path.mkdir()
        elif content == "fifo":
            os.mkfifo(path)
        elif content is not None:
            path.write_bytes(content)
    bomb = files["compression-bomb.pt"][0]
    assert len(bomb) < 2**17  # 64 MiB of zeros in under 128 KiB
    return {name: verdict for name, (_, verdict) in files.items()}


def snapshot(directory):
    """Name -> (size, mode, mtime, SHA-256) of every entry, to show that loading changed nothing."""
    entries = {}
    for path in Path(directory).iterdir():
        info = path.lstat()
        digest = checkpoint.sha256_of(path) if stat.S_ISREG(info.st_mode) else None
        entries[path.name] = (info.st_size, info.st_mode, info.st_mtime_ns, digest)
    return entries
