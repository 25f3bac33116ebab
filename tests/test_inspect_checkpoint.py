"""inspect_checkpoint on the zoo: every model saved, then damaged in every category the report names.

Each zoo model is saved with torch.save; the clean file must give no error and describe every key of the
state dict as torch.load(weights_only=True, map_location="meta") reads it. Then the file is damaged the way a
disk (truncation, a bit flip, a zeroed block), a network (a partial download, an HTML page saved in its place),
an editor (re-zipped, renamed) and an attacker (a pickle that calls os.system, a zip bomb, overlapping entries)
damage files, and re-saved the way training code gets keys wrong (prefixes, nesting, shapes, dtypes, ties);
the report must name each. Files that only look damaged, the other formats and a 1 GiB file:
tests/test_inspect_checkpoint_formats.py, which imports the helpers defined here.
"""

from __future__ import annotations

import copy
import io
import json
import os
import pickle
import random
import shutil
import struct
import warnings
import zipfile
from pathlib import Path

import pytest
import torch
from torch import nn

from inside_nn import zoo
from inside_nn.inspect_checkpoint import SECTIONS, CheckpointReport, inspect_checkpoint
from inside_nn.inspect_module import BOOK, SEVERITIES, Finding, Report

NAMES = list(zoo.MODELS)
# Findings above "note" that a clean file of a zoo model rightly carries (without a model to compare with), by trait.
EXPECTED = {
    "lazy-uninitialized": {
        "weights_only",
        "lazy",
    },  # saved before the dry run: UninitializedParameter is refused
    "meta": {"tensors"},  # tensors saved from the meta device
    "wrapper": {"prefix"},  # DistributedDataParallel's module., torch.compile's _orig_mod.
}


def expected(name: str) -> set[str]:
    return set().union(*(EXPECTED.get(trait, set()) for trait in zoo.MODELS[name].traits))


def kinds(report, severity=None) -> set[str]:
    return {f.kind for f in report.findings if severity is None or f.severity == severity}


def serious(report) -> set[str]:
    return {f.kind for f in report.findings if f.severity != "note"}


def text(report) -> str:
    return str(report)


@pytest.fixture(scope="module")
def models():
    built = {name: zoo.build(name) for name in NAMES}
    yield built
    zoo.teardown()


@pytest.fixture(scope="module")
def saved(models, tmp_path_factory):
    """name -> path of the model's state_dict saved with torch.save."""
    folder = tmp_path_factory.mktemp("zoo")
    paths = {}
    for name, model in models.items():
        paths[name] = folder / f"{name}.pt"
        torch.save(model.state_dict(), paths[name])
    return paths


def floating_keys(sd) -> list[str]:
    return [
        k
        for k, v in sd.items()
        if isinstance(v, torch.Tensor)
        and v.is_floating_point()
        and v.layout == torch.strided
        and v.numel()
        and v.device.type != "meta"
    ]


# ----------------------------------------------------------------------------------------------------------------
# Archive surgery: torch's own records (offsets from PyTorchFileReader) and the zip directory, rebuilt by hand.


def records(path) -> dict[str, tuple[int, int]]:
    with open(path, "rb") as f:
        reader = torch._C.PyTorchFileReader(f)
        return {n: (reader.get_record_offset(n), reader.get_record_size(n)) for n in reader.get_all_records()}


def largest_storage(path) -> tuple[str, int, int]:
    name, (offset, size) = max(
        ((n, r) for n, r in records(path).items() if n.startswith("data/")),
        key=lambda item: item[1][1],
    )
    return name, offset, size


def directory(data: bytes) -> tuple[list[bytearray], int]:
    """The central directory entries of a torch.save archive (zip64 end record, locator, end record)."""
    eocd = data.rfind(b"PK\x05\x06")
    cd_size, cd_offset = struct.unpack_from("<QQ", data, eocd - 20 - 56 + 40)
    entries, pos = [], cd_offset
    while pos < cd_offset + cd_size:
        n, e, c = struct.unpack_from("<3H", data, pos + 28)
        entries.append(bytearray(data[pos : pos + 46 + n + e + c]))
        pos += 46 + n + e + c
    return entries, cd_offset


