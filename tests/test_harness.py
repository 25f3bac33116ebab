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
        assert result is None and line.startswith("✗ it raised NotImplementedError: "), line
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
    monkeypatch.setattr(torch, "use_deterministic_algorithms", lambda *a, **k: touched.append(a))
    monkeypatch.setattr(torch, "set_default_device", lambda *a: touched.append(a))
    torch.set_default_dtype(torch.float64)
    harness.restore(before)
    assert torch.get_default_dtype() == torch.float32
    assert touched == []  # neither the slow deterministic switch nor a device context


def exits(x):
    raise SystemExit(3)


def test_an_answer_that_exits_gets_a_line_not_a_system_exit():
    import pytest

    result, line = harness.call(exits, 1)
    assert result is None and "sys.exit(3)" in line
    with pytest.raises(harness.Wrong, match="SystemExit"):
        harness.attempt(exits, 1)
    checked = harness.checker(lambda answer: answer(1))
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        checked(exits)  # the check's own call of the answer, outside call(): still one line
    assert out.getvalue().startswith("✗ it called sys.exit(3)")


def sets_the_environment_and_the_import_path(x):
    import os
    import sys

    os.environ["MASTER_PORT"] = "29999"
    os.environ.pop("PATH", None)
    sys.path.insert(0, "/nowhere")
    return x


def test_environment_and_sys_path_leaks_are_named_and_undone():
    import os
    import sys

    path, environ = list(sys.path), dict(os.environ)
    result, line = harness.call(sets_the_environment_and_the_import_path, 1)
    assert result is None
    assert "environment variables" in line and "sys.path" in line
    assert sys.path == path and dict(os.environ) == environ


def swallows_the_first_interruption(x):
    try:
        while True:
            pass
    except BaseException:  # noqa: BLE001, S110 (a reader's bare except, on purpose)
        pass
    while True:
        pass


def test_a_loop_that_swallows_the_deadline_is_interrupted_again():
    import signal
    import time

    import pytest

    start = time.monotonic()
    with pytest.raises(harness.Wrong, match="did not return within"):
        harness.attempt(swallows_the_first_interruption, 1, seconds=0.2)
    assert time.monotonic() - start < 5
    assert signal.getitimer(signal.ITIMER_REAL)[1] == 0.0  # no repeating tick left behind


def test_call_interrupts_an_endless_loop():
    def count_unique(model):
        while True:
            pass

    result, line = harness.call(count_unique, None, deadline=0.2)
    assert result is None
    assert line == "✗ count_unique did not return within 0.2 s: an endless loop?"


def _anatomy(model: nn.Module) -> list:
    """What a build makes, compared between a build and a copy: each module's class, flags, hooks and own
    attributes; each tensor's name, object identity pattern (ties), values, dtype, device and grad flag."""
    ids: dict[int, int] = {}
    out = []
    for path, module in model.named_modules(remove_duplicate=False):
        out.append((path, type(module).__qualname__, module.training, harness._hooks(module), sorted(vars(module))))
    tensors = [*model.named_parameters(remove_duplicate=False), *model.named_buffers(remove_duplicate=False)]
    for name, t in tensors:
        tie = ids.setdefault(id(t), len(ids))
        lazy = isinstance(t, nn.parameter.UninitializedTensorMixin)
        values = None if t.is_meta or lazy else t.detach().cpu().to_dense().float().flatten().tolist()
        out.append(
            (name, tie, type(t).__name__, t.dtype, t.device.type, t.requires_grad, None if lazy else t.shape, values)
        )
    return out


def test_a_built_copy_is_the_model_a_build_makes():
    """harness.built hands out copies of the first build: for every zoo model, a copy matches a fresh build
    (structure, ties, hooks, values, flags), runs the same forward, and leaves the generator where a build does."""
    import warnings

    from inside_nn import zoo

    for name, spec in zoo.MODELS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            harness.built(spec.build, 3)  # the first call builds and keeps a copy
            copied = harness.built(spec.build, 3)
            after_copy = torch.default_generator.get_state()
            torch.default_generator.manual_seed(3)
            fresh = spec.build()
            assert torch.equal(after_copy, torch.default_generator.get_state()), name
            assert _anatomy(copied) == _anatomy(fresh), name
            if "meta" in spec.traits or "lazy-uninitialized" in spec.traits or "wrapper" in spec.traits:
                continue
            inputs = zoo.inputs(name)
            with torch.no_grad():
                a, b = copied.eval()(*inputs), fresh.eval()(*inputs)
        assert torch.equal(_first_tensor(a), _first_tensor(b)), name


def _first_tensor(out):
    while not isinstance(out, torch.Tensor):
        out = next(iter(out.values() if isinstance(out, dict) else out))
    return out


def test_a_build_under_another_default_dtype_or_device_is_not_handed_out_again():
    """A caller's torch.set_default_dtype or set_default_device makes another model: built() keys on both."""

    def build():
        return nn.Linear(2, 2)

    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        assert harness.built(build).weight.dtype == torch.float64
    finally:
        torch.set_default_dtype(previous)
    assert harness.built(build).weight.dtype == torch.float32
    with torch.device("meta"):
        assert harness.built(build).weight.is_meta
    assert not harness.built(build).weight.is_meta
