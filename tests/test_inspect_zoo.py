"""Chapter 8's `inspect_module` on every model of `inside_nn.zoo`, real architectures written as their code
bases write them: it never crashes, with or without the model's example inputs; it changes nothing; and on
the models of the table below it reports exactly the error and warning kinds listed, and at least the notes
listed (other notes are allowed). A zoo model the table does not list must get no error.
"""

from __future__ import annotations

import re

import pytest
import torch

from inside_nn import zoo
from inside_nn.inspect_module import WIDTH, Report, inspect_module

RESET = "reset loop"

# name: (error and warning kinds without inputs, the same with the zoo's inputs, notes that must appear).
# Every other error or warning kind must NOT appear. "reset loop" is a warning the book gives on purpose
# to modules that own parameters but have no reset_parameters() (HF's Conv1D and RMSNorm, timm's
# LayerScale and cls_token, Swin's bias table, MultiheadAttention, a ParametrizationList's original).
EXPECTED: dict[str, tuple[set[str], set[str], set[str]]] = {
    "gpt2": ({RESET}, {RESET}, {"tied parameters", "buffers under DDP"}),
    "llama": ({RESET}, {RESET}, {"non-persistent buffer"}),
    "t5": ({RESET}, {RESET}, {"tied parameters"}),
    "swin": ({RESET}, {RESET}, {"buffers under DDP"}),
    "vit": ({RESET}, {RESET}, {"parameters"}),
    "resnet": (set(), set(), {"buffers under DDP", "forward changes state"}),
    "resnet-bottleneck": (set(), set(), {"forward changes state"}),
    "lstm-lm": (set(), set(), {"tied parameters"}),
    "gru": (set(), set(), {"parameters"}),
    "fpn": (set(), set(), {"parameters"}),
    "darts": ({"unregistered"}, {"unregistered"}, {"forward changes state"}),
    "moe": (set(), set(), {"parameters"}),
    "moe-list": ({"unregistered"}, {"unregistered"}, {"parameters"}),
    "prune": (set(), set(), {"buffers under DDP"}),
    "weight-norm-hook": (set(), set(), {"tied parameters"}),
    "weight-norm": ({RESET}, {RESET}, {"parameters"}),
    "spectral-norm-hook": (set(), set(), {"forward changes state"}),
    "spectral-norm": ({RESET}, {RESET}, {"forward changes state"}),
    "lora": ({RESET}, {RESET}, {"frozen parameters"}),
    "orthogonal": ({RESET}, {RESET}, {"parameters"}),
    "gcn-buffer": (set(), set(), {"buffers under DDP"}),
    "gcn-attr": ({"plain attribute"}, {"plain attribute"}, {"parameters"}),
    "vq-ema": (set(), {"half-precision buffer"}, {"half-precision buffer"}),
    "lazy-cnn": ({"lazy"}, {"lazy"}, {"forward"}),
    "lazy-cnn-dry": (set(), set(), {"forward changes state"}),
    "meta-half": ({"meta", "mixed devices", RESET}, set(), {"parameters"}),
    "ddp": (set(), set(), {"buffers under DDP", "forward changes state"}),
    "compiled": (set(), set(), {"buffers under DDP"}),
    "fx": (set(), set(), {"buffers under DDP"}),
    "bert": (set(), set(), {"non-persistent buffer"}),
    "extra-state": (set(), set(), {"forward changes state"}),
    "frozen-backbone": (set(), set(), {"frozen parameters"}),
    "unet": (set(), set(), {"parameters"}),
    "transformer": ({RESET}, {RESET}, {"parameters"}),
    "cyclegan": (set(), set(), {"parameters"}),
    "qat": (set(), set(), {"forward changes state"}),
    "noisy-router": ({RESET}, {RESET}, {"forward changes state"}),
}


@pytest.fixture(scope="module", autouse=True)
def _process_group():
    """zoo.build("ddp") may start a one-process gloo group; end it with the module."""
    yield
    zoo.teardown()


def _serious(report: Report) -> set[str]:
    return {f.kind for f in report.findings if f.severity in ("error", "warning")}


def _notes(report: Report) -> set[str]:
    return {f.kind for f in report.findings if f.severity == "note"}


def _values(model: torch.nn.Module) -> dict:
    """A copy of every ordinary parameter and buffer (sparse, meta and lazy ones by identity only)."""
    values = {}
    for name, t in [
        *model.named_parameters(remove_duplicate=False),
        *model.named_buffers(remove_duplicate=False),
    ]:
        plain = (
            t.layout == torch.strided
            and not t.is_meta
            and not isinstance(t, torch.nn.parameter.UninitializedTensorMixin)
        )
        values[name] = (t, t.detach().clone() if plain else None)
    return values


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    if torch.equal(a, b):
        return True
    return a.is_floating_point() and torch.allclose(a, b, rtol=0, atol=0, equal_nan=True)


def _unchanged(model: torch.nn.Module, before: dict) -> list[str]:
    now = _values(model)
    changed = [name for name in before if name not in now or now[name][0] is not before[name][0]]
    for name, (tensor, copy) in before.items():
        if copy is not None and not _same(tensor, copy):
            changed.append(name)
    return changed


def test_the_table_names_only_zoo_models():
    assert set(EXPECTED) <= set(zoo.MODELS)


@pytest.mark.parametrize("name", sorted(zoo.MODELS))
def test_inspect_module_on_a_zoo_model(name):
    model = zoo.build(name)
    example = zoo.inputs(name)
    before = _values(model)
    rng = torch.get_rng_state()
    state = inspect_module(model)
    forward = inspect_module(model, example) if example else None
    for report in (state, forward):
        if report is not None:
            text = str(report)
            assert text.startswith("inspect_module(")
            # an 80-column terminal: only a link, on a line of its own, may be longer
            wide = [line for line in text.splitlines() if len(line) > WIDTH]
            assert all(re.fullmatch(r" +see https://\S+", line) for line in wide), wide
            assert all(re.fullmatch(r" +see https://\S+", line) for line in text.splitlines() if "https://" in line), (
                "a link stands on its own line"
            )
    assert _unchanged(model, before) == [], name
    assert torch.equal(torch.get_rng_state(), rng), name
    if forward is not None:
        assert not [f for f in forward.of_kind("forward") if f.severity == "error"], (
            f"{name}: the zoo's inputs should run\n{forward}"
        )
    if name not in EXPECTED:
        for report in (state, forward):
            if report is not None:
                errors = [f for f in report.findings if f.severity == "error"]
                assert not errors, f"{name}: no error expected\n{report}"
        return
    without, with_inputs, notes = EXPECTED[name]
    assert _serious(state) == without, f"{name} without inputs\n{state}"
    if forward is not None:
        assert _serious(forward) == with_inputs, f"{name} with inputs\n{forward}"
    seen = _notes(state) | (_notes(forward) if forward is not None else set())
    assert notes <= seen, f"{name}: notes {sorted(notes - seen)} missing"
