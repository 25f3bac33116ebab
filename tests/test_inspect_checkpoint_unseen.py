"""inspect_checkpoint and chapter 5.1's recovery loader on legitimate files the book never writes (issue 37):
files torch byte-swaps on load (saved on a big-endian machine), dtypes the report does not decode (packed
float4), tensors that hold tensors (per-channel quantized, nested, DTensor), and the printed allow-list advice,
which is tried before it is printed.

A load that could kill the process runs in a child process, so that a regression kills only the child.
"""

from __future__ import annotations

import argparse
import collections
import copy
import dataclasses
import os
import pathlib
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import torch
from test_inspect_checkpoint import kinds, serious, text
from torch import nn

from inside_nn.checkpoint import judge
from inside_nn.inspect_checkpoint import inspect_checkpoint

# ----------------------------------------------------------------------------------------------------------------
# Files torch byte-swaps, and dtypes the report does not decode (category 5: never crash the reader's process)


def big_endian_copy(src, dst) -> None:
    """What torch.save writes on a big-endian machine (s390x): every record of `src` copied through torch's own
    writer, the byteorder record 'big', each storage's elements byte-swapped (their size taken from the tensors
    torch.load returns)."""
    state = torch.load(src, weights_only=True)
    element_size = {}  # a storage's bytes -> the size of its elements
    for t in state.values():
        raw = torch.empty(0, dtype=torch.uint8).set_(t.untyped_storage()).numpy().tobytes()
        element_size[raw] = t.element_size()
    reader = torch._C.PyTorchFileReader(str(src))
    writer = torch._C.PyTorchFileWriter(str(dst))
    for name in reader.get_all_records():
        if name in ("version", ".data/serialization_id"):  # the writer adds its own
            continue
        data = bytes(reader.get_record(name))
        if name == "byteorder":
            data = b"big"
        elif name.startswith("data/"):
            size = element_size[data]
            data = np.frombuffer(data, dtype=f"<u{size}").byteswap().tobytes() if size > 1 else data
        writer.write_record(name, data, len(data))
    writer.write_end_of_file()


def run_child(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300, check=False
    )


def test_a_big_endian_file_is_described_and_loaded_without_killing_the_process(tmp_path):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 4), nn.BatchNorm1d(4), nn.Linear(4, 2).half())
    sd = model.state_dict()
    torch.save(sd, tmp_path / "little.pt")
    big_endian_copy(tmp_path / "little.pt", tmp_path / "big.pt")
    same = torch.load(tmp_path / "big.pt", weights_only=True)  # torch byte-swaps it back on the CPU
    assert all(torch.equal(same[k], v) for k, v in sd.items())
    # torch.save without a byteorder record, read where the default load endianness is BIG: swapped as well
    torch.save(sd, tmp_path / "unmarked.pt", _disable_byteorder_record=True)
    child = run_child(f"""
        import torch
        from inside_nn.checkpoint import judge
        from inside_nn.inspect_checkpoint import inspect_checkpoint
        report = inspect_checkpoint({str(tmp_path / "big.pt")!r})
        print("errors:", [f.message for f in report.findings if f.severity == "error"])
        print("format:", report.of_kind("format")[0].message)
        state, why = judge({str(tmp_path / "big.pt")!r})
        print("judged:", why, sorted(state))
        torch.serialization.set_default_load_endianness(torch.serialization.LoadEndianness.BIG)
        report = inspect_checkpoint({str(tmp_path / "unmarked.pt")!r})
        print("unmarked errors:", [f.message for f in report.findings if f.severity == "error"])
    """)
    assert child.returncode == 0, f"the child died (signal {-child.returncode}): {child.stderr[-2000:]}"
    out = child.stdout
    assert "errors: []" in out and "judged: None" in out and "unmarked errors: []" in out, out
    assert "big-endian" in out and "map_location='meta'" in out, out


