"""`inside-nn checkpoint PATH [--model FILE:FUNCTION]`: one report, exit status by severity, and one line
on stderr (no traceback, nothing on stdout) for a file or model it cannot read."""

from __future__ import annotations

import textwrap

import pytest
import torch
from torch import nn

from inside_nn import cli

MODEL_FILE = textwrap.dedent(
    """
    from torch import nn

    def build_model():
        return nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))

    def build_wider_head():
        return nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 5))

    def build_batchnorm():
        return nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))

    def build_wider_batchnorm():
        return nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1d(5))
    """
)


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_model.py").write_text(MODEL_FILE)
    torch.manual_seed(0)
    state = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)).state_dict()
    torch.save(state, tmp_path / "plain.pt")
    torch.save({"module." + k: v for k, v in state.items()}, tmp_path / "ddp.pt")
    whole = (tmp_path / "plain.pt").read_bytes()
    (tmp_path / "cut.pt").write_bytes(whole[: len(whole) // 3])
    return tmp_path


def run(capsys, *argv):
    status = cli.main(["checkpoint", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_clean_file_against_its_model_exits_0(files, capsys):
    status, out, err = run(capsys, "plain.pt", "--model", "my_model.py:build_model")
    assert (status, err) == (0, "")
    assert out.startswith("inspect_checkpoint(plain.pt): 0 errors, 0 warnings")


def test_a_ddp_prefix_is_named_with_its_fix(files, capsys):
    status, out, err = run(capsys, "ddp.pt", "--model", "my_model.py:build_model")
    assert (status, err) == (0, "")
    assert "WARNING prefix · module." in out
    assert 'consume_prefix_in_state_dict_if_present(sd, "module.")' in " ".join(out.split())


def test_a_head_of_another_size_is_an_error(files, capsys):
    status, out, err = run(capsys, "plain.pt", "--model", "my_model.py:build_wider_head")
    assert (status, err) == (1, "")
    assert "ERROR   shape mismatch · 2.weight" in out
    assert "the file holds 2×3, the model 5×3" in " ".join(out.split())


def test_a_truncated_file_is_an_error(files, capsys):
    status, out, err = run(capsys, "cut.pt")
    assert (status, err) == (1, "")
    assert "ERROR   truncated · (file)" in out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["missing.pt"], "cannot read missing.pt: No such file or directory"),
        (["plain.pt", "--model", "my_model.py:nowhere"], "cannot build the model from"),
        (["plain.pt", "--model", "absent.py:build"], "cannot build the model from"),
    ],
)
def test_what_cannot_be_read_is_one_line_on_stderr(files, capsys, argv, words):
    status, out, err = run(capsys, *argv)
    assert (status, out) == (1, "")
    assert err.startswith("inside-nn checkpoint: ") and words in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_wrong_usage_exits_2(files, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["checkpoint"])
    assert stop.value.code == 2
    assert "the following arguments are required: PATH" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_or_a_device_is_reported_not_waited_on(files, capsys):
    import os
    import signal

    os.mkfifo(files / "pipe.pt")
    # opening a FIFO for reading blocks until a writer comes: fail the test, not hang it
    previous = signal.signal(signal.SIGALRM, lambda *_: pytest.fail("blocked on the FIFO"))
    signal.alarm(20)
    try:
        for path, what in (("pipe.pt", "named pipe"), (os.devnull, "character device")):
            status, out, err = run(capsys, path)
            assert (status, err) == (1, ""), err
            assert "ERROR   not a checkpoint" in out and what in out, out
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_closed_pipe_is_no_traceback(files):
    import subprocess
    import sys

    command = [sys.executable, "-m", "inside_nn.cli", "checkpoint", "ddp.pt"]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    run.stdout.close()  # what `| head -0` does: the reader is gone before the report is written
    err = run.stderr.read().decode()
    run.stderr.close()
    assert run.wait(timeout=120) == 1
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


# Folders: a torch.distributed.checkpoint save and a Hugging Face sharded save, written as those libraries write
# them (dcp.save of a model and its optimizer; shards named model-0000i-of-0000n with a weight_map index).


def fits_80_columns(out: str) -> bool:
    return all(len(line) <= 80 or line.strip().startswith("see https://") for line in out.splitlines())


@pytest.fixture
def dcp_folder(files):
    import warnings

    import torch.distributed.checkpoint as dcp

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))
    optimizer = torch.optim.AdamW(model.parameters())
    model(torch.randn(5, 4)).sum().backward()
    optimizer.step()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "torch.distributed is disabled ... assuming a single process"
        dcp.save(
            {"model": model.state_dict(), "optim": optimizer.state_dict(), "epoch": 3}, checkpoint_id=files / "run"
        )
    return files / "run"


