"""The inspection of one file: the format decided from its first bytes, then the part for that format."""

from __future__ import annotations

import os
import struct

from inside_nn.inspect_checkpoint.against import _Against
from inside_nn.inspect_checkpoint.contents import _Contents
from inside_nn.inspect_checkpoint.directory import _Directory
from inside_nn.inspect_checkpoint.files import (
    NotRegular,
    _File,
    _special_file,
    _what_else,
)
from inside_nn.inspect_checkpoint.legacy_format import _LegacyFormat
from inside_nn.inspect_checkpoint.load_run import _LoadRun
from inside_nn.inspect_checkpoint.pickle_reader import _pickle_like
from inside_nn.inspect_checkpoint.safetensors_format import (
    _safetensors_like,
    _SafetensorsFormat,
)
from inside_nn.inspect_checkpoint.scan import _Scanner
from inside_nn.inspect_checkpoint.weights_only import _WeightsOnly
from inside_nn.inspect_checkpoint.zip_checks import _ZipChecks
from inside_nn.inspect_checkpoint.zip_format import _ZipFormat
from inside_nn.inspect_checkpoint.zip_layout import _LOCAL
from inside_nn.inspect_module import one_line


class _Inspection(
    _ZipFormat,
    _ZipChecks,
    _LegacyFormat,
    _SafetensorsFormat,
    _WeightsOnly,
    _Contents,
    _Against,
    _Directory,
    _LoadRun,
):
    """One file's inspection: `run` reads the file and decides its format; the parts for each format and
    concern come from the mixins (one module each), all working on _InspectionState."""

    def run(self) -> None:
        """Open the file (a directory, a special file or one that cannot be opened is said so), decide its
        format from its first bytes and inspect it as that; a file of no format is said what it looks like."""
        if os.path.isdir(self.path):
            self._directory()
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
            self._directory()
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
            self.scanner.track = self.model is not None  # digests and extremes, to compare with the model
            head = self.f.read(0, 65536)
            length = struct.unpack_from("<Q", head)[0] if len(head) >= 8 else None
            if head[:4] == _LOCAL:
                self.format = "zip"
                self._zip()
                return
            if _safetensors_like(head, self.f.size) or (
                self.path.endswith(".safetensors") and length is not None and length < 2**32
            ):
                self.format = "safetensors"
                self._safetensors(head)
            elif (head[:1] == b"\x80" and len(head) > 1 and head[1] in (2, 3, 4, 5)) or _pickle_like(self.f):
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
                named = "named .safetensors, but " if self.path.endswith(".safetensors") else ""
                self.not_a_checkpoint(named + _what_else(self.f, head))
            self._embedded_zip()
        finally:
            self.f.close()
