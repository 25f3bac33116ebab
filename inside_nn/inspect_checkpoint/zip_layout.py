"""The zip archive, as bytes: the central directory, the local headers and data descriptors, parsed with
bounds checks, to find what two zip readers would read differently; and the walk over a truncated archive."""

from __future__ import annotations

import dataclasses
import struct

from inside_nn.inspect_checkpoint.checkpoint_report import _mib
from inside_nn.inspect_checkpoint.files import _File
from inside_nn.inspect_checkpoint.limits import CHUNK, DIRECTORY_LIMIT, ENTRY_LIMIT

_LOCAL = b"PK\x03\x04"


_CENTRAL = b"PK\x01\x02"


_EOCD = b"PK\x05\x06"


_EOCD64 = b"PK\x06\x06"


_LOCATOR = b"PK\x06\x07"


_DESCRIPTOR = b"PK\x07\x08"


@dataclasses.dataclass
class _Entry:
    index: int
    name: str
    flags: int
    method: int
    crc: int
    csize: int
    usize: int
    header: int  # offset of the local header (as the central directory says)
    data: int | None = None  # where the data starts, after the local header
    local_name: str | None = None
    local_method: int | None = None
    descriptor_crc: int | None = None
    descriptor_end: int | None = None
    problems: list = dataclasses.field(default_factory=list)

    @property
    def end(self) -> int | None:
        return None if self.data is None else self.data + self.csize


@dataclasses.dataclass
class _Layout:
    entries: list
    cd_offset: int
    cd_size: int
    eocd: int  # offset of the end-of-central-directory record
    end: int  # where the archive ends (after the EOCD and its comment)
    shift: int  # bytes before the archive that the central directory's offsets do not count (prepended data)
    declared: int  # entries the EOCD declares
    problems: list


def _zip64_extra(extra: bytes, need: list[str]) -> dict:
    out, pos = {}, 0
    while pos + 4 <= len(extra):
        tag, size = struct.unpack_from("<HH", extra, pos)
        body = extra[pos + 4 : pos + 4 + size]
        if tag == 1:
            for i, field in enumerate(need):
                if 8 * i + 8 <= len(body):
                    out[field] = struct.unpack_from("<Q", body, 8 * i)[0]
        pos += 4 + size
    return out


def _find_eocd(f: _File) -> int | None:
    """The offset of the last end-of-central-directory signature in the file's last 64 KiB + 22 bytes."""
    tail_start = max(0, f.size - (65535 + 22))
    tail = f.read(tail_start, f.size - tail_start)
    i = tail.rfind(_EOCD)
    while i >= 0 and len(tail) - i < 22:
        i = tail.rfind(_EOCD, 0, i)
    return None if i < 0 else tail_start + i


def _zip_layout(f: _File) -> tuple[_Layout | None, str]:
    """The central directory and local headers, parsed with bounds checks; (None, why) when there is none."""
    eocd = _find_eocd(f)
    if eocd is None:
        return None, "no end-of-central-directory record"
    raw = f.read(eocd, 22)
    _, _, _, _, declared, cd_size, cd_offset, comment = struct.unpack("<4s4H2LH", raw)
    end = eocd + 22 + comment
    problems = []
    if end > f.size:
        problems.append(f"the end record declares a {comment}-byte comment past the end of the file")
        end = f.size
    cd_end = eocd
    locator = f.read(eocd - 20, 20) if eocd >= 20 else b""
    if locator[:4] == _LOCATOR:
        # the zip64 end record sits just before its locator (where Python's zipfile reads it); the locator also
        # gives its offset (where miniz reads it): the two differ when data was inserted in front of the archive
        _, _, stated, _ = struct.unpack("<4sLQL", locator)
        eocd64 = eocd - 20 - 56
        record = f.read(eocd64, 56) if eocd64 >= 0 else b""
        if len(record) == 56 and record[:4] == _EOCD64:
            _, _, _, _, _, _, _, declared, cd_size, cd_offset = struct.unpack("<4sQ2H2L4Q", record)
            cd_end = eocd64
            if stated != eocd64 and stated != cd_offset + cd_size:
                problems.append(
                    f"the zip64 locator places the zip64 end record at byte {stated}, it is at byte {eocd64}"
                )
        else:
            problems.append("no zip64 end record before the zip64 locator")
    shift = cd_end - cd_size - cd_offset
    if cd_size > DIRECTORY_LIMIT or declared > ENTRY_LIMIT:
        return (
            None,
            (
                f"a central directory of {_mib(cd_size)} and {declared:,} entries (more than this report reads: "
                f"{_mib(DIRECTORY_LIMIT)}, {ENTRY_LIMIT:,} entries)"
            ),
        )
    if shift < 0:
        return (
            None,
            f"a central directory ({_mib(cd_size)} at byte {cd_offset}) that runs past its end record",
        )
    directory = f.read(cd_offset + shift, cd_size)
    entries, pos = [], 0
    while pos + 46 <= len(directory) and directory[pos : pos + 4] == _CENTRAL:
        fields = struct.unpack_from("<4s6H3L5H2L", directory, pos)
        flags, method, crc, csize, usize = (
            fields[3],
            fields[4],
            fields[7],
            fields[8],
            fields[9],
        )
        n_len, e_len, c_len, header = fields[10], fields[11], fields[12], fields[16]
        name_bytes = directory[pos + 46 : pos + 46 + n_len]
        extra = directory[pos + 46 + n_len : pos + 46 + n_len + e_len]
        need = [f for f, v in (("usize", usize), ("csize", csize), ("header", header)) if v == 0xFFFFFFFF]
        big = _zip64_extra(extra, need)
        entries.append(
            _Entry(
                len(entries),
                name_bytes.decode("utf-8" if flags & 0x800 else "cp437", "replace"),
                flags,
                method,
                crc,
                big.get("csize", csize),
                big.get("usize", usize),
                big.get("header", header),
            )
        )
        pos += 46 + n_len + e_len + c_len
    if len(entries) != declared:
        problems.append(f"the end record declares {declared} entries, the central directory holds {len(entries)}")
    for e in entries:
        _read_local(f, e, shift)
    return _Layout(entries, cd_offset, cd_size, eocd, end, shift, declared, problems), ""


