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
        (["."], "cannot read .: Is a directory"),
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
