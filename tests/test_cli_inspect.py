"""`inside-nn inspect FILE:FUNCTION [--inputs FILE:FUNCTION]` and the wording review n12 asked for: usage errors
exit 2, the reader's own file is named (never the loader's internal module), reports fit 80 columns, a report
without a forward says so, a clean checkpoint says what the load will do, one tie is one finding."""

from __future__ import annotations

import re
import textwrap

import pytest
import torch
from torch import nn

from inside_nn import cli
from inside_nn.inspect_checkpoint import _short, inspect_checkpoint
from inside_nn.inspect_module import one_line

URL_LINE = re.compile(r"^\s*see https?://\S+$")

MODEL_FILE = textwrap.dedent(
    """
    import torch
    from torch import nn


    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(4, 2)
            self.register_buffer("seen", torch.zeros(()))

        def forward(self, x):
            self.seen += 1
            return self.linear(x)


    class TiedLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(10, 4)
            self.head = nn.Linear(4, 10, bias=False)
            self.head.weight = self.embed.weight


    def build_model():
        return Counter()

    def build_tied():
        return TiedLM()

    def make_inputs():
        return torch.randn(3, 4)

    def make_keywords():
        return {"x": torch.randn(3, 4)}

    def wrong_inputs():
        return [1, 2]

    def raising_inputs():
        raise ValueError("no batch here")

    def long_inputs():
        return torch.ones(3, 4, dtype=torch.long)

    not_a_function = 3
    """
)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_model.py").write_text(MODEL_FILE)
    return tmp_path


def inspect(capsys, *argv):
    status = cli.main(["inspect", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def fits_80_columns(text: str) -> bool:
    return all(len(line) <= 80 or URL_LINE.match(line) for line in text.splitlines())


@pytest.mark.parametrize("inputs", ["my_model.py:make_inputs", "my_model.py:make_keywords"])
def test_inputs_run_one_forward(folder, capsys, inputs):
    status, out, err = inspect(capsys, "my_model.py:build_model", "--inputs", inputs)
    assert (status, err) == (0, "")
    assert "forward changes state · seen" in out and "NOTE    forward · (model)" in out
    assert "skipped" not in out
    assert fits_80_columns(out), out


def test_a_forward_that_raises_is_not_said_to_have_run(folder, capsys):
    status, out, err = inspect(capsys, "my_model.py:build_model", "--inputs", "my_model.py:long_inputs")
    assert (status, err) == (1, "") and out.count("ERROR   forward · (model)") == 2
    note = out.split("NOTE    forward · (model)")[1].split("\n")[1]
    assert "tried one eval-mode and one train-mode forward (both raised)" in note
    assert "ran one" not in out


def test_without_inputs_the_report_says_the_forward_checks_were_skipped(folder, capsys):
    status, out, err = inspect(capsys, "my_model.py:build_model")
    assert (status, err) == (0, "")
    assert "forward changes state" not in out
    last = " ".join(out.split("(model)")[-1].split("\n")[2:]).split()
    assert "forward checks were skipped" in " ".join(last)
    assert "--inputs FILE:FUNCTION" in " ".join(last)
    assert fits_80_columns(out), out


@pytest.mark.parametrize(
    ("inputs", "words"),
    [
        (
            "my_model.py:wrong_inputs",
            (
                "wrong_inputs() returned list, not a tensor, a tuple of positional arguments "
                "or a dict of keyword arguments"
            ),
        ),
        ("my_model.py:raising_inputs", "ValueError: no batch here"),
        ("my_model.py:nonexistent", "my_model.py has no function nonexistent"),
        (
            "my_model.py:not_a_function",
            "not_a_function in my_model.py is a int, not a function",
        ),
        ("missing.py:make_inputs", "no such file: missing.py"),
    ],
)
def test_inputs_that_cannot_be_made_give_one_line(folder, capsys, inputs, words):
    status, out, err = inspect(capsys, "my_model.py:build_model", "--inputs", inputs)
    assert (status, out) == (1, "")
    assert err == f"inside-nn inspect: cannot make the inputs from {inputs}: {words}\n"


def test_a_missing_function_names_the_readers_file(folder, capsys):
    status, out, err = inspect(capsys, "my_model.py:nonexistent")
    assert (status, out) == (1, "")
    assert err == (
        "inside-nn inspect: cannot build the model from my_model.py:nonexistent: "
        "my_model.py has no function nonexistent\n"
    )
    assert "inspected" not in err and "AttributeError" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["inspect", "my_model.py"],
        ["inspect", "my_model.py:build_model", "--inputs", "my_model.py"],
        ["checkpoint", "plain.pt", "--model", "my_model.py"],
    ],
)
def test_a_target_without_its_function_is_wrong_usage(folder, capsys, argv):
    with pytest.raises(SystemExit) as usage:
        cli.main(argv)
    assert usage.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("usage: inside-nn ")
    assert "'my_model.py' is not FILE:FUNCTION" in err