def with_directory(data: bytes, entries: list, cd_offset: int) -> bytes:
    cd = b"".join(entries)
    n = len(entries)
    end64 = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, n, n, len(cd), cd_offset)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, cd_offset + len(cd), 1)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, n, n, len(cd), cd_offset, 0)
    return data[:cd_offset] + cd + end64 + locator + end


def entry_name(entry: bytes) -> str:
    n = struct.unpack_from("<H", entry, 28)[0]
    return entry[46 : 46 + n].decode()


def rezip(src, dst, compression, extra=()):
    with (
        zipfile.ZipFile(src) as z,
        zipfile.ZipFile(dst, "w", compression) as out,
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")  # zipfile warns about a duplicate name: the point of one test
        for info in z.infolist():
            out.writestr(info.filename, z.read(info.filename))
        for name, payload in extra:
            out.writestr(name, payload)


def write(path, data: bytes):
    Path(path).write_bytes(data)
    return path


def safetensors_file(path, header: dict, data: bytes, pad: bool = True) -> Path:
    raw = json.dumps(header).encode()
    if pad:
        raw += b" " * (-len(raw) % 8)
    return write(path, struct.pack("<Q", len(raw)) + raw + data)


# ----------------------------------------------------------------------------------------------------------------
# The API


def test_report_api(saved):
    report = inspect_checkpoint(saved["gpt2"])
    assert isinstance(report, CheckpointReport) and isinstance(report, Report)
    assert report.format == "zip"
    assert " ".join(str(report).split()).startswith(f"inspect_checkpoint({saved['gpt2']}): 0 errors")
    assert all(isinstance(f, Finding) for f in report.findings)
    order = [SEVERITIES.index(f.severity) for f in report.findings]
    assert order == sorted(order)
    for f in report.findings:
        assert f.link == BOOK + SECTIONS[f.kind]
        assert set(f.as_dict()) == {"severity", "kind", "path", "message", "link"}
    assert report.of_kind("tied keys")[0].path == "transformer.wte.weight"
    row = next(t for t in report.tensors if t["key"] == "lm_head.weight")
    assert row["dtype"] == "float32" and row["shape"] == (64, 16) and row["bytes"] == 64 * 16 * 4
    assert row["tied_with"] == ["transformer.wte.weight"] and row["storage"].startswith("data/")
    assert "lm_head.weight" in report.table()
    assert {r["name"] for r in report.records} >= {
        "data.pkl",
        "byteorder",
        row["storage"],
    }
    assert all(r["crc"] is True for r in report.records if r["bytes"])


def test_sections_point_into_the_book():
    root = Path(__file__).resolve().parent.parent
    for kind, target in SECTIONS.items():
        page, _, anchor = target.partition("#")
        notebook = root / page.replace(".html", ".ipynb")
        assert notebook.exists() and anchor, kind


# ----------------------------------------------------------------------------------------------------------------
# Every zoo model, clean


@pytest.mark.parametrize("name", NAMES)
def test_zoo_clean(name, models, saved):
    model, path = models[name], saved[name]
    report = inspect_checkpoint(path)
    # ±inf alone is a warning: observers start with min_val=+inf, max_val=-inf (the qat entry)
    assert serious(report) - {"non-finite"} <= expected(name), text(report)
    assert all("NaN" not in f.message for f in report.of_kind("non-finite")), text(report)
    sd = model.state_dict()
    described = {t["key"]: t for t in report.tensors}
    assert set(described) == {k for k, v in sd.items() if isinstance(v, torch.Tensor)}, text(report)
    for key, value in sd.items():
        if isinstance(value, torch.Tensor) and not isinstance(value, nn.parameter.UninitializedTensorMixin):
            assert described[key]["shape"] == tuple(value.shape), key
            assert described[key]["dtype"] == str(value.dtype).removeprefix("torch."), key
    if name != "lazy-cnn":  # the reader that loads agrees, on meta
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loaded = torch.load(path, weights_only=True, map_location="meta")
        for key, value in loaded.items():
            if isinstance(value, torch.Tensor) and value.layout == torch.strided:
                assert described[key]["shape"] == tuple(value.shape), key
    # ties the file stores once are ties of the model
    for row in report.tensors:
        for other in row["tied_with"]:
            assert sd[row["key"]].data_ptr() == sd[other].data_ptr()
    against = inspect_checkpoint(path, model)
    assert not kinds(against, "error") - expected(name), text(against)
    traits = zoo.MODELS[name].traits
    if {"tied", "shared-module"} & traits:
        assert "split tie" in kinds(against), text(against)
        # the model's own clean file: the default load keeps the tie, so only a note
        assert {f.severity for f in against.of_kind("split tie")} == {"note"}
    if "non-persistent-buffer" in traits:
        assert "non-persistent buffer" in kinds(against)
    assert "prefix" not in kinds(against)  # a wrapped model and its own file match


# ----------------------------------------------------------------------------------------------------------------
# Every zoo model, damaged: the disk, the network, the editor


@pytest.mark.parametrize("name", NAMES)
def test_zoo_damaged(name, saved, tmp_path):
    path = saved[name]
    data = path.read_bytes()
    record, offset, size = largest_storage(path)
    cases = {  # file -> a kind the report must name
        "cut": (write(tmp_path / "cut.pt", data[: len(data) * 3 // 5]), "truncated"),
        "cut-end": (write(tmp_path / "cut-end.pt", data[:-7]), "truncated"),
        "prepended": (
            write(tmp_path / "pre.pt", b"\0junk" * 13 + data),
            "archive layout",
        ),
        "appended": (
            write(tmp_path / "app.pt", data + b"<html>" * 3),
            "archive layout",
        ),
    }
    flipped = bytearray(data)
    flipped[offset + size // 2] ^= 0x20
    cases["bit flip"] = (write(tmp_path / "flip.pt", bytes(flipped)), "bad crc")
    pkl_offset, pkl_size = records(path)["data.pkl"]
    flipped = bytearray(data)
    flipped[pkl_offset + pkl_size - 3] ^= 0x01
    cases["pickle flip"] = (write(tmp_path / "pflip.pt", bytes(flipped)), "bad crc")
    if any(data[offset : offset + min(size, 4096)]):
        zeroed = bytearray(data)
        zeroed[offset : offset + min(size, 4096)] = bytes(min(size, 4096))
        cases["zeroed block"] = (write(tmp_path / "zero.pt", bytes(zeroed)), "bad crc")
    rezip(path, tmp_path / "deflated.pt", zipfile.ZIP_DEFLATED)
    cases["re-zipped"] = (tmp_path / "deflated.pt", "compressed record")
    archive = zipfile.ZipFile(path).namelist()[0].partition("/")[0]
    rezip(
        path,
        tmp_path / "dup.pt",
        zipfile.ZIP_STORED,
        [(f"{archive}/{record}", b"\x7f" * size)],
    )
    cases["duplicate"] = (tmp_path / "dup.pt", "duplicate record")
    shutil.copy(path, tmp_path / "model.safetensors")
    cases["renamed"] = (tmp_path / "model.safetensors", "file name")
    if name == "gpt2":  # what the report says of torch.load: it never checks a CRC, and loads the flipped bit
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loaded = torch.load(cases["bit flip"][0], weights_only=True)
        assert any(not torch.equal(v, saved_v) for v, saved_v in zip(loaded.values(), torch.load(path).values()))
    for case, (damaged, kind) in cases.items():
        report = inspect_checkpoint(damaged)
        assert kind in kinds(report), f"{name}, {case}:\n{report}"
        if case not in ("appended", "renamed", "re-zipped", "duplicate"):
            assert kinds(report, "error"), f"{name}, {case}:\n{report}"


# ----------------------------------------------------------------------------------------------------------------
# Every zoo model, re-saved wrong: keys, shapes, dtypes, values, nesting


@pytest.mark.parametrize(
    "name",
    [n for n in NAMES if not {"lazy-uninitialized", "wrapper"} & zoo.MODELS[n].traits],
)
def test_zoo_keys(name, models, tmp_path):
    model = models[name]
    sd = model.state_dict()
    floats = floating_keys(sd)
    first = floats[0] if floats else None
    # module. prefix: named with the exact call that strips it
    torch.save({"module." + k: v for k, v in sd.items()}, tmp_path / "ddp.pt")
    for report in (
        inspect_checkpoint(tmp_path / "ddp.pt"),
        inspect_checkpoint(tmp_path / "ddp.pt", model),
    ):
        (prefix,) = report.of_kind("prefix")
        assert 'consume_prefix_in_state_dict_if_present(sd, "module.")' in prefix.message
        assert report.prefix == "module."
    assert not kinds(inspect_checkpoint(tmp_path / "ddp.pt", model), "error")
    # _orig_mod. and both
    torch.save({"module._orig_mod." + k: v for k, v in sd.items()}, tmp_path / "both.pt")
    assert inspect_checkpoint(tmp_path / "both.pt", model).prefix == "module._orig_mod."
    # a training checkpoint around the state dict
    torch.save(
        {"model": sd, "optimizer": {"state": {}, "param_groups": []}, "epoch": 3},
        tmp_path / "ckpt.pt",
    )
    report = inspect_checkpoint(tmp_path / "ckpt.pt", model)
    assert report.state_dict_path == '["model"]' and "nested checkpoint" in kinds(report)
    assert not kinds(report, "error"), text(report)
    # missing, unexpected: what strict=False would skip
    keys = list(sd)
    partial = {k: v for k, v in sd.items() if k != keys[-1]}
    partial["head_v2.weight"] = torch.zeros(2)
    torch.save(partial, tmp_path / "keys.pt")
    report = inspect_checkpoint(tmp_path / "keys.pt", model)
    assert {"missing keys", "unexpected keys", "strict=False"} <= kinds(report), text(report)
    assert keys[-1] in report.of_kind("missing keys")[0].message
    assert report.of_kind("unexpected keys")[0].path == "head_v2.weight"
    if first is None:
        return
    # a shape off by one
    wrong = dict(sd)
    wrong[first] = torch.zeros(sd[first].shape[0] + 1, *sd[first].shape[1:])
    torch.save(wrong, tmp_path / "shape.pt")
    report = inspect_checkpoint(tmp_path / "shape.pt", model)
    try:  # the truth is the load: a model's own _load_from_state_dict may take another shape (qat's scale)
        copy.deepcopy(model).load_state_dict(wrong)
        assert first in {f.path for f in report.of_kind("load hook")} and not kinds(report, "error"), text(report)
    except RuntimeError:
        assert first in {f.path for f in report.of_kind("shape mismatch")}, text(report)
    # a dtype the model does not have
    torch.save({k: v.half() if k in floats else v for k, v in sd.items()}, tmp_path / "half.pt")
    report = inspect_checkpoint(tmp_path / "half.pt", model)
    if any(sd[k].dtype != torch.float16 for k in floats):
        assert "dtype mismatch" in kinds(report), text(report)
    # NaN and inf in a tensor's values
    poisoned = dict(sd)
    poisoned[first] = sd[first].clone()
    poisoned[first].view(-1)[-1] = float("nan")
    torch.save(poisoned, tmp_path / "nan.pt")
    report = inspect_checkpoint(tmp_path / "nan.pt")
    (nan,) = [f for f in report.of_kind("non-finite") if "NaN" in f.message]
    assert nan.path == first and nan.severity == "error"


@pytest.mark.parametrize("name", [n for n in NAMES if {"tied", "shared-module"} & zoo.MODELS[n].traits])
def test_zoo_safetensors_tie(name, models, tmp_path):
    st = pytest.importorskip("safetensors.torch")
    model = models[name]
    path = tmp_path / "model.safetensors"
    st.save_model(model, path)
    alone = inspect_checkpoint(path)
    assert alone.format == "safetensors" and not kinds(alone, "error")
    assert "safetensors tie" in kinds(alone)  # from the metadata save_model writes
    against = inspect_checkpoint(path, model)
    (tie,) = against.of_kind("safetensors tie")
    assert tie.severity == "warning" and "load_model" in tie.message
    assert "missing keys" not in kinds(against)
    # plain save_file refuses shared tensors; a tie written into the header by hand is refused by safetensors too
    with pytest.raises(RuntimeError):
        st.save_file(model.state_dict(), tmp_path / "refused.safetensors")


# ----------------------------------------------------------------------------------------------------------------
# The attacker


class Payload:
    def __init__(self, target):
        self.target = target

    def __reduce__(self):
        return (os.system, (f"touch {self.target}",))


def test_hostile_pickles_are_named_and_never_run(tmp_path):
    sentinel = tmp_path / "ran"
    # inside a torch.save archive, as data.pkl
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("evil/data.pkl", pickle.dumps({"w": Payload(sentinel)}, protocol=2))
        z.writestr("evil/version", "3\n")
        z.writestr("evil/byteorder", "little")
    for path in (
        write(tmp_path / "evil.pt", buffer.getvalue()),
        write(tmp_path / "evil.pkl", pickle.dumps({"w": Payload(sentinel)})),
        write(tmp_path / "text.pkl", pickle.dumps({"w": Payload(sentinel)}, protocol=0)),
        # a plain pickle far longer than a magic number (pickle.dump of a real state dict, then the payload)
        write(tmp_path / "large.pkl", pickle.dumps({"pad": b"x" * 100_000, "w": Payload(sentinel)})),
        write(tmp_path / "legacy.pt", b"".join(pickle.dumps(x, protocol=2) for x in (0x1950A86A20F9469CFC6C, 1001, {}))
              + pickle.dumps({"w": Payload(sentinel)}, protocol=2) + pickle.dumps([], protocol=2)),
    ):  # fmt: skip
        report = inspect_checkpoint(path)
        (unsafe,) = report.of_kind("unsafe pickle")
        assert unsafe.severity == "error" and "system" in unsafe.message and "touch" in unsafe.message
        assert "refuses" in unsafe.message
    assert not sentinel.exists()
    # a class outside the allowlist, not a code-running callable: refused by weights_only, not "unsafe"
    import argparse

    torch.save(
        {"state_dict": {"w": torch.ones(2)}, "hparams": argparse.Namespace(lr=0.1)},
        tmp_path / "ns.pt",
    )
    report = inspect_checkpoint(tmp_path / "ns.pt")
    assert "weights_only" in kinds(report, "error") and "unsafe pickle" not in kinds(report)
    assert "argparse.Namespace" in report.of_kind("weights_only")[0].message
    assert report.state_dict_path == '["state_dict"]'


def test_whole_pickled_module(tmp_path):
    torch.save(nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)), tmp_path / "whole.pt")
    report = inspect_checkpoint(tmp_path / "whole.pt")
    assert {"pickled module", "weights_only"} <= kinds(report, "error")
    assert {t["key"] for t in report.tensors} == set(nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3)).state_dict())


def test_zip_bomb_overlap_and_names(saved, tmp_path):
    data = saved["resnet"].read_bytes()
    entries, cd_offset = directory(data)
    by_name = {entry_name(e).partition("/")[2]: e for e in entries}
    # a storage that declares 3.75 GiB inflated from a few bytes
    bomb = [bytearray(e) for e in entries]
    target = next(e for e in bomb if entry_name(e).endswith("data/0"))
    struct.pack_into("<H", target, 10, 8)
    struct.pack_into("<L", target, 24, 0xF0000000)
    report = inspect_checkpoint(write(tmp_path / "bomb.pt", with_directory(data, bomb, cd_offset)))
    assert any("zip bomb" in f.message for f in report.of_kind("compressed record")), text(report)
    # two directory entries over the same bytes
    twin = bytearray(by_name["data/0"])
    name = entry_name(twin)
    twin[46 : 46 + len(name)] = (name[:-1] + "Z").encode()
    report = inspect_checkpoint(write(tmp_path / "overlap.pt", with_directory(data, [*entries, twin], cd_offset)))
    assert any("overlap" in f.message for f in report.of_kind("archive layout")), text(report)
    # the directory unchanged: nothing to report
    assert not serious(inspect_checkpoint(write(tmp_path / "same.pt", with_directory(data, entries, cd_offset))))
    # a local header that names another record than the directory does
    header = struct.unpack_from("<L", by_name["data/1"], 42)[0]
    renamed = bytearray(data)
    n = struct.unpack_from("<H", renamed, header + 26)[0]
    renamed[header + 30 + n - 1] = ord("Y")
    report = inspect_checkpoint(write(tmp_path / "names.pt", bytes(renamed)))
    assert any("local header" in f.message for f in report.of_kind("archive layout")), text(report)
    # a storage the pickle points at, missing from the archive
    with (
        zipfile.ZipFile(saved["resnet"]) as z,
        zipfile.ZipFile(tmp_path / "missing.pt", "w") as out,
    ):
        for info in z.infolist():
            if not info.filename.endswith("/data/3"):
                out.writestr(info.filename, z.read(info.filename))
    assert "missing record" in kinds(inspect_checkpoint(tmp_path / "missing.pt"), "error")


def test_declared_sizes_and_views(tmp_path):
    """Storage sizes the pickle declares against the bytes the record holds; views out of their storage."""
    torch.save({"w": torch.arange(8.0)}, tmp_path / "w.pt")
    with zipfile.ZipFile(tmp_path / "w.pt") as z:
        names = z.namelist()
        pkl = z.read(next(n for n in names if n.endswith("data.pkl")))
    for old, new, kind in (
        (
            b"K\x08",
            b"J\x00\x00\x00\x10",
            "record size",
        ),  # storage numel 8 -> 2**28 (BININT1 -> BININT)
    ):
        assert old in pkl
        with (
            zipfile.ZipFile(tmp_path / "w.pt") as z,
            zipfile.ZipFile(tmp_path / "big.pt", "w") as out,
        ):
            for n in names:
                out.writestr(n, pkl.replace(old, new, 1) if n.endswith("data.pkl") else z.read(n))
        assert kind in kinds(inspect_checkpoint(tmp_path / "big.pt"), "error")
    # a view past the end of its storage
    base = torch.arange(8.0)
    torch.save({"v": base[2:6]}, tmp_path / "v.pt")
    with zipfile.ZipFile(tmp_path / "v.pt") as z:
        pkl = z.read(next(n for n in z.namelist() if n.endswith("data.pkl")))
        assert b"K\x02K\x04" in pkl  # storage offset 2, size 4
        with zipfile.ZipFile(tmp_path / "out.pt", "w") as out:
            for n in z.namelist():
                out.writestr(
                    n,
                    pkl.replace(b"K\x02K\x04", b"K\x06K\x04", 1) if n.endswith("data.pkl") else z.read(n),
                )
    report = inspect_checkpoint(tmp_path / "out.pt")
    assert any("beyond" in f.message or "views elements" in f.message for f in report.of_kind("record size"))


# ----------------------------------------------------------------------------------------------------------------
# Never raises: random damage


def test_random_damage_never_raises(saved, tmp_path):
    st = pytest.importorskip("safetensors.torch")
    sources = [saved["gpt2"], saved["bert"]]
    st.save_model(zoo.build("gpt2"), tmp_path / "gpt2.safetensors")
    torch.save(
        zoo.build("gpt2").state_dict(),
        tmp_path / "legacy.pt",
        _use_new_zipfile_serialization=False,
    )
    sources += [tmp_path / "gpt2.safetensors", tmp_path / "legacy.pt"]
    rng = random.Random(0)
    for i in range(80):
        source = rng.choice(sources)
        data = bytearray(source.read_bytes())
        at = rng.randrange(len(data))
        action = i % 4
        if action == 0:
            for _ in range(rng.choice([1, 8])):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        elif action == 1:
            data[at : at + 512] = bytes(len(data[at : at + 512]))
        elif action == 2:
            data = data[:at]
        else:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.choice([1, 9, 64])))
        path = write(tmp_path / f"fuzz{source.suffix}", bytes(data))
        report = inspect_checkpoint(path)
        assert not any("broke the inspection" in f.message for f in report.findings), text(report)