def _read_local(f: _File, e: _Entry, shift: int) -> None:
    """The local header of an entry (where torch's reader and every other zip reader find its data)."""
    at = e.header + shift
    raw = f.read(at, 30)
    if len(raw) < 30 or raw[:4] != _LOCAL:
        e.problems.append(f"no local header at byte {at}")
        return
    _, _, flags, method, _, _, _, _, _, n_len, e_len = struct.unpack("<4s5H3L2H", raw)
    e.local_name = f.read(at + 30, n_len).decode("utf-8" if flags & 0x800 else "cp437", "replace")
    e.local_method = method
    e.data = at + 30 + n_len + e_len
    if e.local_name != e.name:
        e.problems.append(f"the central directory names it {e.name!r}, its local header {e.local_name!r}")
    if method != e.method:
        e.problems.append(f"the central directory says method {e.method}, its local header {method}")
    if e.data + e.csize > f.size:
        e.problems.append(
            f"its data ({_mib(e.csize)} from byte {e.data}) runs {_mib(e.data + e.csize - f.size)} past the end of the file"
        )
    if flags & 0x8:
        tail = f.read(e.data + e.csize, 24)
        if tail[:4] == _DESCRIPTOR:
            e.descriptor_crc = struct.unpack_from("<L", tail, 4)[0]
            wide = len(tail) >= 24 and struct.unpack_from("<QQ", tail, 8) == (
                e.csize,
                e.usize,
            )
            e.descriptor_end = e.data + e.csize + (24 if wide else 16)
        elif len(tail) >= 12:
            e.descriptor_crc = struct.unpack_from("<L", tail, 0)[0]
            e.descriptor_end = e.data + e.csize + 12
        if e.descriptor_crc is not None and e.descriptor_crc != e.crc and e.crc != 0:
            e.problems.append(
                f"its data descriptor says CRC {e.descriptor_crc:#010x}, the central directory {e.crc:#010x}"
            )


def _walk_local_headers(f: _File, budget: int) -> tuple[list, int]:
    """For an archive without its central directory (truncated): the complete entries from the front, as
    (name, data offset, data size), found by walking local headers and their data descriptors; and the offset
    where the first incomplete entry starts."""
    found, pos, searched = [], 0, 0
    while pos + 30 <= f.size:
        raw = f.read(pos, 30)
        if raw[:4] != _LOCAL:
            break
        _, _, flags, _, _, _, _, csize, _, n_len, e_len = struct.unpack("<4s5H3L2H", raw)
        name = f.read(pos + 30, n_len).decode("utf-8", "replace")
        data = pos + 30 + n_len + e_len
        if not flags & 0x8 and csize not in (0, 0xFFFFFFFF):
            end = data + csize
            if end > f.size:
                return found, pos
            found.append((name, data, csize))
            pos = end
            continue
        # the size is in the data descriptor after the data: search for it (and the next header after it)
        at = data
        while True:
            block = f.read(at, CHUNK + 64)
            # Count what the search consumes (up to the descriptor it finds), not the whole block read:
            # a block can reach the end of a small file, which would count it once per entry.
            if not block or searched > budget:
                return found, pos
            hit = -1
            i = block.find(_DESCRIPTOR)
            while i >= 0 and i + 4 <= len(block):
                for width in (24, 16):
                    nxt = f.read(at + i + width, 4)
                    if nxt in (_LOCAL, _CENTRAL):
                        size = at + i - data
                        sizes = f.read(at + i + 8, 16)
                        if (width == 24 and struct.unpack_from("<Q", sizes)[0] == size) or (
                            width == 16 and struct.unpack_from("<L", sizes)[0] == size & 0xFFFFFFFF
                        ):
                            hit = width
                            break
                if hit > 0:
                    break
                i = block.find(_DESCRIPTOR, i + 1)
            if hit > 0:
                searched += i + hit
                size = at + i - data
                found.append((name, data, size))
                pos = at + i + hit
                break
            searched += min(len(block), CHUNK)
            if len(block) < CHUNK + 64:
                return found, pos
            at += CHUNK
    return found, pos
