"""The report inspect_checkpoint returns (CheckpointReport), where the book explains each kind of finding
(SECTIONS), and the small text helpers every finding's message uses."""

from __future__ import annotations

from inside_nn.inspect_checkpoint.limits import SHOWN
from inside_nn.inspect_module import shorten
from inside_nn.report import BOOK, Finding, Report

_FILE_IO = "notebooks/05_file_io.html#"


_SURVIVE = "notebooks/05_checkpoints_that_survive.html#"


_META = "notebooks/03_meta_device.html#"


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
    "weights_only": _FILE_IO + "opening-an-old-checkpoint-you-trust",
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
    "load error": _FILE_IO + "missing-and-unexpected-keys",
    "load hook": _FILE_IO + "missing-and-unexpected-keys",
    "no comparison": _FILE_IO + "missing-and-unexpected-keys",
    "tie fed twice": "notebooks/01_parameter_management.html#tied-parameters",
    "safetensors tie": _FILE_IO + "safetensors-a-format-with-no-code-in-it",
    "split tie": _META + "lazy-meta-assign",
    "non-persistent buffer": _META + "lazy-meta-assign",
    "lazy": "notebooks/03_lazy_modules.html#before-the-dry-run-shapes-checkpoints-ddp",
    "distributed checkpoint": _SURVIVE + "saving-under-distributeddataparallel",
    "sharded checkpoint": _FILE_IO + "large-models-no-second-copy-in-memory",
}


FIX_PREFIX = 'torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(sd, "{prefix}")'


NO_CRC_CHECK = (
    "torch.load never checks CRCs (PyTorch builds miniz with MINIZ_DISABLE_ZIP_READER_CRC32_CHECKS, "
    "cmake/Dependencies.cmake)"
)


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
    "torchscript", "legacy tar"; for a directory "dcp" (torch.distributed.checkpoint), "hf sharded safetensors" or
    "hf sharded bin"; or None when the path is not a checkpoint. tensors: one dict per tensor of the
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
        if self.load_outcome is None or any(f.severity == "error" for f in self.findings):
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
        lines = ["  ".join(c.ljust(w) for c, w in zip(r[:4], widths, strict=True)) + "  " + r[4] for r in rows]
        if len(self.tensors) > limit:
            lines.append(f"... {len(self.tensors) - limit} more")
        return "\n".join(lines)