# ----------------------------------------------------------------------------------------------------------------
# Malformed inputs, one per branch of the readers


def zip_with(path, records: dict, folder: str = "archive") -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in records.items():
            z.writestr(f"{folder}/{name}" if folder else name, data)
    return Path(path)


def test_malformed_pickles(tmp_path):
    pickles = {
        "two values": b"\x80\x02K\x01K\x02.",
        "memo": b"\x80\x02h\x05.",
        "append": b"\x80\x02K\x01a.",
        "mark": b"\x80\x02K\x01e.",
        "opcode": b"\x80\x02\xff.",
        "no stop": b"\x80\x02}q\x00",
    }
    for case, data in pickles.items():
        path = zip_with(
            tmp_path / "p.pt",
            {"data.pkl": data, "version": "3\n", "byteorder": "little"},
        )
        report = inspect_checkpoint(path)
        assert "not a checkpoint" in kinds(report, "error"), f"{case}:\n{report}"
    path = zip_with(
        tmp_path / "p4.pt",
        {"data.pkl": pickle.dumps({"x": [1, 2]}, protocol=4), "version": "3\n"},
    )
    (refused,) = inspect_checkpoint(path).of_kind("weights_only")
    assert "FRAME" in refused.message and "protocol 2" in refused.message
    path = zip_with(tmp_path / "nopkl.pt", {"weights.bin": b"\0" * 8, "version": "3\n"})
    assert "without data.pkl" in inspect_checkpoint(path).findings[0].message
    # a legacy file whose pickles are sound but whose protocol version is not torch's
    data = b"".join(pickle.dumps(x, protocol=2) for x in (0x1950A86A20F9469CFC6C, 1001, {}, {"w": 1}, []))
    report = inspect_checkpoint(write(tmp_path / "legacy.pt", data))
    assert report.format == "legacy" and "no state dict" in kinds(report)


