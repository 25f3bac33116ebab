"""Values: CRC-32s and NaN/inf counts over bounded chunks of a storage's bytes (stored or deflated), and over
the pieces a strided view reads."""

from __future__ import annotations

import math
import zlib

import torch

from inside_nn.inspect_checkpoint.files import _File
from inside_nn.inspect_checkpoint.limits import CHUNK
from inside_nn.inspect_checkpoint.tensors import _Tensor
from inside_nn.inspect_module import one_line


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


def _track(t: _Tensor, values: torch.Tensor, raw: memoryview, non_finite: int) -> None:
    """A dense tensor's CRC-32 and largest finite |value|, one chunk at a time (chunks come in order)."""
    t.digest = zlib.crc32(raw, t.digest or 0)
    if _integer(t.dtype) and values.numel():
        if str(t.dtype) == "torch.uint64":  # no min/max, and its top half wraps in int64
            return
        try:  # uint16 and uint32 have no min/max: in int64
            wide = values if values.dtype.is_signed or values.dtype == torch.uint8 else values.long()
            lo, hi = int(wide.min()), int(wide.max())
        except (RuntimeError, TypeError):
            return
        t.extremes = (lo, hi) if t.extremes is None else (min(t.extremes[0], lo), max(t.extremes[1], hi))
        return
    if not t.dtype.is_floating_point or not values.numel():
        return
    try:
        finite = values[torch.isfinite(values)] if non_finite else values
        top = float(finite.abs().max()) if finite.numel() else 0.0
    except (RuntimeError, TypeError):  # a dtype without abs/max here (float8): in float32
        finite = values.float()
        finite = finite[torch.isfinite(finite)]
        top = float(finite.abs().max()) if finite.numel() else 0.0
    t.absmax = max(t.absmax or 0.0, top)


def _integer(dtype) -> bool:
    """Whether a dtype is a plain integer one (whose extremes are tracked to compare with a model's dtype)."""
    return (
        isinstance(dtype, torch.dtype)
        and not dtype.is_floating_point
        and not dtype.is_complex
        and (dtype != torch.bool and dtype.itemsize >= 1 and not str(dtype).startswith(("torch.q", "torch.bits")))
    )


def _floating(dtype) -> bool:
    return dtype is not None and (dtype.is_floating_point or dtype.is_complex) and dtype.itemsize >= 1


# The floating dtypes whose values are read for NaN/inf: those whose encoding this report knows. Any other (a
# packed float4_e2m1fn_x2, a dtype torch adds later) is described by its element size and never converted or
# copied: torch may have no kernel for it ('"copy_kernel" not implemented').
VALUE_DTYPES = frozenset(
    getattr(torch, name)
    for name in (
        "float16", "bfloat16", "float32", "float64", "complex32", "complex64", "complex128",
        "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
    )
    if hasattr(torch, name)
)  # fmt: skip


def _readable(dtype) -> bool:
    """Whether the values of a tensor of `dtype` are read for NaN/inf here."""
    return dtype in VALUE_DTYPES


class _Scanner:
    """Reads a storage's bytes once, chunk by chunk: its CRC-32, and the NaN/inf counts of the dense tensors
    that view it (only the elements they view). Stops reading when the byte budget is spent."""

    def __init__(self, f: _File, budget: int | None):
        self.f = f
        self.budget = budget
        self.unscanned = []  # (what, bytes) not read for lack of budget
        self.skipped = []  # tensors whose views are too sparse to read in bounded pieces
        self.inflate_error = None  # why the last deflated record stopped inflating
        self.values = True  # False: CRCs only (big-endian storages are not read as values)
        self.not_read = None  # why no value was read at all (said in the "not scanned" note)
        self.track = False  # True: also each dense tensor's CRC and largest |value| (to compare with a model)

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
        dense = [t for t in views if self._reads(t.dtype) and t.dense()] if self.values else []
        value, seen = 0, 0
        source = self._inflate(offset, csize, n) if inflate else self.f.chunks(offset, n)
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

    def _reads(self, dtype) -> bool:
        """Whether a dense tensor's values are read: floating ones for NaN/inf, and, to compare with a model,
        integer ones for their extremes."""
        return _readable(dtype) or (self.track and _integer(dtype))

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

    def _count(self, t: _Tensor, pos: int, chunk: memoryview) -> None:
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
            nan, inf = _count_non_finite(values) if _readable(t.dtype) else (0, 0)
            t.nan += nan
            t.inf += inf
            if self.track:
                _track(t, values, chunk[lo:hi], nan + inf)

    def strided(self, t: _Tensor, offset: int) -> None:
        """NaN/inf counts of a tensor that views its storage with gaps (a slice, a transposed view): the span is
        read in pieces along its outermost dimension, each piece as_strided over what it views."""
        if not _readable(t.dtype) or not self.values:
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
        inner = sum((n - 1) * s for n, s in zip(inner_shape, inner_stride, strict=True)) + 1
        if inner * t.itemsize > 4 * CHUNK:  # one row alone spans too much: not read in bounded pieces
            self.skipped.append(t.key)
            return
        step = max(1, (CHUNK // t.itemsize - inner) // max(1, t.stride[outer]) + 1)
        for i in range(0, t.shape[outer], step):
            rows = min(step, t.shape[outer] - i)
            start = t.offset + i * t.stride[outer]
            count = (rows - 1) * t.stride[outer] + inner
            raw = bytearray(self.f.read(offset + start * t.itemsize, count * t.itemsize))
            self.f.scanned += len(raw)
            if len(raw) < count * t.itemsize:
                return
            base = torch.frombuffer(raw, dtype=t.dtype)
            view = base.as_strided([rows, *inner_shape], [t.stride[outer], *inner_stride])
            nan, inf = _count_non_finite(view.reshape(-1))
            t.nan += nan * repeats
            t.inf += inf * repeats
        t.scanned = True
