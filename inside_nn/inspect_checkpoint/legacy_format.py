"""torch.save's legacy format (_use_new_zipfile_serialization=False): a sequence of pickles (magic number,
protocol, system info, the object, the storage keys) followed by raw storages."""

from __future__ import annotations

import struct
from collections import defaultdict

from inside_nn.inspect_checkpoint.checkpoint_report import _names
from inside_nn.inspect_checkpoint.files import _BoundedStream
from inside_nn.inspect_checkpoint.pickle_reader import (
    _last_wins,
    _mapping,
    _parse_pickle,
    _PickleError,
)
from inside_nn.inspect_checkpoint.scan import _floating
from inside_nn.inspect_checkpoint.state import _InspectionState
from inside_nn.inspect_checkpoint.tensors import _itemsize


def _stream_at(f, pos: int) -> _BoundedStream:
    stream = _BoundedStream(f)
    stream.seek(pos)
    return stream


class _LegacyFormat(_InspectionState):
    """torch.save's legacy format: pickles, then raw storages (part of _Inspection)."""

    def _legacy(self) -> None:
        """A legacy torch.save file: its five pickles read (a plain pickle or a damaged one said as such), what
        weights_only says of the main one, then the raw storages after them."""
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
            truncated = stream.tell() >= f.size  # the pickles ran out of file, not out of sense
            if truncated:
                self.add(
                    "error",
                    "truncated",
                    "",
                    f"truncated: a legacy torch.save file that ends at byte {f.size:,}, inside its pickles ({error}): "
                    "torch.load fails. A partial download or a save killed before it finished",
                )
            else:
                self.not_a_checkpoint(f"a legacy torch.save file whose pickles cannot be read ({error})")
            return
        info = _last_wins(_mapping(sys_info.root) or [])
        little = info.get("little_endian", True)
        self.meta_pickle = lambda: _stream_at(self.f, main_start)
        self._globals(parsed)
        self._weights_only_legacy()
        self._describe(
            parsed,
            {"byteorder": "little" if little else "big"},
            f"legacy (torch.save with _use_new_zipfile_serialization=False, protocol {protocol.root}): "
            "torch.load(mmap=True) refuses it; no checksums in the format: damaged values go unnoticed unless they are "
            "NaN/inf",
        )
        storage_keys = keys.root if isinstance(keys.root, list) else []
        self._legacy_storages(storage_keys, keys.end, little)

    def _legacy_storages(self, storage_keys: list, pos: int, little: bool) -> None:
        """The raw storages after the pickles, from byte `pos`, in the order the last pickle lists their keys:
        each an 8-byte element count and the bytes, checked against what the pickle declares and scanned."""
        f = self.f
        by_key = defaultdict(list)
        for t in [*self.all_tensors, *self.tensors]:
            if t.storage is not None:
                by_key[t.storage].append(t)
        in_sd = {id(t) for t in self._to_scan()}
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
            if t0 is not None and t0.storage_numel is not None and numel != t0.storage_numel:
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

    def _weights_only_legacy(self) -> None:
        """torch's weights_only unpickler over the legacy file's main pickle, with meta storages (no data read)."""
        if self.refused:
            return
        try:
            self._meta_load()
        except Exception as error:  # noqa: BLE001 (what the reader says is the finding)
            self._refused_by_torch(error)
