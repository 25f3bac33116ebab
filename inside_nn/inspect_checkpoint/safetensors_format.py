"""safetensors: an 8-byte header length, a JSON header, the data. The header is validated here (offsets that
tile the data exactly, dtypes, shapes) before safetensors.safe_open is asked to confirm it."""

from __future__ import annotations

import json
import math
import struct
from collections import Counter

import torch

from inside_nn.inspect_checkpoint.checkpoint_report import _mib, _names, _shape_text
from inside_nn.inspect_checkpoint.files import _what_else
from inside_nn.inspect_checkpoint.limits import HEADER_LIMIT
from inside_nn.inspect_checkpoint.scan import _floating, _integer
from inside_nn.inspect_checkpoint.state import _InspectionState
from inside_nn.inspect_checkpoint.state_dict import _StateDict
from inside_nn.inspect_checkpoint.tensors import _Tensor
from inside_nn.inspect_module import one_line


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


class _SafetensorsFormat(_InspectionState):
    """A safetensors file: header, offsets, ties, and safe_open's confirmation (part of _Inspection)."""

    def _safetensors(self, head: bytes) -> None:
        """A safetensors file: its header read and validated here, the layout of its data, findings on what it
        holds, safe_open's confirmation, then NaN/inf counts of its floating tensors."""
        f = self.f
        text = self._st_header_text(head)
        if text is None:
            return
        n, text = text
        header = self._st_json(text)
        if header is None:
            return
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
        entries, problems, expected = self._st_layout(header)
        self.format = "safetensors"
        self.tensors = [t for t, _, _ in entries]
        self.all_tensors = self.tensors
        total = sum(t.nbytes for t in self.tensors)
        truncated = self._st_file_findings(n, metadata, expected, data_len)
        self.entries = {t.key: t for t in self.tensors}
        self.sd = _StateDict((), self.entries, "flat", [], [])
        self._tensor_findings(total)
        self._st_dropped_ties(metadata)
        ok = not truncated and not problems and not any(x.kind == "safetensors header" for x in self.findings)
        if ok:
            self._safe_open()
        for t, begin, end in entries:
            if end <= data_len and (_floating(t.dtype) or (self.scanner.track and _integer(t.dtype))):
                self.scanner.storage(t.key, data_start + begin, end - begin, [t], crc=False)
        self._values()

    def _st_header_text(self, head: bytes) -> tuple[int, str] | None:
        """(header length, header text) when the 8-byte length and the bytes it declares make a header that
        starts like a JSON object; else None, with the finding that says why."""
        f = self.f
        if f.size < 8:
            self.not_a_checkpoint(f"a .safetensors file of {f.size} bytes, shorter than its 8-byte header length")
            return None
        n = struct.unpack_from("<Q", head)[0]
        if n > HEADER_LIMIT or n < 2:
            what = _what_else(f, head)
            self.not_a_checkpoint(
                f"named .safetensors, but its first 8 bytes declare a header of {n:,} bytes (safetensors refuses "
                f"headers over {HEADER_LIMIT:,}: HeaderTooLarge); the file is {what}"
            )
            return None
        if 8 + n > f.size:
            self.add(
                "error",
                "truncated",
                "",
                f"truncated: the safetensors header declares {n:,} bytes of JSON, the file holds {f.size - 8:,} after "
                "the length: a partial download",
            )
            return None
        raw = f.read(8, n)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            self.not_a_checkpoint("a safetensors header that is not UTF-8")
            return None
        if not text.startswith("{"):
            self.add(
                "error",
                "safetensors header",
                "",
                "the safetensors header does not start with '{': safetensors refuses it",
            )
            return None
        return n, text

    def _st_json(self, text: str) -> dict | None:
        """The header as a dict (a finding for every key it lists twice), or None when it is no JSON object."""
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
            return None
        if not isinstance(header, dict):
            self.add(
                "error",
                "safetensors header",
                "",
                "the safetensors header is not a JSON object",
            )
            return None
        for key in duplicates:
            self.add(
                "error",
                "safetensors header",
                key,
                f"the header lists {key!r} twice: JSON readers keep one or the other, or refuse; the file is ambiguous",
            )
        return header

    def _st_layout(self, header: dict) -> tuple[list, list, int]:
        """The tensors the header describes, checked entry by entry and then as a layout (the offsets must tile
        the data: no hole, no overlap, no tie). Returns ((tensor, begin, end) sorted by offset, the entries'
        problems, the end of the last tensor's bytes)."""
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
                self._st_misplaced(layout, t, begin, end, expected)
            expected = max(expected, end)
        return entries, problems, expected

    def _st_misplaced(self, layout: list, t, begin: int, end: int, expected: int) -> None:
        """A tensor that does not start where the one before it ends: a tie, an overlap or a hole."""
        if begin < expected:
            other = next(e for e in layout if e[1] <= begin < e[2] and e[0] is not t)
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

    def _st_file_findings(self, n: int, metadata: dict, expected: int, data_len: int) -> bool:
        """The format note, whether the data is cut short or runs on, and a file named like a torch.save file.
        Returns whether the file is truncated."""
        f = self.f
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
        return truncated

    def _st_dropped_ties(self, metadata: dict) -> None:
        """Without a model: the tied names safetensors.torch.save_model dropped and recorded in the metadata."""
        dropped = {
            k: v
            for k, v in metadata.items()
            if isinstance(v, str) and k not in self.entries and v in self.entries and k != "format"
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
        if not (isinstance(shape, list) and all(type(d) is int and d >= 0 for d in shape)):
            problems.append((key, f"{key}: shape {shape!r} is not a list of non-negative integers"))
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
            problems.append((key, f"{key}: dtype {dtype_name!r} is not one safetensors knows"))
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
                        raise ValueError(f"{t.key}: safetensors reads shape {got}, the header says {t.shape}")
            if keys != {t.key for t in self.tensors}:
                raise ValueError("safetensors lists other keys than the header")
        except Exception as error:  # noqa: BLE001 (the library's word is the finding)
            self.add(
                "error",
                "safetensors header",
                "",
                f"safetensors.safe_open refuses the file: {one_line(error, 300)}",
            )