def test_malformed_archives(saved, tmp_path):
    data = saved["gpt2"].read_bytes()
    entries, cd_offset = directory(data)

    def changed(field_offset: int, fmt: str, value, which="data/0", local=None):
        out = [bytearray(e) for e in entries]
        target = next(e for e in out if entry_name(e).endswith(which))
        struct.pack_into(fmt, target, field_offset, value)
        body = bytearray(with_directory(data, out, cd_offset))
        if local is not None:
            header = struct.unpack_from("<L", target, 42)[0]
            struct.pack_into(local[1], body, header + local[0], value)
        return bytes(body)

    cases = {
        "method 12": (changed(10, "<H", 12, local=(8, "<H")), "compressed record"),
        "encrypted": (changed(8, "<H", 0x809), "archive layout"),
        "sizes": (changed(24, "<L", 64 * 2**20, which="data.pkl"), "archive layout"),
        "comment": (data[:-2] + struct.pack("<H", 100), "archive layout"),
    }  # fmt: skip
    for case, (damaged, kind) in cases.items():
        report = inspect_checkpoint(write(tmp_path / "m.pt", damaged))
        assert kind in kinds(report), f"{case}:\n{report}"
    # a data.pkl that declares more than the report reads (deflated, so that miniz accepts the sizes)
    out = [bytearray(e) for e in entries]
    pkl = next(e for e in out if entry_name(e).endswith("data.pkl"))
    struct.pack_into("<H", pkl, 10, 8)
    struct.pack_into("<L", pkl, 24, 64 * 2**20)
    body = bytearray(with_directory(data, out, cd_offset))
    struct.pack_into("<H", body, struct.unpack_from("<L", pkl, 42)[0] + 8, 8)
    report = inspect_checkpoint(write(tmp_path / "bigpkl.pt", bytes(body)))
    assert "record size" in kinds(report, "warning"), text(report)
    # a deflated record whose stream is damaged
    rezip(saved["gpt2"], tmp_path / "deflated.pt", zipfile.ZIP_DEFLATED)
    deflated = bytearray((tmp_path / "deflated.pt").read_bytes())
    with zipfile.ZipFile(tmp_path / "deflated.pt") as z:
        info = next(i for i in z.infolist() if i.filename.endswith("data/0"))
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    deflated[start : start + 8] = b"\xff" * 8
    report = inspect_checkpoint(write(tmp_path / "badflate.pt", bytes(deflated)))
    assert any("inflates to" in f.message for f in report.of_kind("compressed record")), text(report)


