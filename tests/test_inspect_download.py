"""Chapter 8's `inspect_module` as a download and a command: the download is the module file, byte for byte,
published next to both editions of the chapter; `python inspect_module.py FILE:FUNCTION` and `inside-nn inspect`
print the report, run the forward checks on the reader's inputs, and say in one line why a model cannot be built.

The shared setup (the module file, book/_ext/inspect_download.py loaded as DOWNLOAD) is tests/test_inspect.py's.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from test_inspect import DOWNLOAD, MODULE_FILE

import inside_nn.inspect_module as inspect_source
from inside_nn import cli
from inside_nn.inspect_module import main

MY_MODEL = """import torch
from torch import nn
from mylayers import Block


def build_model():
    model = nn.Sequential(Block(), nn.Linear(4, 2))
    model.matrix = torch.zeros(12, 197, 192)
    return model


def build_broken_model():
    model = nn.Linear(4, 2)
    model.experts = [nn.Linear(2, 2)]
    return model


def broken():
    raise ValueError('no weights here')


def multi_line():
    raise RuntimeError('Error(s) in loading state_dict:\\n\\tMissing key(s): "w".\\n\\tUnexpected key(s): "v".')


def exits():
    raise SystemExit('stopped by the model file')


def not_a_model():
    return 3
"""
MY_LAYERS = """from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        return self.linear(x)
"""


@pytest.fixture
def model_folder(tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "my_model.py").write_text(MY_MODEL, encoding="utf-8")
    (folder / "mylayers.py").write_text(MY_LAYERS, encoding="utf-8")
    return folder


FAILURES = [
    ("missing.py:build_model", "missing.py"),
    ("my_model.py:broken", "no weights here"),
    ("my_model.py:nothing", "nothing"),
    ("my_model.py:multi_line", 'Missing key(s): "w". Unexpected key(s): "v".'),
    ("my_model.py:exits", "stopped by the model file"),
    ("my_model.py:not_a_model", "not an nn.Module"),
]


def test_the_download_is_the_module_file():
    text = DOWNLOAD.script_text(ROOT)
    assert text.rstrip().endswith('if __name__ == "__main__":\n    raise SystemExit(main())')
    imports = [line.split()[1] for line in text.splitlines() if line.startswith(("import ", "from "))]
    allowed = {"torch", "dataclasses", "dis", "functools", "importlib.util", "os"}
    allowed |= {"random", "sys", "textwrap", "types", "weakref", "collections"}
    assert set(imports) <= allowed, "the download needs only torch and the standard library"


def test_the_book_build_publishes_the_module_file_next_to_both_editions(tmp_path):
    from types import SimpleNamespace

    found = {
        "notebooks/08_inspect_your_model",
        "notebooks/ko/08_inspect_your_model",
        "intro",
    }
    for folder in ("notebooks", "notebooks/ko"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
    app = SimpleNamespace(
        srcdir=str(ROOT),
        outdir=str(tmp_path),
        builder=SimpleNamespace(format="html"),
        env=SimpleNamespace(found_docs=found),
    )
    DOWNLOAD._write(app, None)
    for folder in ("notebooks", "notebooks/ko"):
        assert (tmp_path / folder / "inspect_module.py").read_bytes() == MODULE_FILE.read_bytes()
    assert not (tmp_path / "inspect_module.py").exists()


def _run_all(*commands: list[str], cwd) -> list[subprocess.CompletedProcess]:
    """Run the commands side by side (each starts a Python that imports torch)."""
    running = [
        (
            command,
            subprocess.Popen(
                command,
                cwd=cwd,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            ),
        )
        for command in commands
    ]
    done = []
    for command, process in running:
        out, err = process.communicate(timeout=120)
        done.append(subprocess.CompletedProcess(command, process.returncode, out, err))
    return done


def test_the_download_is_a_command_from_another_folder(tmp_path, model_folder):
    script = tmp_path / "downloads" / "inspect_module.py"
    script.parent.mkdir()
    script.write_bytes(DOWNLOAD.script_bytes(ROOT))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    model = model_folder / "my_model.py"
    ok, bad = _run_all(
        [sys.executable, str(script), f"{model}:build_model"],
        [sys.executable, str(script), f"{model}:multi_line"],
        cwd=elsewhere,
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("inspect_module(Sequential):")
    assert "plain attribute · matrix" in ok.stdout and "1.73 MiB" in ok.stdout
    assert bad.returncode == 1 and bad.stdout == ""
    assert len(bad.stderr.splitlines()) == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("inspect_module: cannot build the model from ")


def test_the_download_runs_the_forward_checks_on_the_readers_inputs(model_folder, monkeypatch, capsys):
    monkeypatch.chdir(model_folder)
    (model_folder / "counting.py").write_text(
        "import torch\n"
        "class Counting(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.register_buffer('seen', torch.zeros(()))\n"
        "    def forward(self, x):\n"
        "        self.seen += 1\n"
        "        return x\n"
        "def build():\n"
        "    return Counting()\n"
        "def batch():\n"
        "    return torch.ones(2)\n"
        "def broken():\n"
        "    raise ValueError('no data')\n"
    )
    assert main(["counting.py:build"]) == 0
    without = capsys.readouterr().out
    assert "forward changes state" not in without and "--inputs" in without
    assert main(["counting.py:build", "--inputs", "counting.py:batch"]) == 0
    assert "forward changes state · seen" in capsys.readouterr().out
    assert main(["counting.py:build", "--inputs", "counting.py:broken"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == (
        "inspect_module: cannot build the inputs from counting.py:broken: ValueError: no data\n"
    )


def test_the_download_exits_0_with_errors_found_and_2_on_wrong_usage(model_folder, monkeypatch, capsys):
    monkeypatch.chdir(model_folder)
    assert main(["my_model.py:build_broken_model"]) == 0
    assert "ERROR   unregistered · experts[0]" in capsys.readouterr().out
    for wrong in (
        [],
        ["no-colon"],
        ["a.py:f", "b.py:g"],
        ["a.py:f", "--inputs", "no-colon"],
        ["a.py:f", "--inputs"],
    ):
        assert main(wrong) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.startswith("usage: python inspect_module.py")


@pytest.mark.parametrize(("argument", "words"), FAILURES)
def test_a_model_that_cannot_be_built_gives_one_line(model_folder, monkeypatch, capsys, argument, words):
    monkeypatch.chdir(model_folder)
    path_before = list(sys.path)
    for run, prefix in [
        (lambda: main([argument]), "inspect_module: "),
        (lambda: cli.main(["inspect", argument]), "inside-nn inspect: "),
    ]:
        assert run() == 1, argument
        out, err = capsys.readouterr()
        assert out == "", argument
        assert len(err.splitlines()) == 1, err
        assert err.startswith(prefix + f"cannot build the model from {argument}: ")
        assert words in err and "Traceback" not in err
    assert sys.path == path_before


def test_a_model_file_imports_the_file_next_to_it(model_folder, monkeypatch, capsys):
    monkeypatch.chdir(model_folder.parent)  # not the model's folder: the loader puts that on sys.path
    path_before = list(sys.path)
    target = "models/my_model.py:build_model"
    assert main([target]) == 0
    assert capsys.readouterr().out.startswith("inspect_module(Sequential):")
    assert sys.path == path_before
    assert "mylayers" not in sys.modules and "inspected" not in sys.modules
    model = inspect_source.load_model(target)
    assert type(model[0]).__name__ == "Block"


def test_inside_nn_inspect_exits_by_severity(model_folder, monkeypatch, capsys):
    monkeypatch.chdir(model_folder)
    assert cli.main(["inspect", "my_model.py:build_model"]) == 0  # warnings and notes only
    out = capsys.readouterr().out
    assert out.startswith("inspect_module(Sequential):") and "WARNING plain attribute" in out
    assert cli.main(["inspect", "my_model.py:build_broken_model"]) == 1  # an error found
    assert "ERROR   unregistered · experts[0]" in capsys.readouterr().out
    with pytest.raises(SystemExit) as usage:
        cli.main(["inspect"])
    assert usage.value.code == 2
    capsys.readouterr()


def test_inside_nn_is_a_command(model_folder, capsys):
    with pytest.raises(SystemExit) as version:
        cli.main(["--version"])
    assert version.value.code == 0
    assert capsys.readouterr().out.startswith("inside-nn ")
    script = Path(sys.executable).parent / "inside-nn"  # the console script pip installs
    command = [str(script)] if script.exists() else [sys.executable, "-m", "inside_nn.cli"]
    broken, bad = _run_all(
        [*command, "inspect", "my_model.py:build_broken_model"],
        [*command, "inspect", "my_model.py:multi_line"],
        cwd=model_folder,
    )
    assert broken.returncode == 1 and broken.stdout.startswith("inspect_module(Linear):")
    assert bad.returncode == 1 and bad.stdout == ""
    assert len(bad.stderr.splitlines()) == 1 and "Traceback" not in bad.stderr