def test_help_names_inputs_and_fits_80_columns(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        cli.main(["inspect", "--help"])
    out = capsys.readouterr().out
    assert "--inputs FILE:FUNCTION" in out and "called without arguments" in out
    flat = " ".join(out.split())
    assert "a tuple (its positional arguments) or a dict (its keyword arguments)" in flat
    assert max(len(line) for line in out.splitlines()) <= 80


def test_an_error_is_shortened_at_a_word_or_a_sentence():
    words = RuntimeError("checkpoint " * 60)
    text = one_line(words, 100)
    assert len(text) <= 100 + len("RuntimeError: ")
    assert text.endswith("checkpoint ...")
    sentences = RuntimeError("The first sentence is whole here. " * 3 + "then a long tail " * 20)
    assert one_line(sentences, 120).endswith("is whole here. ...")


def test_miniz_advice_is_dropped_before_the_message_is_shortened():
    error = RuntimeError(
        "PytorchStreamReader failed reading file data/3: invalid header or archive is corrupted"
        ". This is an internal miniz error. If you are seeing this error, there is a high "
        "likelihood that your checkpoint file is corrupted."
    )
    assert _short(error, 160) == (
        "RuntimeError: PytorchStreamReader failed reading file data/3: invalid header or archive is corrupted"
    )


@pytest.fixture
def checkpoints(folder):
    torch.manual_seed(0)
    tied = torch.nn.Module()
    tied.embed = nn.Embedding(10, 4)
    tied.head = nn.Linear(4, 10, bias=False)
    tied.head.weight = tied.embed.weight
    torch.save(tied.state_dict(), folder / "tied.pt")
    torch.save(tied, folder / "whole.pt")
    return folder


def test_a_clean_load_says_what_load_state_dict_will_do(checkpoints, capsys):
    status = cli.main(["checkpoint", "tied.pt", "--model", "my_model.py:build_tied"])
    out, err = capsys.readouterr()
    assert (status, err) == (0, "")
    assert " ".join(out.splitlines()[-2:]) == (
        "model.load_state_dict(sd) will load all 2 keys the model expects: none missing, "
        "none unexpected, every shape fits."
    )
    assert fits_80_columns(out), out


def test_no_load_line_without_a_model_or_with_errors(checkpoints, capsys):
    assert inspect_checkpoint(checkpoints / "tied.pt").load_outcome is None
    report = inspect_checkpoint(checkpoints / "tied.pt", nn.Linear(4, 10))
    assert "will load" not in str(report)


def test_one_tie_is_one_finding(checkpoints):
    model = torch.nn.Module()
    model.embed = nn.Embedding(10, 4)
    model.head = nn.Linear(4, 10, bias=False)
    model.head.weight = model.embed.weight
    with_model = inspect_checkpoint(checkpoints / "tied.pt", model)
    assert [f.kind for f in with_model.findings].count("split tie") == 1
    assert not with_model.of_kind("tied keys")
    assert "(one storage in the file)" in with_model.of_kind("split tie")[0].message
    # without a model, the file's tie is still named
    assert inspect_checkpoint(checkpoints / "tied.pt").of_kind("tied keys")


def test_the_pickled_module_advice_starts_a_sentence(checkpoints):
    report = inspect_checkpoint(checkpoints / "whole.pt")
    (refused,) = report.of_kind("weights_only")
    assert "(code of those classes runs). If you trust the file" in refused.message
