"""torch.save's zip format: torch's own reader (PyTorchFileReader) lists the records; the pickle, the small
records and every storage record are checked against what the pickle declares."""

from __future__ import annotations

import io
import warnings
from collections import defaultdict

import torch

from inside_nn.inspect_checkpoint.checkpoint_report import (
    _dtype_name,
    _mib,
    _names,
    _short,
)
from inside_nn.inspect_checkpoint.limits import PICKLE_LIMIT, SMALL_RECORD
from inside_nn.inspect_checkpoint.pickle_reader import _parse_pickle, _PickleError, _PickleLimit
from inside_nn.inspect_checkpoint.scan import _floating
from inside_nn.inspect_checkpoint.state import _InspectionState
from inside_nn.inspect_checkpoint.tensors import _sub_tensors, _walk
from inside_nn.inspect_checkpoint.weights_only import _swapped
from inside_nn.inspect_checkpoint.zip_layout import (
    _Layout,
    _walk_local_headers,
    _zip_layout,
)


class _ZipFormat(_InspectionState):
    """torch.save's zip format, read through torch's own zip reader (part of _Inspection)."""

    def _zip(self) -> None:
        f = self.f
        layout, why = _zip_layout(f)
        if self.path.endswith(".safetensors"):
            self.add(
                "error",
                "file name",
                "",
                "a torch.save zip archive named .safetensors: torch.load hands every path ending in .safetensors to "
                "safetensors.torch.load_file, which refuses it (SafetensorError: header too large); rename it .pt (or load it from an open file object)",
            )
        with self.f.reopen() as opened:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    reader = torch._C.PyTorchFileReader(opened)  # what torch.serialization._open_zipfile_reader does
                    records = reader.get_all_records()
            except Exception as error:  # noqa: BLE001 (torch's reader refuses the archive: say why)
                self._zip_refused(layout, why, error)
                return
            self._zip_records(reader, records, layout, why)

    def _zip_records(self, reader, records: list, layout: _Layout | None, why: str) -> None:
        """The archive as torch's reader lists it: layout findings, a TorchScript archive told apart, then
        data.pkl read without running it, what weights_only says, and the storages checked."""
        if layout is None:  # torch's reader read it and ours did not: trust torch's for the contents, say what is not
            described = hasattr(reader, "get_record_size")  # torch 2.6's reader cannot size a record by itself
            skipped = (
                ": the archive's layout, its records' CRCs and the tensors' values (NaN/inf) are not checked; its "
                "pickle and tensors are described as torch's reader lists them"
                if described
                else ""
            )
            self.add("warning", "archive layout", "", f"torch's reader opens the archive, but {why}{skipped}")
            if not described:
                return
            self.scanner.not_read = "the archive's directory was not read (see archive layout)"
            archive, by_name = self._archive_name(), {}
            info = self._locate_records(reader, records, None)[2]
        else:
            archive, by_name, info = self._locate_records(reader, records, layout)
            self._layout_findings(layout, archive, by_name, info)
        if "constants.pkl" in records or any(r.startswith("code/") for r in records):
            self.format = "torchscript"
            self.add(
                "error",
                "weights_only",
                "",
                "a TorchScript archive (torch.jit.save: constants.pkl, code/): torch.load(weights_only=True) refuses "
                "it ('Cannot use weights_only=True with TorchScript archives'); torch.jit.load loads it and runs its "
                "TorchScript code. Its parameters: torch.jit.load(path).state_dict()",
            )
            self._crc_pass(layout, archive, {})
            return
        if "data.pkl" not in info and _exported(records):
            self.format = "torch.export"
            self.not_a_checkpoint(
                f"a torch.export archive (torch.export.save: archive_format, models/, data/weights/; records: "
                f"{_names(records, 4)}), not a torch.save file: torch.load raises on it. Load it with "
                "torch.export.load(path); its weights: torch.export.load(path).state_dict"
            )
            return
        if "data.pkl" not in info:
            self.not_a_checkpoint(
                f"a zip archive without data.pkl (records: {_names(records)}): not written by torch.save"
            )
            return
        small = self._small_records(reader, info)
        pkl_size = info["data.pkl"][0]
        pkl_entry = (by_name.get(f"{archive}/data.pkl") or [None])[-1]
        if pkl_size > PICKLE_LIMIT:
            self.add(
                "warning",
                "record size",
                "data.pkl",
                f"data.pkl declares {_mib(pkl_size)}, more than this report reads ({_mib(PICKLE_LIMIT)}; a state "
                "dict's holds kilobytes to megabytes): torch.load allocates that much and unpickles it all. Its "
                "tensors are not described here; the records' CRCs are checked",
            )
            self._crc_pass(layout, archive, {})
            return
        if pkl_entry is not None and pkl_entry.method not in (0, 8):
            self.add(
                "error",
                "compressed record",
                "data.pkl",
                f"data.pkl is compressed with method {pkl_entry.method}, which miniz cannot read",
            )
            return
        data_parsed = self._read_data_pkl(reader, layout, archive)
        if data_parsed is None:
            return
        data, parsed = data_parsed
        # torch.load would byte-swap a meta storage (the process dies), or inflate a compressed record: the
        # weights_only unpickler reads the pickle alone instead
        if _swapped(small.get("byteorder")) or (layout is not None and any(e.method for e in layout.entries)):
            self.meta_pickle = lambda: io.BytesIO(data)
        self._globals(parsed)
        self._torch_load_meta()
        self._describe(
            parsed,
            small,
            f"zip (torch.save), format version {small.get('.data/version') or small.get('version', '?')}",
        )
        self._zip_storages(layout, archive, by_name, info, small)

    def _read_data_pkl(self, reader, layout, archive: str):
        """data.pkl's bytes and its parsed pickle, or None after saying why it cannot be read."""
        try:
            data = bytes(reader.get_record("data.pkl"))
        except Exception as error:  # noqa: BLE001
            self.add(
                "error",
                "archive layout",
                "data.pkl",
                f"torch's reader cannot read data.pkl: {_short(error)}",
            )
            return None
        try:
            parsed = _parse_pickle(io.BytesIO(data))
        except _PickleLimit as error:  # the report's limit, not the file's damage
            self.add(
                "warning",
                "record size",
                "data.pkl",
                f"data.pkl is {error}, more than this report reads (a state dict of hundreds of thousands of "
                "tensors?): torch.load reads it, but its tensors are not described here; the records' CRCs are "
                "checked",
            )
            self._crc_pass(layout, archive, {})
            return None
        except _PickleError as error:
            self.add(
                "error",
                "not a checkpoint",
                "data.pkl",
                f"not a checkpoint: data.pkl is {error}; torch.load fails on it",
            )
            self._crc_pass(layout, archive, {})
            return None
        return data, parsed

    def _archive_name(self) -> str:
        """The folder of the archive's records, from the first local header (where torch.save writes it)."""
        head = self.f.read(0, 30)
        n_len = int.from_bytes(head[26:28], "little") if len(head) == 30 else 0
        return self.f.read(30, n_len).decode("utf-8", "replace").partition("/")[0]

    def _locate_records(self, reader, records: list, layout: _Layout | None) -> tuple[str, dict, dict]:
        """(the archive's folder, its directory entries by name, {record: (size, data offset)} as torch's
        reader resolves them); a finding for every record torch's reader cannot locate."""
        archive = layout.entries[0].name.partition("/")[0] if layout is not None and layout.entries else ""
        by_name = defaultdict(list)
        for e in layout.entries if layout is not None else ():
            by_name[e.name].append(e)
        info = {}

        def locate(name):
            """(size, data offset) as torch's reader resolves them. torch 2.6's reader has no
            get_record_size, and its get_record_offset allocates a compressed record's declared size:
            there the directory entry gives both (the layout findings say where ours and miniz's differ)."""
            if hasattr(reader, "get_record_size"):
                return reader.get_record_size(name), reader.get_record_offset(name)
            entry = by_name[f"{archive}/{name}"][-1]
            return (
                entry.usize,
                entry.data if entry.method else reader.get_record_offset(name),
            )

        for name in records:
            try:
                info[name] = locate(name)
            except Exception as error:  # noqa: BLE001
                self.add(
                    "error",
                    "archive layout",
                    name,
                    f"torch's reader cannot locate record {name}: {_short(error)}",
                )
        return archive, by_name, info

    def _small_records(self, reader, info: dict) -> dict:
        """The small text records (version, byteorder, .format_version, .storage_alignment) as strings; a
        finding for each that torch's reader cannot read."""
        small = {}
        for name in (
            ".data/version",
            "version",
            "byteorder",
            ".format_version",
            ".storage_alignment",
        ):
            if name in info and info[name][0] <= SMALL_RECORD:
                try:
                    small[name] = bytes(reader.get_record(name)).decode("ascii", "replace").strip()
                except Exception as error:  # noqa: BLE001 (a damaged record: say so, go on)
                    self.add(
                        "error",
                        "archive layout",
                        name,
                        f"torch's reader cannot read record {name}: {_short(error)}; torch.load fails on it",
                    )
        return small

    def _zip_refused(self, layout: _Layout | None, why: str, error: Exception) -> None:
        """torch's reader refuses the archive: find out why, from the bytes."""
        message = f"torch.load fails with {_short(error, 160)}"
        try:  # the same reader given the path (miniz reads the file itself) words it differently
            torch._C.PyTorchFileReader(self.path)
        except Exception as other:  # noqa: BLE001
            said = _short(other, 240)
            if said not in message:
                message += f"; torch's reader given the path: {said}"
        if layout is None:
            found, stop = _walk_local_headers(self.f, self.scan_bytes or self.f.size)
            names = [n.partition("/")[2] or n for n, _, _ in found]
            pkl = next(((d, s) for n, d, s in found if n.endswith("/data.pkl")), None)
            described = ""
            if pkl is not None and pkl[1] <= PICKLE_LIMIT:
                try:
                    parsed = _parse_pickle(io.BytesIO(self.f.read(pkl[0], pkl[1])))
                    every = [[t, *_sub_tensors(n, "")] for _, t, n in _walk(parsed.root, "", set())]
                    keys = {t.storage for ts in every for t in ts if t.storage is not None}
                    complete = {n.partition("data/")[2] for n in names if n.startswith("data/")}
                    described = (
                        f"; data.pkl names {len(keys)} storage(s), {len(keys & complete)} of them complete in what is "
                        "left"
                    )
                except _PickleError:
                    pass
            self.add(
                "error",
                "truncated",
                "",
                f"truncated: a zip archive of {_mib(self.f.size)} that stops before its end: the central "
                f"directory and end record that close every zip are missing. {len(found)} complete "
                f"record(s) at its start ({_names(names)}), the next one cut at byte {stop}{described}. A "
                "partial download or a save killed before it finished: download or save it again. "
                f"({message})",
            )
            return
        prefix = self._layout_findings(layout, "", None, None)
        if not prefix:
            names = [e.name for e in layout.entries]
            hint = ""
            if names and "/" not in names[0]:
                hint = (
                    f". Its entries ({_names(names, 4)}) are not inside one folder, as torch.save writes them "
                    "(archive/data.pkl, archive/data/0, ...): re-zipped without the folder, or a zip of something "
                    "else (a NumPy .npz?)"
                )
            self.add("error", "not a checkpoint", "", f"not a checkpoint: {message}{hint}")

    def _zip_storages(self, layout, archive, by_name, info, small) -> None:
        """The storage records against the tensors the pickle points at them, then the CRC pass over every
        record (with NaN/inf counts of the tensors in the state dict) and the strided views."""
        alignment = small.get(".storage_alignment")
        alignment = int(alignment) if alignment and alignment.isdigit() and int(alignment) > 0 else 64
        views = defaultdict(list)
        for t in [*self.all_tensors, *self.tensors]:
            if t.storage is not None:
                views[f"data/{t.storage}"].append(t)
        compressed, misaligned = self._storage_records(views, info, archive, by_name, alignment)
        if compressed:
            self._compressed_storages(compressed, info)
        if misaligned:
            record, entry = misaligned[0]
            self.add(
                "warning",
                "archive layout",
                record,
                f"{len(misaligned)} storage record(s) start off the {alignment or 64}-byte boundary torch.save keeps "
                f"({_names(r for r, _ in misaligned)}; {record} at byte {entry.data}): the archive was rewritten by "
                "another tool; torch.load(mmap=True) maps misaligned tensors",
            )
        unreferenced = [
            r for r in info if r.startswith("data/") and r not in views and r != "data.pkl" and info[r][0] > 0
        ]
        if unreferenced:
            total = sum(info[r][0] for r in unreferenced)
            self.add(
                "note",
                "unreferenced record",
                unreferenced[0],
                f"{len(unreferenced)} storage record(s) no tensor in the pickle points at ({_names(unreferenced)}, "
                f"{_mib(total)}): dead bytes, loaded by nothing",
            )
        scanned = {id(t) for t in self._to_scan()}
        usable = {r: [t for t in ts if t.storage_numel is not None and id(t) in scanned] for r, ts in views.items()}
        self._crc_pass(layout, archive, usable)
        for record, ts in usable.items():
            entry = (by_name.get(f"{archive}/{record}") or [None])[-1]
            if entry is None or entry.data is None or entry.method != 0:
                continue
            for t in ts:
                if _floating(t.dtype) and not t.dense() and t.span() is not None:
                    self.scanner.strided(t, entry.data)
        self._values()

    def _storage_records(
        self, views: dict, info: dict, archive: str, by_name: dict, alignment: int
    ) -> tuple[list, list]:
        """Each storage record against the tensors that view it: missing, of another size than the pickle
        declares, viewed past its end. Returns the compressed records (record, entry, tensors) and the
        misaligned ones (record, entry)."""
        compressed, misaligned = [], []
        for record, ts in views.items():
            key = record.partition("/")[2]
            t0 = ts[0]
            if record not in info:
                self.add(
                    "error",
                    "missing record",
                    t0.key,
                    f"the pickle points {_names(sorted({t.key for t in ts}), 4)} at storage {key}, but the archive has "
                    f"no record {record}: torch.load fails ('file not found: {archive}/{record}')",
                )
                continue
            size, _ = info[record]
            declared = (t0.storage_numel or 0) * t0.itemsize
            if t0.storage_numel is not None and declared != size:
                self.add(
                    "error",
                    "record size",
                    t0.key,
                    f"storage {key} declares {_mib(declared)} ({t0.storage_numel} × {_dtype_name(t0.dtype)}), its "
                    f"record holds {_mib(size)}: torch.load raises (record size mismatch) and "
                    "torch.load(mmap=True) reads "
                    + ("past it into the next record" if declared > size else "only part of it"),
                )
            for t in ts:
                span = t.span()
                if span is not None and t.storage_numel is not None and span[1] > t.storage_numel:
                    self.add(
                        "error",
                        "record size",
                        t.key,
                        f"{t.key} ({t.describe()}, offset {t.offset}, stride {t.stride}) views elements up to "
                        f"{span[1]} of a storage of {t.storage_numel}: torch.load fails (setStorage out of bounds)",
                    )
                    t.storage_numel = None  # not scanned
            entry = (by_name.get(f"{archive}/{record}") or [None])[-1]
            if entry is not None and entry.method != 0:
                compressed.append((record, entry, ts))
            elif entry is not None and entry.data is not None and entry.data % int(alignment or 64):
                misaligned.append((record, entry))
        return compressed, misaligned

    def _compressed_storages(self, compressed: list, info: dict) -> None:
        """Storage records that are compressed: torch.load inflates them, mmap=True does not."""
        record, entry, _ = compressed[0]
        # mmap=True slices the mapped file at the record's offset for its inflated size: past the end of the
        # file the slice is short and the load raises; inside it, the compressed bytes become the values.
        past = [
            r
            for r, e, views_r in compressed
            if info[r][1] + (views_r[0].storage_numel or 0) * views_r[0].itemsize > self.f.size
        ]
        mapped = (
            f"raises, since {past[0]} declares more bytes than the file holds after its offset (RuntimeError: "
            "Trying to resize storage that is not resizable); where they fit, it loads garbage without an error"
            if past
            else "loads garbage without an error, since the declared bytes fit inside the file"
        )
        self.add(
            "error",
            "compressed record",
            record,
            f"{len(compressed)} storage record(s) are compressed ({_names(r for r, _, _ in compressed)}; "
            f"{record}: method {entry.method}, {_mib(entry.csize)} for {_mib(entry.usize)}): torch.load "
            "inflates them, but torch.load(mmap=True) reads the compressed bytes as the tensors' values: here "
            f"it {mapped}. torch.save never compresses: the archive was rewritten by another "
            "tool (re-zipped?); re-save it with torch.save",
        )


def _exported(records) -> bool:
    """Whether an archive's records are those torch.export.save writes (a .pt2 package: archive_format "pt2",
    the program as JSON under models/ or serialized_exported_program.json, the weights under data/)."""
    names = set(records)
    return "archive_format" in names or any(
        r.startswith("models/") and r.endswith(".json") or r.endswith("serialized_exported_program.json") for r in names
    )