def test_packed_float4_and_mx_scales_are_sized_not_converted(tmp_path):
    # an MXFP4 layer as quantized checkpoints store it: packed 4-bit pairs and e8m0 block scales
    blocks = torch.randint(0, 256, (32, 16), dtype=torch.uint8).view(torch.float4_e2m1fn_x2)
    scales = torch.randint(100, 140, (32, 1), dtype=torch.uint8).view(torch.float8_e8m0fnu)
    sd = {"mlp.experts.down_proj_blocks": blocks, "mlp.experts.down_proj_scales": scales, "bias": torch.zeros(32)}
    torch.save(sd, tmp_path / "mxfp4.pt")
    report = inspect_checkpoint(tmp_path / "mxfp4.pt")
    assert not serious(report), text(report)
    (note,) = report.of_kind("not scanned")
    assert "float4_e2m1fn_x2, 1 byte(s) an element" in note.message and note.path == "mlp.experts.down_proj_blocks"
    state, why = judge(tmp_path / "mxfp4.pt")
    assert why is None and torch.equal(
        state["mlp.experts.down_proj_blocks"].view(torch.uint8), blocks.view(torch.uint8)
    )


# ----------------------------------------------------------------------------------------------------------------
# Tensors that hold tensors (category 3): their storages are loaded with them, not dead bytes


