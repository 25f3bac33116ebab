"""inspect_checkpoint on files that are not damaged: files written legitimately that look damaged (CRC
checks disabled, skipped data, values only where a tensor views them), the other formats (legacy torch.save,
safetensors, files that are no checkpoint at all, storages saved on an accelerator, Lightning, a meta-built
model) and a 1 GiB file, sparse on disk, which bounds the time and the memory.

The helpers (archive surgery, `kinds`, `write`, ...) are tests/test_inspect_checkpoint.py's.
"""

from __future__ import annotations

import json
import struct
import time
import tracemalloc
import warnings
import zipfile

import pytest
import torch
from test_inspect_checkpoint import kinds, records, rezip, safetensors_file, serious, text, write
from torch import nn

from inside_nn import zoo
from inside_nn.inspect_checkpoint import inspect_checkpoint

# ----------------------------------------------------------------------------------------------------------------
# Files written legitimately that look damaged


def test_crc_disabled_and_skip_data_are_not_damage(tmp_path):
    sd = zoo.build("gpt2").state_dict()
    torch.serialization.set_crc32_options(False)
    try:
        torch.save(sd, tmp_path / "nocrc.pt")
    finally:
        torch.serialization.set_crc32_options(True)
    report = inspect_checkpoint(tmp_path / "nocrc.pt")
    assert "bad crc" not in kinds(report) and "no crc" in kinds(report, "note") and not serious(report)
    with torch.serialization.skip_data():
        torch.save(sd, tmp_path / "skip.pt")
    report = inspect_checkpoint(tmp_path / "skip.pt")
    assert "bad crc" not in kinds(report) and "no crc" in kinds(report, "note") and not serious(report)
    with torch.serialization.skip_data():  # a NaN where skip_data left zeros would be found, not a CRC
        torch.save({"w": torch.zeros(64)}, tmp_path / "skipw.pt")
    offset, _ = records(tmp_path / "skipw.pt")["data/0"]
    data = bytearray((tmp_path / "skipw.pt").read_bytes())
    data[offset + 8 : offset + 12] = struct.pack("<f", float("nan"))
    report = inspect_checkpoint(write(tmp_path / "skipw.pt", bytes(data)))
    assert kinds(report, "error") == {"non-finite"}


def test_values_only_where_a_tensor_views_them(tmp_path):
    base = torch.zeros(10, 12)
    base[9, 11] = float("nan")  # outside every view saved below: dead storage bytes
    base[0, 5] = float("inf")  # inside the transposed, sliced view
    base[1, 1] = float("nan")  # in a gap of the strided view (column 1 is not viewed)
    torch.save({"head": base[:2, ::5].t(), "first": base[0, :4]}, tmp_path / "views.pt")
    report = inspect_checkpoint(tmp_path / "views.pt")
    found = {f.path: f.message for f in report.of_kind("non-finite")}
    assert set(found) == {"head"} and "1 ±inf" in found["head"] and "NaN" not in found["head"], text(report)
    assert "shared storage" in kinds(report)
    rezip(tmp_path / "views.pt", tmp_path / "deflated.pt", zipfile.ZIP_DEFLATED)  # read through zlib
    torch.save(
        {"t": torch.zeros(5 * 2**20 + 3).index_fill_(0, torch.tensor([5 * 2**20 + 1]), float("nan"))},
        tmp_path / "t.pt",
    )
    rezip(tmp_path / "t.pt", tmp_path / "t-deflated.pt", zipfile.ZIP_DEFLATED)
    report = inspect_checkpoint(tmp_path / "t-deflated.pt")
    assert "1 NaN" in report.of_kind("non-finite")[0].message and "bad crc" not in kinds(report)
    assert "compressed record" in kinds(report, "error")
    for dtype in (
        torch.float16,
        torch.bfloat16,
        torch.float64,
        torch.complex64,
        torch.float8_e5m2,
    ):
        t = torch.zeros(40, dtype=torch.float32)
        t[3] = float("nan")
        torch.save({"t": t.to(dtype)}, tmp_path / "d.pt")
        (nan,) = inspect_checkpoint(tmp_path / "d.pt").of_kind("non-finite")
        assert "1 NaN" in nan.message, dtype


# ----------------------------------------------------------------------------------------------------------------
# Other formats: legacy torch.save, safetensors, and files that are no checkpoint at all


