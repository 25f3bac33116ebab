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

import os
import time
from collections import defaultdict

from torch import nn

# The names other modules and tests import from here (checkpoint.py: PICKLE_LIMIT; cli.py: _special_file).
from inside_nn.inspect_checkpoint.checkpoint_report import (
    FIX_PREFIX as FIX_PREFIX,
)
from inside_nn.inspect_checkpoint.checkpoint_report import (
    NO_CRC_CHECK as NO_CRC_CHECK,
)
from inside_nn.inspect_checkpoint.checkpoint_report import (
    SECTIONS as SECTIONS,
)
from inside_nn.inspect_checkpoint.checkpoint_report import (
    CheckpointReport,
    _dtype_name,
)
from inside_nn.inspect_checkpoint.checkpoint_report import (
    _short as _short,
)
from inside_nn.inspect_checkpoint.files import (
    NotRegular as NotRegular,
)
from inside_nn.inspect_checkpoint.files import (
    _special_file as _special_file,
)
from inside_nn.inspect_checkpoint.inspection import _Inspection
from inside_nn.inspect_checkpoint.limits import (
    CHUNK as CHUNK,
)
from inside_nn.inspect_checkpoint.limits import (
    DIRECTORY_LIMIT as DIRECTORY_LIMIT,
)
from inside_nn.inspect_checkpoint.limits import (
    ENTRY_LIMIT as ENTRY_LIMIT,
)
from inside_nn.inspect_checkpoint.limits import (
    HEADER_LIMIT as HEADER_LIMIT,
)
from inside_nn.inspect_checkpoint.limits import (
    INFLATE_FLOOR as INFLATE_FLOOR,
)
from inside_nn.inspect_checkpoint.limits import (
    INFLATE_RATIO as INFLATE_RATIO,
)
from inside_nn.inspect_checkpoint.limits import (
    OPCODE_LIMIT as OPCODE_LIMIT,
)
from inside_nn.inspect_checkpoint.limits import (
    PICKLE_LIMIT as PICKLE_LIMIT,
)
from inside_nn.inspect_checkpoint.limits import (
    SCAN_BYTES,
)
from inside_nn.inspect_checkpoint.limits import (
    SHOWN as SHOWN,
)
from inside_nn.inspect_checkpoint.limits import (
    SMALL_RECORD as SMALL_RECORD,
)
from inside_nn.inspect_checkpoint.state_dict import _path_text
from inside_nn.inspect_module import one_line

__all__ = ["SECTIONS", "CheckpointReport", "inspect_checkpoint"]


def inspect_checkpoint(
    path, model: nn.Module | None = None, *, scan_bytes: int | None = SCAN_BYTES
) -> CheckpointReport:
    """Report what torch.load and load_state_dict would do with the checkpoint at `path`, without loading it.
    `path` may be a directory: a torch.distributed.checkpoint save, or a Hugging Face sharded one (directory.py).

    model: also compare the file with this model, by running the model's own load_state_dict on a meta copy of
    it (its load hooks and the file's _metadata versions decide what is missing, unexpected or raises; no data is
    copied), then what that run cannot see: values copy_ refuses, a tie fed two different values, casts that
    overflow; shapes, dtypes, ties, non-persistent buffers, the prefix that would be stripped. With a model and
    nothing in the file to compare it with, an error. scan_bytes: how many tensor bytes to read for CRCs and
    NaN/inf counts (None: all of them). Never raises on a file, never runs code from it."""
    start = time.perf_counter()
    path = os.fspath(path)
    inspection = _Inspection(path, model, scan_bytes)
    try:
        inspection.run()
        compared = inspection.sd is not None and inspection.sd.how != "none"
        if compared and model is not None:
            inspection._against(model)
        elif compared:
            inspection._prefix_without_model()
        elif model is not None and not os.path.isdir(path):  # nothing to compare with: an error, not exit 0
            inspection._no_comparison()  # (a folder is compared by directory.py, which says when it cannot)
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
            "storage": f"data/{t.storage}" if inspection.format == "zip" and t.storage is not None else t.storage,
            "offset": t.offset,
            "location": t.location,
            "tied_with": [k for k in tied.get((t.storage, t.offset, t.shape, t.stride), []) if k != t.key],
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
        state_dict_path=_path_text(inspection.sd.path) if inspection.sd is not None else None,
        prefix=inspection.prefix,
        load_outcome=inspection.load_outcome,
        scanned_bytes=inspection.f.scanned if inspection.f is not None else inspection.dir_scanned,
        seconds=time.perf_counter() - start,
    )