def test_compressed_record_says_what_mmap_does(tmp_path):
    """torch.load(mmap=True) reads a compressed record's bytes for its declared size: it raises where they run
    past the end of the file, and loads wrong values without an error where they fit. The report says which."""

    def mmap_load(path):
        try:
            return torch.load(path, weights_only=True, mmap=True)
        except RuntimeError as error:
            return error

    # one deflated record of 1 MiB of zeros: its declared bytes run past the end of the small file
    torch.save({"w": torch.zeros(2**18)}, tmp_path / "zeros.pt")
    rezip(tmp_path / "zeros.pt", tmp_path / "bomb.pt", zipfile.ZIP_DEFLATED)
    # a small deflated record followed by a large stored one: its declared bytes fit inside the file
    torch.save({"small": torch.arange(64.0), "big": torch.ones(2**16)}, tmp_path / "two.pt")
    with (
        zipfile.ZipFile(tmp_path / "two.pt") as src,
        zipfile.ZipFile(tmp_path / "mixed.pt", "w") as dst,
    ):
        for info in src.infolist():
            deflate = info.filename.endswith("data/0")
            dst.writestr(
                info.filename,
                src.read(info),
                zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED,
            )
    raised = mmap_load(tmp_path / "bomb.pt")
    assert "not resizable" in str(raised)
    message = inspect_checkpoint(tmp_path / "bomb.pt").of_kind("compressed record")
    assert "here it raises" in message[0].message, message
    loaded = mmap_load(tmp_path / "mixed.pt")
    assert not torch.equal(loaded["small"], torch.arange(64.0))  # no error, wrong values
    message = inspect_checkpoint(tmp_path / "mixed.pt").of_kind("compressed record")
    assert "here it loads garbage without an error" in message[0].message, message


