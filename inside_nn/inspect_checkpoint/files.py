"""Reading bytes: every read bounded and positional (_File, _BoundedStream), and what a file is when it is
no checkpoint (_what_else, _special_file). Also whether this machine has a device a storage names."""

from __future__ import annotations

import io
import os
import re
import stat

import torch

from inside_nn.inspect_checkpoint.limits import CHUNK, PICKLE_LIMIT


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
        self.buffer = bytearray(min(CHUNK, max(self.size, 1)))  # a chunk never exceeds what the file holds
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


def _what_else(f: _File, head: bytes) -> str:
    """Why a file is not a checkpoint: what it looks like instead."""
    if f.size == 0:
        return "an empty file (0 bytes): an interrupted download or save"
    stripped = head.lstrip()
    lower = stripped[:512].lower()
    if lower.startswith((b"<!doctype html", b"<html", b"<?xml", b"<head", b"<body")) or b"<html" in lower[:200]:
        title = re.search(rb"<title>(.{0,80}?)</title>", head, re.IGNORECASE | re.DOTALL)
        named = f" ({title.group(1).decode('utf-8', 'replace').strip()!r})" if title else ""
        return (
            f"an HTML page{named}, {f.size} bytes: a server's error or login page saved in place of the file "
            "(download it again, with the token or the direct link)"
        )
    if stripped.startswith(b"version https://git-lfs"):
        return "a Git LFS pointer (a text stub): run `git lfs pull` to fetch the real file"
    if not head.strip(b"\0"):
        tail = f.read(max(0, f.size - 65536), 65536)
        where = "only zero bytes" if not tail.strip(b"\0") else "zero bytes where its header should be"
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
        return "a zip archive from the preview release of the format, which torch refuses"
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
        return not index or int(index) < (module.device_count() if hasattr(module, "device_count") else 1)
    except (AttributeError, ValueError, RuntimeError):
        return False


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
        self.pos = pos if whence == 0 else (self.pos + pos if whence == 1 else self.f.size + pos)
        return self.pos