def test_legacy_format(tmp_path):
    model = zoo.build("gpt2")
    sd = model.state_dict()
    sd["transformer.wpe.weight"] = sd["transformer.wpe.weight"].clone()
    sd["transformer.wpe.weight"][3, 3] = float("nan")
    torch.save(sd, tmp_path / "legacy.pt", _use_new_zipfile_serialization=False)
    report = inspect_checkpoint(tmp_path / "legacy.pt", model)
    assert report.format == "legacy" and "mmap" in report.of_kind("format")[0].message
    assert [f.path for f in report.of_kind("non-finite")] == ["transformer.wpe.weight"]
    # the file's tie and the model's are one tie: one finding, the model's, says it
    assert "tied keys" not in kinds(report) and "split tie" in kinds(report)
    assert "(one storage in the file)" in report.of_kind("split tie")[0].message
    data = (tmp_path / "legacy.pt").read_bytes()
    report = inspect_checkpoint(write(tmp_path / "cut.pt", data[: len(data) - 50]))
    assert "truncated" in kinds(report, "error")


def test_safetensors_headers(tmp_path):
    f32 = struct.pack("<4f", 1, 2, 3, float("nan"))
    ok = {
        "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
        "b": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]},
    }
    report = inspect_checkpoint(safetensors_file(tmp_path / "ok.safetensors", ok, f32))
    assert report.format == "safetensors" and [f.path for f in report.of_kind("non-finite")] == ["b"]
    assert not kinds(report, "error") - {"non-finite"}
    cases = {
        "tie": ({"a": ok["a"], "b": {**ok["b"], "data_offsets": [0, 8]}}, f32[:8], "safetensors tie"),
        "overlap": ({"a": {**ok["a"], "shape": [3], "data_offsets": [0, 12]}, "b": ok["b"]}, f32, "safetensors header"),
        "hole": ({"a": ok["a"], "b": {**ok["b"], "data_offsets": [12, 20]}}, f32 + f32[:4], "safetensors header"),
        "size": ({"a": {**ok["a"], "shape": [3]}, "b": ok["b"]}, f32, "safetensors header"),
        "dtype": ({"a": {**ok["a"], "dtype": "F33"}, "b": ok["b"]}, f32, "safetensors header"),
        "truncated": (ok, f32[:12], "truncated"),
        "trailing": (ok, f32 + b"\0" * 8, "safetensors header"),
    }  # fmt: skip
    for case, (header, data, kind) in cases.items():
        report = inspect_checkpoint(safetensors_file(tmp_path / f"{case}.safetensors", header, data))
        assert kind in kinds(report, "error"), f"{case}:\n{report}"
    raw = b'{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}'
    report = inspect_checkpoint(write(tmp_path / "dup.safetensors", struct.pack("<Q", len(raw)) + raw + f32[:8]))
    assert "safetensors header" in kinds(report, "error")
    for case, data in {
        "json": struct.pack("<Q", 10) + b"{not json}",
        "huge": struct.pack("<Q", 2**40) + b"{}",
        "short": struct.pack("<Q", 200) + b'{"a":',
    }.items():
        report = inspect_checkpoint(write(tmp_path / f"{case}.safetensors", data))
        assert kinds(report, "error"), case


def test_safetensors_entry_refused_for_its_dtype_or_shape_still_owns_its_bytes(
    tmp_path,
):
    f32 = struct.pack("<4f", 1, 2, 3, 4)
    good = {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}
    for case, bad in {
        "dtype": {"dtype": "X9", "shape": [2], "data_offsets": [0, 8]},
        "shape": {"dtype": "F32", "shape": [-1, 2], "data_offsets": [0, 8]},
        "size": {"dtype": "F32", "shape": [2**40, 2**40], "data_offsets": [0, 8]},
    }.items():
        for header in (
            {"a": bad, "b": good},
            {
                "a": {**bad, "data_offsets": [8, 16]},
                "b": {**good, "data_offsets": [0, 8]},
            },
        ):
            report = inspect_checkpoint(safetensors_file(tmp_path / f"{case}.safetensors", header, f32))
            errors = [f for f in report.findings if f.severity == "error"]
            # one error, on the entry itself: no hole before the next, no "bytes the header does not describe"
            assert [f.path for f in errors] == ["a"], f"{case}:\n{report}"


