"""What inspect_checkpoint reads at most: tensor bytes, pickle bytes and opcodes, header and directory sizes."""

from __future__ import annotations

# Tensor bytes read for CRCs and NaN/inf counts before the report stops reading (None: no limit).
SCAN_BYTES = 2 * 2**30


CHUNK = 16 * 2**20  # bytes read at a time


# A data.pkl larger than this, or with more opcodes, is not read (a real one holds kilobytes to megabytes): the
# description of what it builds takes a few Python objects per opcode.
PICKLE_LIMIT = 32 * 2**20


OPCODE_LIMIT = 4_000_000


HEADER_LIMIT = 100_000_000  # safetensors' own MAX_HEADER_SIZE


DIRECTORY_LIMIT = 16 * 2**20  # a zip central directory larger than this is not read (a torch.save one: kilobytes)


ENTRY_LIMIT = 200_000  # nor one with more entries than this


# Deflated records are inflated (for their CRCs and values) up to INFLATE_RATIO times the file's size, or
# INFLATE_FLOOR bytes if more, in all: a zip bomb costs time linear in its size.
INFLATE_RATIO = 16


INFLATE_FLOOR = 256 * 2**20


SMALL_RECORD = 4096  # version, byteorder, .format_version: anything larger is not read


SHOWN = 6  # keys named in one finding before "..."
