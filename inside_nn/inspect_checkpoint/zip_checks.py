"""The zip archive's bytes checked: layout findings (what two zip readers would read differently), the CRC-32
of every record, and a zip hidden behind other data."""

from __future__ import annotations

import itertools

from inside_nn.inspect_checkpoint.checkpoint_report import NO_CRC_CHECK, _mib, _names
from inside_nn.inspect_checkpoint.limits import INFLATE_FLOOR, INFLATE_RATIO
from inside_nn.inspect_checkpoint.state import _InspectionState
from inside_nn.inspect_checkpoint.zip_layout import _LOCAL, _Layout, _zip_layout


class _ZipChecks(_InspectionState):
    """Checks on a zip archive's bytes, independent of torch's reader (part of _Inspection)."""

    def _embedded_zip(self) -> None:
        """A file that is not a zip at its start but ends like one: a zip with data in front of it."""
        if self.f.size < 22 or self.f.read(0, 4) == _LOCAL:
            return
        layout, _ = _zip_layout(self.f)
        if layout is None or not layout.entries:
            return
        first = min(e.header + layout.shift for e in layout.entries)
        self.add(
            "error",
            "archive layout",
            "",
            f"a zip archive ({len(layout.entries)} entries: {_names(e.name for e in layout.entries)}) lies behind "
            f"{first} bytes of other data: torch.load checks only the first four bytes for a zip signature "
            "(torch.serialization._is_zipfile), finds none and reads the file as a legacy pickle, while Python's "
            "zipfile and unzip find the archive from its end. Two readers, two different files: treat it as "
            "hostile, or cut the prefix off if you made it",
        )

    def _layout_findings(self, layout: _Layout, archive: str, by_name, info) -> bool:
        """Findings on the archive's bytes: what two zip readers would read differently. True if any."""
        f, found = self.f, False
        for problem in layout.problems:
            self.add(
                "error",
                "archive layout",
                "",
                f"the archive's end record is inconsistent: {problem}",
            )
            found = True
        if layout.shift > 0:
            self.add(
                "error",
                "archive layout",
                "",
                f"{layout.shift} bytes inside the archive that its central directory does not count (data inserted "
                "before the entries, or a directory written for another file): Python's zipfile shifts every offset "
                "to make up for it, torch's miniz reader does not, so the two read different bytes",
            )
            found = True
        if layout.end < f.size:
            self.add(
                "warning",
                "archive layout",
                "",
                f"{f.size - layout.end} bytes after the end of the archive: zip readers ignore them, other tools may "
                "not; a file appended to or written over a longer one",
            )
            found = True
        ordered = sorted((e for e in layout.entries if e.data is not None), key=lambda e: e.header)
        for a, b in itertools.pairwise(ordered):
            if (a.descriptor_end or a.end) > b.header + layout.shift:
                self.add(
                    "error",
                    "archive layout",
                    b.name,
                    f"entries {a.name!r} and {b.name!r} overlap in the file (bytes {b.header + layout.shift}.."
                    f"{a.descriptor_end or a.end}): a zip-bomb construction, or a damaged directory; the same bytes "
                    "are read as two records",
                )
                found = True
        for e in layout.entries:
            for problem in e.problems:
                severity = "warning" if problem.startswith("its data descriptor") else "error"
                self.add(severity, "archive layout", e.name, f"entry {e.name!r}: {problem}")
                found = True
            if e.method == 0 and e.csize != e.usize:
                self.add(
                    "error",
                    "archive layout",
                    e.name,
                    f"entry {e.name!r} is stored (not compressed) yet declares {e.csize:,} bytes in the file and "
                    f"{e.usize:,} unpacked: miniz, torch's reader, refuses the archive",
                )
                found = True
            if e.method == 8 and e.usize > 2**26 and e.usize > 1000 * max(e.csize, 1):
                self.add(
                    "error",
                    "compressed record",
                    e.name,
                    f"entry {e.name!r} declares {_mib(e.usize)} inflated from {_mib(e.csize)} (a ratio over "
                    f"{e.usize // max(e.csize, 1):,}): a zip bomb; torch's reader allocates the declared size before "
                    "inflating",
                )
                found = True
            elif e.method not in (0, 8):
                self.add(
                    "error",
                    "compressed record",
                    e.name,
                    f"entry {e.name!r} uses compression method {e.method}, which torch's reader (miniz) cannot read",
                )
                found = True
            if e.flags & 0x1:
                self.add(
                    "error",
                    "archive layout",
                    e.name,
                    f"entry {e.name!r} is encrypted: miniz cannot read it",
                )
                found = True
        if archive and by_name is not None:
            found = self._duplicate_records(by_name, info) or found
        return found

    def _duplicate_records(self, by_name: dict, info: dict) -> bool:
        """Names the central directory lists more than once: each reader takes another entry. True if any."""
        found = False
        for name, group in by_name.items():
            if len(group) > 1:
                short = name.partition("/")[2]
                took = info.get(short, (None, None))[1]
                torch_index = next((e.index for e in group if e.data == took), None)
                self.add(
                    "error",
                    "duplicate record",
                    short,
                    f"{len(group)} entries named {name!r} (central directory entries "
                    f"{', '.join(str(e.index) for e in group)}): torch's reader (miniz, a binary search over "
                    f"sorted names) takes entry {torch_index}, Python's zipfile the last one ({group[-1].index}), "
                    "other tools the first: the file means different things to different readers",
                )
                found = True
        return found

    def _crc_pass(self, layout: _Layout, archive: str, views_by_record: dict) -> None:
        """CRC-32 of every record (and NaN/inf counts of the tensors that view each), within the byte budget;
        none without the archive's directory (layout None)."""
        if layout is None:
            return
        zero = [e for e in layout.entries if e.crc == 0 and e.usize > 0]
        bad, inflated = [], 0
        for e in layout.entries:
            short = e.name.partition("/")[2] if e.name.startswith(archive + "/") else e.name
            views = views_by_record.get(short, [])
            row = {
                "name": short,
                "bytes": e.usize,
                "offset": e.data,
                "compressed": e.method != 0,
                "crc": None,
            }
            self.records.append(row)
            if e.data is None or e.data + e.csize > self.f.size or e.method not in (0, 8):
                continue
            if e.method == 8:  # a compressed record is an error already; inflate it within a budget
                inflated += e.usize
                if inflated > max(INFLATE_RATIO * self.f.size, INFLATE_FLOOR):
                    continue
            check = e.crc != 0 or e.usize == 0
            if e.method == 0:
                result = self.scanner.storage(short, e.data, e.csize, views, crc=check)
            else:
                result = self.scanner.storage(
                    short,
                    e.data,
                    e.usize,
                    views,
                    crc=check,
                    inflate=True,
                    csize=e.csize,
                )
            if result is None:
                continue
            value, seen = result
            if e.method == 8 and seen < e.usize:
                why = f" ({self.scanner.inflate_error})" if self.scanner.inflate_error else ""
                self.add(
                    "error",
                    "compressed record",
                    short,
                    f"record {short} inflates to {_mib(seen)}, not the {_mib(e.usize)} it declares{why}: damaged; "
                    "torch.load fails on it",
                )
                self.scanner.inflate_error = None
                continue
            if check:
                row["crc"] = value == e.crc
                if value != e.crc:
                    bad.append((e, short, value, views))
        for e, short, value, views in bad:
            held = f" (holding {_names(sorted({t.key for t in views}), 4)})" if views else ""
            what = "the pickle itself" if short == "data.pkl" else "its values"
            self.add(
                "error",
                "bad crc",
                short,
                f"record {short}{held} fails its CRC-32 (the directory says {e.crc:#010x}, its bytes give "
                f"{value:#010x}): {what} changed after saving (a bit flip, a zeroed block, an edit). {NO_CRC_CHECK}, "
                "so it would load the damaged bytes silently",
            )
        if zero:
            self.add(
                "note",
                "no crc",
                "",
                f"{len(zero)} record(s) carry CRC 0 ({_names(e.name.partition('/')[2] for e in zero)}): torch.save "
                "writes 0 when saved under torch.serialization.set_crc32_options(False), and for every storage saved "
                "under torch.serialization.skip_data(); their bytes cannot be checked. Not damage in itself",
            )