def test_not_checkpoints(tmp_path):
    cases = {
        "empty.pt": (b"", "empty"),
        "zeros.pt": (bytes(4096), "zero bytes"),
        "page.pt": (
            b"<!DOCTYPE html><html><head><title>Sign in</title></head></html>",
            "HTML",
        ),
        "lfs.bin": (
            b"version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n",
            "LFS",
        ),
        "gz.pt": (b"\x1f\x8b\x08\x00" + bytes(40), "gzip"),
        "config.pt": (b'{"hidden_size": 768}', "JSON"),
        "notes.pt": (b"epoch 3 loss 0.1\n", "text"),
        "arrays.npz": (b"", "npz"),
    }
    import numpy as np

    np.savez(tmp_path / "arrays.npz", a=np.zeros(3))
    for name, (data, word) in cases.items():
        path = tmp_path / name if name == "arrays.npz" else write(tmp_path / name, data)
        report = inspect_checkpoint(path)
        (finding,) = report.findings
        assert finding.kind == "not a checkpoint" and finding.severity == "error", name
        assert word.lower() in finding.message.lower(), f"{name}: {finding.message}"
    (tmp_path / "dcp").mkdir()
    (tmp_path / "dcp" / ".metadata").write_bytes(b"")
    assert "distributed.checkpoint" in inspect_checkpoint(tmp_path / "dcp").findings[0].message
    assert "cannot be opened" in inspect_checkpoint(tmp_path / "nowhere.pt").findings[0].message
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.jit is deprecated, and still what wrote many files
        torch.jit.save(torch.jit.script(nn.Linear(2, 2)), tmp_path / "scripted.pt")
    report = inspect_checkpoint(tmp_path / "scripted.pt")
    assert report.format == "torchscript" and "weights_only" in kinds(report, "error")


def test_storages_saved_on_an_accelerator(tmp_path):
    torch.save({"w": torch.ones(3)}, tmp_path / "cpu.pt")
    with (
        zipfile.ZipFile(tmp_path / "cpu.pt") as z,
        zipfile.ZipFile(tmp_path / "cuda.pt", "w") as out,
    ):
        for n in z.namelist():
            data = z.read(n)
            if n.endswith("data.pkl"):  # the location a storage was saved from, as a GPU run writes it
                data = data.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
            out.writestr(n, data)
    (device,) = inspect_checkpoint(tmp_path / "cuda.pt").of_kind("device")
    assert "map_location='cpu'" in device.message
    assert device.severity == ("note" if torch.cuda.is_available() else "warning")


def test_lightning_checkpoint(tmp_path):
    model = zoo.build("resnet")
    torch.save(
        {
            "epoch": 4,
            "global_step": 800,
            "pytorch-lightning_version": "2.4.0",
            "state_dict": {"model." + k: v for k, v in model.state_dict().items()},
            "optimizer_states": [{"state": {}, "param_groups": []}],
            "lr_schedulers": [],
        },
        tmp_path / "last.ckpt",
    )
    report = inspect_checkpoint(tmp_path / "last.ckpt")
    assert "Lightning" in report.of_kind("nested checkpoint")[0].message
    assert 'consume_prefix_in_state_dict_if_present(sd, "model.")' in report.of_kind("prefix")[0].message
    against = inspect_checkpoint(tmp_path / "last.ckpt", model)
    assert against.prefix == "model." and not kinds(against, "error"), text(against)


def test_meta_built_model_and_assign(tmp_path):
    model = zoo.build("llama")
    torch.save(model.state_dict(), tmp_path / "llama.pt")
    with torch.device("meta"):
        on_meta = type(model)(model.config) if hasattr(model, "config") else None
    if on_meta is None:
        pytest.skip("the zoo's llama keeps no config to rebuild it on meta")
    report = inspect_checkpoint(tmp_path / "llama.pt", on_meta)
    buffers = report.of_kind("non-persistent buffer")
    assert buffers and all(f.severity == "error" and "meta" in f.message for f in buffers)


# ----------------------------------------------------------------------------------------------------------------
# A 1 GiB file: seconds and bounded memory


CRC_OF_ZEROS_WITH_NAN = 0xB155E829  # zlib.crc32 of 2**30 zero bytes with float32 NaN at element NAN_AT
NAN_AT = 12345 * 4096 + 7


def peak_rss() -> int | None:
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM"))
    except (OSError, StopIteration):
        return None


