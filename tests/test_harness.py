"""The exercise harness (inside_nn.exercises.harness): what it calls a stub, what it restores, and that
restoring leaves alone what did not change."""

from __future__ import annotations

import random

import torch
from torch import nn

from inside_nn.exercises import harness


def stub(model):
    raise NotImplementedError


def reaches_an_operator_the_backend_lacks(x):
    # torch raises NotImplementedError, with a message, from C++: the innermost Python frame is this one
    return torch.zeros(2).to_sparse().median() + x


def calls_a_module_without_forward(x):
    return nn.Module()(x)


def bare_raise_inside_a_helper(x):
    def helper():
        raise NotImplementedError

    return helper()


def test_a_bare_raise_in_the_answer_is_the_stub():
    assert harness.call(stub, None) == (None, harness.STUB.format("stub"))
    # the reader's own unfinished helper is still "not solved yet"
    assert harness.call(bare_raise_inside_a_helper, 1)[1].startswith("✗ not solved yet")


def test_a_not_implemented_error_from_torch_is_the_answers_error():
    for answer in (
        reaches_an_operator_the_backend_lacks,
        calls_a_module_without_forward,
    ):
        result, line = harness.call(answer, 1)
        assert result is None and line.startswith(
            "✗ it raised NotImplementedError: "
        ), line
        assert "not solved yet" not in line


def test_attempt_reports_a_stub_and_returns_other_errors():
    import pytest

    with pytest.raises(harness.Wrong, match="not solved yet"):
        harness.attempt(stub, None)
    result, error = harness.attempt(calls_a_module_without_forward, 1)
    assert result is None and isinstance(error, NotImplementedError)


def leaks(x):
    torch.set_default_dtype(torch.float64)
    torch.manual_seed(123)
    random.seed(5)
    torch.set_grad_enabled(False)
    return x


def test_every_leak_is_named_and_undone():
    before = harness.capture()
    result, line = harness.call(leaks, 1)
    assert result is None
    for name in ("default dtype", "grad mode", "torch RNG", "Python RNG"):
        assert name in line
    assert harness.changed(before, harness.capture()) == []


def test_restore_sets_only_what_changed(monkeypatch):
    before = harness.capture()
    touched = []
    monkeypatch.setattr(
        torch, "use_deterministic_algorithms", lambda *a, **k: touched.append(a)
    )
    monkeypatch.setattr(torch, "set_default_device", lambda *a: touched.append(a))
    torch.set_default_dtype(torch.float64)
    harness.restore(before)
    assert torch.get_default_dtype() == torch.float32
    assert touched == []  # neither the slow deterministic switch nor a device context