def test_the_storages_of_tensors_inside_tensors_are_not_dead_bytes(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # quantized and nested tensors warn that they are deprecated or prototypes
        write_tensors_inside_tensors(tmp_path)
    # a DTensor, written in a child: importing torch.distributed.tensor allowlists DTensor for the whole process
    child = run_child(f"""
        import torch, warnings
        warnings.simplefilter("ignore")
        dist = torch.distributed
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        from torch.distributed.tensor import DeviceMesh, Shard, distribute_tensor
        sharded = distribute_tensor(torch.randn(8, 4), DeviceMesh("cpu", [0]), [Shard(0)])
        torch.save({{"layer.weight": sharded, "layer.bias": torch.zeros(8)}}, {str(tmp_path / "dtensor.pt")!r})
        dist.destroy_process_group()
    """)
    assert child.returncode == 0, child.stderr[-2000:]
    for name in ("per_channel", "nested", "dtensor"):
        report = inspect_checkpoint(tmp_path / f"{name}.pt")
        assert "unreferenced record" not in kinds(report) and not serious(report) - {"weights_only"}, text(report)
    # without torch.distributed.tensor imported, torch refuses a DTensor: the advice says to import it
    if "torch.distributed.tensor" not in sys.modules:
        assert "import torch.distributed.tensor before torch.load" in text_of(report), text(report)


def write_tensors_inside_tensors(tmp_path) -> None:
    torch.manual_seed(0)
    # per-channel quantized: a quantized Linear's packed weight, its scales and zero points tensors of their own
    qlinear = torch.ao.nn.quantized.Linear(32, 64)
    w = torch.randn(64, 32)
    scales, zero_points = w.abs().amax(1) / 127, torch.zeros(64, dtype=torch.long)
    qlinear.set_weight_bias(torch.quantize_per_channel(w, scales, zero_points, 0, torch.qint8), torch.zeros(64))
    torch.save(qlinear.state_dict(), tmp_path / "per_channel.pt")
    # a nested tensor (its buffer, sizes, strides and offsets are tensors) and a DTensor (its local tensor)
    nested = torch.nested.nested_tensor([torch.randn(3, 5), torch.randn(4, 5)])
    torch.save({"tokens": nested, "w": torch.ones(2)}, tmp_path / "nested.pt")


# ----------------------------------------------------------------------------------------------------------------
# Advice that works when followed (category 2): the allow-list is tried before it is printed


@dataclasses.dataclass
class TrainConfig:  # a training script's config, saved next to the weights (a data class)
    lr: float
    out: pathlib.Path


class AttrDict(dict):  # an attribute-access dict (EasyDict, addict, a model's config): a dict subclass
    pass


def advice(report) -> str:
    """The allow-list code a weights_only refusal prints (one line of Python), or ''."""
    found = re.search(
        r"(import [\w., ]+, then )?with torch\.serialization\.safe_globals\(.*?\): torch\.load\(path\)", text_of(report)
    )
    return found.group(0) if found else ""


def text_of(report) -> str:
    return " ".join(f.message for f in report.of_kind("weights_only"))


def follow(code: str, path) -> object:
    """Run the printed advice as a reader would paste it, in a fresh namespace."""
    namespace = {"torch": torch, "path": str(path)}
    code = code.replace(", then ", "\n").replace("torch.load(path)", "loaded = torch.load(path)")
    exec(code, namespace)  # noqa: S102 (the advice)
    return namespace["loaded"]


def test_the_printed_allow_list_loads_the_file(tmp_path):
    args = argparse.Namespace(lr=0.1, out=pathlib.PosixPath("/runs/7"))  # Lightning's hparams, timm's args
    old = {"state_dict": {"w": torch.ones(2)}, "best": np.float64(0.25), "epoch": np.int64(3), "args": args}
    old["config"] = TrainConfig(0.1, pathlib.Path("/runs"))
    old["stats"] = collections.OrderedDict(loss=np.float32(1.5))
    torch.save(old, tmp_path / "old.pt")
    report = inspect_checkpoint(tmp_path / "old.pt")
    assert "unsafe pickle" not in kinds(report), text(report)  # data classes are not hostile
    code = advice(report)
    assert "numpy.dtypes.Float64DType" in code and "numpy.dtypes.Float32DType" in code, text_of(report)
    loaded = follow(code, tmp_path / "old.pt")
    assert loaded["args"] == args and loaded["config"] == old["config"] and loaded["best"] == 0.25
    # the same file as numpy 1.x wrote it (numpy.core, not numpy._core): allowed under the name it gives
    rename_globals(
        tmp_path / "old.pt", tmp_path / "numpy1.pt", {b"numpy._core.multiarray\n": b"numpy.core.multiarray\n"}
    )
    code = advice(inspect_checkpoint(tmp_path / "numpy1.pt"))
    assert '"numpy.core.multiarray.scalar")' in code
    assert follow(code, tmp_path / "numpy1.pt")["best"] == 0.25


def test_a_dict_subclass_is_loaded_as_a_dict_or_said_to_be_unloadable(tmp_path):
    torch.save({"state_dict": {"w": torch.ones(2)}, "hparams": AttrDict(lr=0.1)}, tmp_path / "attrdict.pt")
    report = inspect_checkpoint(tmp_path / "attrdict.pt")
    code = advice(report)
    assert f'(dict, "{__name__}.AttrDict")' in code and "plain dict" in text_of(report)
    assert follow(code, tmp_path / "attrdict.pt")["hparams"] == {"lr": 0.1}
    # a defaultdict is rebuilt by calling it: no allow-list loads it, and no list is printed
    torch.save({"state_dict": {"w": torch.ones(2)}, "counts": collections.defaultdict(list, a=[1])}, tmp_path / "dd.pt")
    report = inspect_checkpoint(tmp_path / "dd.pt")
    assert not advice(report) and "No allow-list loads it" in text_of(report), text(report)
    assert "weights_only=False" in text_of(report)


def test_data_classes_are_not_hostile_code_is(tmp_path):
    import torch.distributed.checkpoint as dcp

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcp.save({"w": torch.ones(4)}, checkpoint_id=tmp_path / "dcp", no_dist=True)  # checkpoint_id: a Path
    report = inspect_checkpoint(tmp_path / "dcp" / ".metadata")
    assert "unsafe pickle" not in kinds(report) and "torch.distributed.checkpoint.load" in text_of(report)
    sentinel = tmp_path / "ran"
    payload = {"state_dict": {"w": torch.ones(2)}, "cfg": TrainConfig(0.1, pathlib.Path("/runs"))}
    torch.save({**payload, "hook": Hostile(str(sentinel))}, tmp_path / "hostile.pt")
    report = inspect_checkpoint(tmp_path / "hostile.pt")
    (unsafe,) = report.of_kind("unsafe pickle")
    assert "os.system" in unsafe.message or "posix.system" in unsafe.message
    assert not advice(report) and "Allow nothing" in text_of(report) and not sentinel.exists()


class Hostile:
    def __init__(self, target):
        self.target = target

    def __reduce__(self):
        return (os.system, (f"touch {self.target}",))


def rename_globals(src, dst, renames: dict) -> None:
    """A copy of a torch.save file whose data.pkl names its globals as another version's modules do."""
    reader = torch._C.PyTorchFileReader(str(src))
    writer = torch._C.PyTorchFileWriter(str(dst))
    for name in reader.get_all_records():
        if name in ("version", ".data/serialization_id"):
            continue
        data = bytes(reader.get_record(name))
        if name == "data.pkl":
            for old, new in renames.items():
                data = data.replace(old, new)
        writer.write_record(name, data, len(data))
    writer.write_end_of_file()


def test_trying_the_allow_list_leaves_the_process_allowlist_as_it_was(tmp_path):
    child = run_child(f"""
        import torch
        import torch.distributed.tensor  # a process whose allowlist holds several entries
        from inside_nn.inspect_checkpoint import inspect_checkpoint
        from collections import defaultdict
        before = list(torch.serialization.get_safe_globals())
        torch.save({{"w": torch.ones(2), "counts": defaultdict(list)}}, {str(tmp_path / "dd.pt")!r})
        inspect_checkpoint({str(tmp_path / "dd.pt")!r})
        print("same:", list(torch.serialization.get_safe_globals()) == before)
    """)
    assert "same: True" in child.stdout, child.stdout + child.stderr[-2000:]


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_non_finite_values_outside_the_state_dict_are_reported(tmp_path, legacy):
    """An EMA copy and the optimizer's moments are read by a resumed run, not by load_state_dict: a NaN there
    is a warning that names where it sits; the same file without it has no non-finite finding."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
    optimizer = torch.optim.Adam(model.parameters())
    model(torch.randn(3, 4)).sum().backward()
    optimizer.step()
    ema = {k: v.clone() for k, v in model.state_dict().items()}

    def saved(name, ckpt):
        path = tmp_path / name
        torch.save(ckpt, path, _use_new_zipfile_serialization=not legacy)
        return inspect_checkpoint(path, model=model)

    healthy = saved("healthy.pt", {"model": model.state_dict(), "ema": ema, "optimizer": optimizer.state_dict()})
    assert "non-finite" not in healthy.kinds()
    ema["0.weight"][1, 2] = float("nan")
    moments = copy.deepcopy(optimizer.state_dict())
    moments["state"][0]["exp_avg_sq"][0, 0] = float("inf")
    report = saved("diverged.pt", {"model": model.state_dict(), "ema": ema, "optimizer": moments})
    (finding,) = report.of_kind("non-finite")
    assert finding.severity == "warning" and finding.path == 'ckpt["ema"]["0.weight"]'
    assert 'ckpt["optimizer"]["state"][0]["exp_avg_sq"]: 1 ±inf' in finding.message


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
def test_non_finite_values_inside_a_state_dict_entry_are_the_entry_s(tmp_path, legacy):
    """A sparse tensor's values and a quantized Linear's packed weight and bias are the entry's own values: a
    NaN there is an error under the entry's key, not a tensor 'outside the state dict'."""
    import torch.ao.quantization as tq

    def saved(name, sd, model=None):
        path = tmp_path / name
        torch.save(sd, path, _use_new_zipfile_serialization=not legacy)
        return inspect_checkpoint(path, model=model)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sparse invariants, quantized dtypes deprecated in torch 2.13
        values = torch.tensor([1.0, float("nan")])
        sparse = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 2]]), values, (6, 6)).coalesce()
        report = saved("sparse.pt", {"adj": sparse, "w": torch.ones(3)})
        (finding,) = report.of_kind("non-finite")
        assert finding.severity == "error" and finding.path == "adj", report
        assert "1 NaN among the 2 values it stores" in finding.message

        def quantized(bias=None):
            torch.manual_seed(0)
            src = nn.Sequential(nn.Linear(16, 32))
            if bias is not None:
                src[0].bias.data[0] = bias
            return tq.quantize_dynamic(src, {nn.Linear}, dtype=torch.qint8)

        assert "non-finite" not in saved("q.pt", quantized().state_dict(), quantized()).kinds()
        for bias in (float("nan"), float("inf")):
            report = saved("q_bad.pt", quantized(bias).state_dict(), quantized())
            (finding,) = report.of_kind("non-finite")
            assert finding.severity == "error" and finding.path == "0._packed_params._packed_params", report
            assert "outside the state dict" not in finding.message