def test_a_dcp_folder_is_described_with_how_to_load_it(dcp_folder, capsys):
    from inside_nn.inspect_checkpoint import inspect_checkpoint

    status, out, err = run(capsys, "run")
    assert (status, err) == (0, ""), out
    words = " ".join(out.split())
    assert "a torch.distributed.checkpoint (DCP) save: 19 tensors" in words
    assert "torch.distributed.checkpoint.load(state_dict, checkpoint_id=DIR)" in words
    assert "dcp_to_torch_save" in words and "top-level keys: model, optim, epoch" in words
    assert fits_80_columns(out), out
    report = inspect_checkpoint(dcp_folder)
    assert report.format == "dcp"
    shapes = {t["key"]: (t["dtype"], t["shape"]) for t in report.tensors}
    assert shapes["model.0.weight"] == ("float32", (3, 4))
    assert shapes["model.1.num_batches_tracked"] == ("int64", ())


def test_a_dcp_folder_against_its_model(dcp_folder, capsys):
    status, out, err = run(capsys, "run", "--model", "my_model.py:build_batchnorm")
    assert (status, err) == (0, ""), out
    assert "fills all 7 entries" in out and "{'model': model.state_dict()}" in out
    status, out, err = run(capsys, "run", "--model", "my_model.py:build_wider_batchnorm")
    assert (status, err) == (1, "")
    assert "ERROR   shape mismatch · 0.weight" in out and fits_80_columns(out)


