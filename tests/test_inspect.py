"""Chapter 8's `inspect_module`: every kind of finding appears on a model that has the problem and not on one
that lacks it; running it changes nothing; the downloadable script is the notebook's cell and works as a command.

The function is taken from the notebook cell tagged ``inspect-module`` (the page's single source), the
script from ``book/_ext/inspect_download.py``, which `make book` uses to publish it.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import types

import pytest
import torch
from conftest import NOTEBOOK_DIR, ROOT, load_notebook
from torch import nn

NOTEBOOK = NOTEBOOK_DIR / "08_inspect_your_model.ipynb"


def _download_module():
    spec = importlib.util.spec_from_file_location(
        "inspect_download", ROOT / "book/_ext/inspect_download.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DOWNLOAD = _download_module()


def load_inspect() -> dict:
    """The namespace the notebook's `inspect-module` cell defines."""
    (cell,) = [
        c
        for c in load_notebook(NOTEBOOK)["cells"]
        if "inspect-module" in c.get("metadata", {}).get("tags", [])
    ]
    module = types.ModuleType("inspect_module_under_test")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile("".join(cell["source"]), "inspect-module", "exec"), module.__dict__)  # noqa: S102
    return module.__dict__


@pytest.fixture(scope="module")
def ns() -> dict:
    return load_inspect()


def _plain(**attributes) -> nn.Module:
    module = nn.Module()
    for name, value in attributes.items():
        object.__setattr__(module, name, value)
    return module


def _buffered(name, tensor, persistent=True) -> nn.Module:
    module = nn.Module()
    module.register_buffer(name, tensor, persistent=persistent)
    return module


def _tied() -> nn.Module:
    embed, head = nn.Embedding(10, 4), nn.Linear(4, 10, bias=False)
    head.weight = embed.weight
    return nn.ModuleDict({"embed": embed, "head": head})


def _frozen() -> nn.Module:
    model = nn.Linear(3, 3)
    model.bias.requires_grad_(False)
    return model


def _no_reset() -> nn.Module:
    module = nn.Module()
    module.cls_token = nn.Parameter(torch.zeros(1, 4))
    return module


def _on_meta() -> nn.Module:
    with torch.device("meta"):
        return nn.Linear(3, 3)


def _half_on_meta() -> nn.Module:
    model = nn.Sequential(nn.Linear(3, 3), _buffered("inv_freq", torch.ones(2), False))
    with torch.device("meta"):
        shell = nn.Sequential(
            nn.Linear(3, 3), _buffered("inv_freq", torch.ones(2), False)
        )
    shell.load_state_dict(model.state_dict(), assign=True)
    return shell


def _split_tie() -> nn.Module:
    """A tied model loaded with assign=True onto a meta shell: two Parameters over one storage."""
    with torch.device("meta"):
        shell = _tied()
    shell.load_state_dict(_tied().state_dict(), assign=True)
    return shell


def _nan() -> nn.Module:
    model = nn.Linear(2, 2)
    with torch.no_grad():
        model.weight[0, 0] = float("nan")
    return model


def _causal_mask() -> nn.Module:
    return _buffered("mask", torch.full((3, 3), float("-inf")).triu(1))