def test_malformed_safetensors(tmp_path):
    cases = {
        "short": b"\x05\x00\x00",
        "array": struct.pack("<Q", 8) + b"[1, 2]  ",
        "metadata": struct.pack("<Q", 24) + b'{"__metadata__": [1, 2]}',
        "not utf-8": struct.pack("<Q", 4) + b"{\xff\xfe}",
        "not an object": struct.pack("<Q", 16) + b'{"a": 3}' + b" " * 8,
    }
    for case, data in cases.items():
        report = inspect_checkpoint(write(tmp_path / f"{case}.safetensors", data))
        assert kinds(report, "error"), f"{case}:\n{report}"
    good = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
    for case, spec in {
        "shape": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]},
        "offsets": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]},
    }.items():
        report = inspect_checkpoint(safetensors_file(tmp_path / f"{case}.safetensors", {**good, "a": spec}, bytes(8)))
        assert "safetensors header" in kinds(report, "error"), f"{case}:\n{report}"


def test_against_unusual_models(tmp_path):
    torch.save({"weight": torch.ones(2, 2), "bias": {"not": "a tensor"}}, tmp_path / "odd.pt")
    report = inspect_checkpoint(tmp_path / "odd.pt", nn.Linear(2, 2))
    assert "not a tensor" in report.of_kind("shape mismatch")[0].message or "weights_only" in kinds(report)

    class Broken(nn.Linear):
        def state_dict(self, *args, **kwargs):
            raise RuntimeError("no state here")

    torch.save(nn.Linear(2, 2).state_dict(), tmp_path / "lin.pt")
    report = inspect_checkpoint(tmp_path / "lin.pt", Broken(2, 2))
    assert "no state here" in report.findings[0].message
    report = inspect_checkpoint(tmp_path / "lin.pt", nn.LazyLinear(2))
    assert "lazy" in kinds(report) and not kinds(report, "error")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_special_files_are_named_not_opened(tmp_path):
    os.mkfifo(tmp_path / "pipe.pt")  # os.open on it would block until a writer comes
    for path, what in (
        (tmp_path / "pipe.pt", "named pipe"),
        (os.devnull, "character device"),
    ):
        report = inspect_checkpoint(path)
        (finding,) = report.findings
        assert finding.kind == "not a checkpoint" and what in finding.message