def test_a_dcp_folder_missing_a_file_or_cut_short_is_an_error(dcp_folder, capsys):
    data = dcp_folder / "__0_0.distcp"
    whole = data.read_bytes()
    data.write_bytes(whole[: len(whole) // 2])
    status, out, err = run(capsys, "run")
    assert (status, err) == (1, "")
    assert "ERROR   truncated · __0_0.distcp" in out
    data.unlink()
    status, out, err = run(capsys, "run")
    assert (status, err) == (1, "")
    assert "ERROR   missing record · __0_0.distcp" in out and fits_80_columns(out)


class _Runs:
    """An object whose unpickling runs a shell command: here, one that leaves a file behind."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        import os

        return (os.system, (f"touch {self.marker}",))


def test_a_dcp_metadata_that_would_run_code_is_an_error(dcp_folder, capsys):
    import pickle

    marker = dcp_folder.parent / "ran"
    metadata = pickle.loads((dcp_folder / ".metadata").read_bytes())
    metadata.storage_meta.checkpoint_id = _Runs(marker)
    (dcp_folder / ".metadata").write_bytes(pickle.dumps(metadata))
    status, out, err = run(capsys, "run")
    assert (status, err) == (1, "")
    assert "ERROR   unsafe pickle · .metadata" in out and "posix.system" in out
    assert "19 tensors" in " ".join(out.split())  # still described
    assert not marker.exists()


def write_shards(folder, state: dict, parts: list, bin_format: bool = False) -> None:
    import json

    from safetensors.torch import save_file

    folder.mkdir()
    weight_map, suffix = {}, ".bin" if bin_format else ".safetensors"
    for i, keys in enumerate(parts, 1):
        name = f"{'pytorch_model' if bin_format else 'model'}-{i:05d}-of-{len(parts):05d}{suffix}"
        shard = {k: state[k].contiguous() for k in keys}
        torch.save(shard, folder / name) if bin_format else save_file(shard, folder / name, {"format": "pt"})
        weight_map.update(dict.fromkeys(keys, name))
    total = sum(v.numel() * v.element_size() for v in state.values())
    index = "pytorch_model.bin.index.json" if bin_format else "model.safetensors.index.json"
    (folder / index).write_text(json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map}, indent=2))


@pytest.mark.parametrize("bin_format", [False, True])
def test_a_hugging_face_sharded_folder_is_described(files, capsys, bin_format):
    state = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)).state_dict()
    write_shards(files / "hf", state, [["0.weight", "0.bias"], ["2.weight", "2.bias"]], bin_format)
    status, out, err = run(capsys, "hf", "--model", "my_model.py:build_model")
    assert (status, err) == (0, ""), out
    assert "a Hugging Face sharded checkpoint" in out and "4 tensors in 2 shards" in " ".join(out.split())
    assert "fills all 4 entries" in out and fits_80_columns(out)
    status, out, err = run(capsys, "hf", "--model", "my_model.py:build_wider_head")
    assert (status, err) == (1, "")
    assert "ERROR   shape mismatch · 2.weight" in out


def test_a_sharded_index_that_disagrees_with_its_shards(files, capsys):
    import json

    state = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)).state_dict()
    write_shards(files / "hf", state, [["0.weight", "0.bias"], ["2.weight", "2.bias"]])
    index = files / "hf" / "model.safetensors.index.json"
    data = json.loads(index.read_text())
    data["weight_map"]["2.bias"] = "model-00001-of-00002.safetensors"  # the index moved a key
    index.write_text(json.dumps(data))
    status, out, err = run(capsys, "hf")
    assert (status, err) == (1, "")
    assert "ERROR   sharded checkpoint · 2.bias" in out and "WARNING sharded checkpoint · 2.bias" in out
    (files / "hf" / "model-00002-of-00002.safetensors").unlink()
    status, out, err = run(capsys, "hf")
    assert "ERROR   missing record · model-00002-of-00002.safetensors" in out and fits_80_columns(out)


def test_a_folder_of_no_known_layout_is_a_report_not_a_crash(files, capsys):
    status, out, err = run(capsys, ".")
    assert (status, err) == (1, "")
    assert "ERROR   not a checkpoint" in out and "plain.pt" in out and "Is a directory" not in out


# --scan: the API's scan_bytes from the command line.


def test_scan_reads_past_the_default_budget_when_asked(files, capsys):
    from inside_nn.inspect_checkpoint.limits import SCAN_BYTES

    assert cli._scan("2G") == SCAN_BYTES and cli._scan("all") is None and cli._scan("1000") == 1000
    state = {"a": torch.zeros(4096), "b": torch.zeros(4096)}
    state["b"][4000] = float("nan")  # past the first tensor's 16 KiB: the budget below stops before it
    torch.save(state, files / "late_nan.pt")
    status, out, err = run(capsys, "late_nan.pt", "--scan", "16K")
    assert (status, err) == (0, "")
    assert "non-finite" not in out and "--scan all" in " ".join(out.split())
    status, out, err = run(capsys, "late_nan.pt", "--scan", "all")
    assert "non-finite · b" in out, out
    with pytest.raises(SystemExit) as stop:
        cli.main(["checkpoint", "late_nan.pt", "--scan", "lots"])
    assert stop.value.code == 2


def test_a_dcp_metadata_with_a_data_class_of_its_own_is_a_warning_not_an_error(dcp_folder, capsys):
    """A class beyond DCP's own that runs no code (a planner's data, here fractions.Fraction) is not hostile:
    a warning that pickle.load imports it, exit 0 (the shared rule of allow_list.runs_code)."""
    import fractions
    import pickle

    metadata = pickle.loads((dcp_folder / ".metadata").read_bytes())
    metadata.planner_data = {"scale": fractions.Fraction(1, 3)}
    (dcp_folder / ".metadata").write_bytes(pickle.dumps(metadata))
    status, out, err = run(capsys, "run")
    assert (status, err) == (0, "")
    assert "WARNING unsafe pickle · .metadata" in out and "fractions.Fraction" in out and fits_80_columns(out)