def reset_peak_rss() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def measured(path, **kwargs):
    resettable = reset_peak_rss()
    before = peak_rss()
    tracemalloc.start()
    start, cpu = time.perf_counter(), time.process_time()
    report = inspect_checkpoint(path, **kwargs)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    python_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss = peak_rss() - before if resettable and before is not None else None
    # CPU seconds (all threads) bound the work whatever else shares the machine; wall seconds are printed
    return report, cpu, wall, python_peak, rss


def test_one_gib_checkpoint(tmp_path):
    """torch.save under skip_data writes a real 1 GiB archive whose storage is a hole (sparse, no disk): a NaN is
    written into it and the CRC-32 of the result into the directory, so the report reads and checks every byte."""
    path = tmp_path / "big.pt"
    with torch.serialization.skip_data():
        torch.save({"w": torch.empty(2**28), "b": torch.zeros(4)}, path)
    assert path.stat().st_size > 2**30 and path.stat().st_blocks * 512 < 2**20
    offset, size = records(path)["data/0"]
    assert size == 2**30
    data_end = offset + size
    with open(path, "r+b") as f:
        f.seek(offset + NAN_AT * 4)
        f.write(struct.pack("<f", float("nan")))
        f.seek(data_end + 4)  # the data descriptor's CRC
        f.write(struct.pack("<L", CRC_OF_ZEROS_WITH_NAN))
        tail_at = max(0, path.stat().st_size - 65536)
        f.seek(tail_at)
        tail = bytearray(f.read())
    eocd = tail.rfind(b"PK\x05\x06")
    cd_size, cd_offset = struct.unpack_from("<QQ", tail, eocd - 20 - 56 + 40)
    pos = cd_offset - tail_at
    while pos < cd_offset - tail_at + cd_size:
        n, e, c = struct.unpack_from("<3H", tail, pos + 28)
        if tail[pos + 46 : pos + 46 + n].endswith(b"data/0"):
            struct.pack_into("<L", tail, pos + 16, CRC_OF_ZEROS_WITH_NAN)
        pos += 46 + n + e + c
    with open(path, "r+b") as f:
        f.seek(tail_at)
        f.write(tail)
    report, seconds, wall, python_peak, rss = measured(path)
    print(
        f"\n1 GiB zip: {seconds:.2f} s CPU, {wall:.2f} s wall, Python peak {python_peak / 2**20:.1f} MiB, "
        f"RSS peak +{(rss or 0) / 2**20:.1f} MiB"
    )
    assert report.scanned_bytes >= 2**30
    assert "bad crc" not in kinds(report) and next(r for r in report.records if r["name"] == "data/0")["crc"] is True
    (nan,) = report.of_kind("non-finite")
    assert nan.path == "w" and "1 NaN" in nan.message
    assert seconds < 10
    assert python_peak < 64 * 2**20
    if rss is not None:
        assert rss < 256 * 2**20
    # a budget: past it, the report says what it did not read, and answers at once
    report, seconds, _, _, _ = measured(path, scan_bytes=2**20)
    assert "not scanned" in kinds(report) and seconds < 2
    path.unlink()


def test_one_gib_safetensors_is_bounded(tmp_path):
    """A sparse 4 GiB safetensors file: the header and offsets are checked at once, values up to the budget."""
    path = tmp_path / "big.safetensors"
    header = {"w": {"dtype": "BF16", "shape": [2**31], "data_offsets": [0, 2**32]}}
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)) + raw)
        f.truncate(8 + len(raw) + 2**32)
    report, seconds, _, python_peak, _ = measured(path, scan_bytes=2**26)
    assert report.format == "safetensors" and not kinds(report, "error") and "not scanned" in kinds(report)
    assert seconds < 3 and python_peak < 64 * 2**20
    path.unlink()


def test_a_torch_export_archive_is_named_with_its_loader(tmp_path):
    program = torch.export.export(nn.Linear(2, 2), (torch.randn(1, 2),))
    torch.export.save(program, tmp_path / "model.pt2")
    with pytest.raises(RuntimeError):
        torch.load(tmp_path / "model.pt2", weights_only=True)
    report = inspect_checkpoint(tmp_path / "model.pt2")
    (error,) = report.of_kind("not a checkpoint")
    assert "a torch.export archive" in error.message and "torch.export.load(path)" in error.message, report
    assert "not written by torch.save" not in error.message
    assert set(torch.export.load(tmp_path / "model.pt2").state_dict) == {"weight", "bias"}  # what it advises