class _Counter(nn.Module):
    """Adds to a plain attribute in every forward."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(2, 2)
        self.total = torch.zeros(2)

    def forward(self, x):
        self.total = self.total + x.sum(0)
        return self.linear(x)


class _Broken(nn.Module):
    def forward(self, x):
        raise RuntimeError("shape mismatch")


# kind: (a model that must produce it, a model that must not), each with example inputs or None.
CASES = {
    "plain attribute": (
        (_plain(cache={"k": [torch.zeros(2)]}), None),
        (_buffered("cache", torch.zeros(2)), None),
    ),
    "unregistered": (
        (_plain(extra=[nn.Parameter(torch.zeros(2))]), None),
        (nn.ParameterList([nn.Parameter(torch.zeros(2))]), None),
    ),
    "buffers under DDP": (
        (nn.BatchNorm1d(3), None),
        (nn.LayerNorm(3), None),
    ),
    "non-persistent buffer": (
        (_buffered("inv_freq", torch.ones(4), persistent=False), None),
        (_buffered("inv_freq", torch.ones(4)), None),
    ),
    "half-precision buffer": (
        (_buffered("seen", torch.zeros((), dtype=torch.float16)), None),
        (_buffered("seen", torch.zeros(())), None),
    ),
    "parameters": ((nn.Linear(2, 2), None), (nn.ReLU(), None)),
    "tied parameters": (
        (_tied(), None),
        (nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 10)), None),
    ),
    "split tie": ((_split_tie(), None), (_tied(), None)),
    "frozen parameters": ((_frozen(), None), (nn.Linear(3, 3), None)),
    "reset loop": (
        (nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), None),
        (nn.Sequential(nn.Linear(2, 2), nn.LayerNorm(2), nn.Embedding(3, 2)), None),
    ),
    "lazy": ((nn.LazyLinear(2), None), (nn.Linear(2, 2), None)),
    "meta": ((_on_meta(), None), (nn.Linear(3, 3), None)),
    "mixed devices": ((_half_on_meta(), None), (nn.Linear(3, 3), None)),
    "mixed dtypes": (
        (nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2).double()), None),
        (nn.Linear(2, 2), None),
    ),
    "non-finite": ((_nan(), None), (_causal_mask(), None)),
    "forward changes state": (
        (_Counter(), torch.ones(3, 2)),
        (nn.Sequential(nn.Linear(2, 2), nn.LayerNorm(2)), torch.ones(3, 2)),
    ),
    "forward": ((_Broken(), torch.ones(1)), (_Broken(), None)),
}


def test_every_kind_of_finding_is_covered(ns):
    assert set(CASES) == set(ns["SECTIONS"])


@pytest.mark.parametrize("kind", sorted(CASES))
def test_a_model_with_the_problem_gets_the_finding_and_one_without_does_not(ns, kind):
    (has, has_inputs), (lacks, lacks_inputs) = CASES[kind]
    assert ns["inspect_module"](has, has_inputs).of_kind(kind), kind
    assert not ns["inspect_module"](lacks, lacks_inputs).of_kind(kind), kind


def test_each_finding_has_a_severity_a_path_a_message_and_a_link(ns):
    report = ns["inspect_module"](_Counter(), torch.ones(3, 2))
    assert report.findings
    for finding in report.findings:
        assert finding.severity in ns["SEVERITIES"]
        assert finding.link.startswith(ns["BOOK"] + "notebooks/")
        assert "#" in finding.link, (
            f"{finding.kind}: link to the section, not only the page"
        )
        assert finding.message
    assert "total" in {f.path for f in report.of_kind("forward changes state")}
    assert str(report).startswith("inspect_module(_Counter):")


def test_the_asker_matrix_is_reported_with_its_bytes(ns):
    plain = ns["inspect_module"](_plain(matrix=torch.zeros(12, 197, 192)))
    (finding,) = plain.of_kind("plain attribute")
    assert "1.73 MiB" in finding.message
    buffer = ns["inspect_module"](_buffered("matrix", torch.zeros(12, 197, 192)))
    (finding,) = buffer.of_kind("buffers under DDP")
    assert "1.73 MiB" in finding.message and "rank 0 alone" in finding.message
    assert "ddp_model.module" in finding.message


def _everything(model: nn.Module):
    tensors = {
        name: (t, t.detach().clone())
        for name, t in [*model.named_parameters(), *model.named_buffers()]
    }
    attributes = {m: dict(vars(m)) for m in model.modules()}
    flags = {m: m.training for m in model.modules()}
    return tensors, attributes, flags, torch.get_rng_state()


@pytest.mark.parametrize("training", [True, False])
def test_running_it_changes_nothing(ns, training):
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Dropout(0.5), nn.Flatten()
    )
    counter = _Counter()
    whole = nn.ModuleDict({"net": model, "counter": counter})
    whole.train(training)
    counter.eval()
    images = torch.randn(2, 3, 5, 5)
    before = _everything(whole)
    ns["inspect_module"](model, images)
    ns["inspect_module"](counter, torch.ones(3, 2))
    tensors, attributes, flags, rng = before
    now = dict([*whole.named_parameters(), *whole.named_buffers()])
    for name, (tensor, values) in tensors.items():
        assert now[name] is tensor, name
        assert torch.equal(tensor, values), name
    for module, attrs in attributes.items():
        assert dict(vars(module)).keys() == attrs.keys()
        assert all(vars(module)[k] is v for k, v in attrs.items())
    assert {m: m.training for m in whole.modules()} == flags
    assert torch.equal(torch.get_rng_state(), rng)


def test_the_download_is_the_notebook_cell_and_a_command(tmp_path):
    text = DOWNLOAD.script_text(ROOT)
    (cell,) = [
        c
        for c in load_notebook(NOTEBOOK)["cells"]
        if "inspect-module" in c.get("metadata", {}).get("tags", [])
    ]
    assert text.startswith("".join(cell["source"]).rstrip("\n"))
    assert text.endswith(DOWNLOAD.FOOTER)
    script = tmp_path / "inspect_module.py"
    script.write_text(text, encoding="utf-8")
    (tmp_path / "my_model.py").write_text(
        "import torch\nfrom torch import nn\n\n"
        "def build_model():\n"
        "    model = nn.Linear(4, 2)\n"
        "    model.matrix = torch.zeros(12, 197, 192)\n"
        "    return model\n\n"
        "def broken():\n"
        "    raise ValueError('no weights here')\n",
        encoding="utf-8",
    )

    def run(argument: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, str(script), argument],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    ok = run("my_model.py:build_model")
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("inspect_module(Linear):")
    assert "plain attribute · matrix" in ok.stdout and "1.73 MiB" in ok.stdout
    for argument, words in [
        ("missing.py:build_model", "missing.py"),
        ("my_model.py:broken", "no weights here"),
        ("my_model.py:nothing", "nothing"),
    ]:
        bad = run(argument)
        assert bad.returncode == 1, argument
        assert bad.stdout == "", argument
        assert len(bad.stderr.splitlines()) == 1, bad.stderr
        assert words in bad.stderr and "Traceback" not in bad.stderr
