"""`inside-nn ddp` and `inside_nn.ddp_check`: chapter 7's observations, made on the reader's model on two ranks.

The ranks cost CPU (torchrun, two ranks importing torch, DDP importing dynamo), so the whole zoo, the planted
defects and chapter 7's asker's model share one start of the ranks (`check_ddp_many`, a module fixture). Two
more starts go through the command: one interrupted with SIGINT, one past its --timeout; both must leave no
process behind (every process carries an environment token, as in tests/test_ddp_cleanup.py). The command's
printing and exit status are checked on reports the shared run made.
"""

from __future__ import annotations

import fcntl
import functools
import os
import pickle
import re
import signal
import threading
import time
import uuid

import ddp_cases
import psutil
import pytest
from test_ddp_cleanup import TOKEN_VARIABLE, processes_with_token

from inside_nn import cli, ddp_check, zoo
from inside_nn.ddp_check import SECTIONS, DDPReport, RankError, check_ddp, check_ddp_many, report_of

URL_LINE = re.compile(r"^\s*see https?://\S+$")

# Zoo models DDP refuses or that cannot train here, and the first words of the error that says why.
CANNOT = {
    "lazy-cnn": "rank 0: RuntimeError: Modules with uninitialized parameters can't be used with",
    "meta-half": "rank 0: ValueError: DistributedDataParallel's input module must be on the same type of devices",
    "gcn-buffer": "rank 0: RuntimeError: No support for sparse tensors",  # the adjacency buffer
    "compiled": "rank 0: TypeError: ConvBNNet.forward() missing 1 required positional argument",  # no inputs
}
PLANTED = {
    "counting": ddp_cases.vector_inputs,
    "late_buffer": ddp_cases.vector_inputs,
    "late_beside_buffer": ddp_cases.vector_inputs,
    "unused": ddp_cases.vector_inputs,
    "rank_branch": ddp_cases.vector_inputs,
    "healthy": ddp_cases.vector_inputs,
    "matrix_plain": ddp_cases.matrix_inputs,
    "matrix_buffer": ddp_cases.matrix_inputs,
    "ignored": ddp_cases.vector_inputs,
    "reduces_in_training": ddp_cases.vector_inputs,
    "reduces_always": ddp_cases.vector_inputs,
    "scaled": ddp_cases.vector_inputs,
    "frozen_updated": ddp_cases.vector_inputs,
}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict:
    """Every zoo model, every planted model and a rank that fails, on ranks started once in the whole run: under
    xdist the first worker to ask runs them and leaves the reports in the run's shared temporary folder, where
    the other worker, waiting on a lock, reads them."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:
        return shared_run()
    shared = tmp_path_factory.getbasetemp().parent / f"ddp-check-{run}.pickle"
    with open(shared.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not shared.exists():
            shared.write_bytes(pickle.dumps(shared_run()))
        return pickle.loads(shared.read_bytes())


def shared_run() -> dict:
    cases = {
        f"zoo {name}": (functools.partial(ddp_cases.zoo_build, name), functools.partial(ddp_cases.zoo_inputs, name))
        for name in zoo.MODELS
    }
    cases |= {name: (getattr(ddp_cases, name), inputs) for name, inputs in PLANTED.items()}
    cases["fails"] = (ddp_cases.healthy, ddp_cases.fails_on_rank_1)
    started = time.monotonic()
    found = check_ddp_many(list(cases.values()), steps=2, timeout=60, lone_timeout=0.25)
    assert time.monotonic() - started < 60
    assert psutil.Process().children(recursive=True) == []  # the ranks are gone
    return dict(zip(cases, found, strict=True))


def errors(report: DDPReport) -> list[tuple[str, str]]:
    return [(f.kind, f.path) for f in report.findings if f.severity == "error"]


def fits(text: str) -> bool:
    return all(len(line) <= 80 or URL_LINE.match(line) for line in text.splitlines())


def test_every_zoo_model_runs_or_says_why_it_cannot(outcomes):
    for name in zoo.MODELS:
        outcome = outcomes[f"zoo {name}"]
        if name in CANNOT:
            assert isinstance(outcome, RankError), name
            assert str(outcome).startswith(CANNOT[name]), (name, str(outcome))
            continue
        assert isinstance(outcome, DDPReport), (name, outcome)
        assert fits(str(outcome)), name
        # What DDP keeps equal stays equal; every parameter of the zoo gets its gradient.
        assert not {"diverged parameter", "buffer", "unused parameter"} & outcome.kinds(), (name, outcome)
        # A forward on rank 0 alone hangs exactly when DDP holds buffers to sync (chapter 7's rule).
        assert outcome.lone_forward == ("hangs" if outcome.buffers else "does not hang"), name
        assert ("buffer sync" in outcome.kinds()) == bool(outcome.buffers), name


def test_the_zoo_models_with_unregistered_tensors_differ_between_ranks(outcomes):
    """DARTS keeps its architecture weights in plain attributes (also in a list: each reported once), the MoE
    variant its experts in a plain list: each rank trains its own."""
    assert errors(outcomes["zoo darts"]) == [("plain attribute", "alphas_normal"), ("plain attribute", "alphas_reduce")]
    assert errors(outcomes["zoo moe-list"]) == [
        (
            "plain attribute",
            "experts[0].w1.weight, experts[0].w2.weight, experts[0].w3.weight, experts[1].w1.weight and 8 more",
        )
    ]
    # ScaledConv2d's amax history, a list of Python floats (in the checkpoint through get_extra_state).
    assert errors(outcomes["zoo extra-state"]) == [
        ("plain attribute", "conv1.amax_history"),
        ("plain attribute", "conv2.amax_history"),
    ]
    assert "get_extra_state" in outcomes["zoo extra-state"].findings[0].message
    clean = [n for n in zoo.MODELS if n not in CANNOT | {"darts": 0, "moe-list": 0, "extra-state": 0}]
    assert [n for n in clean if errors(outcomes[f"zoo {n}"])] == []


def test_a_plain_attribute_updated_in_forward_differs(outcomes):
    (finding,) = outcomes["counting"].findings
    assert (finding.severity, finding.kind, finding.path) == ("error", "plain attribute", "seen")
    assert "rank 1 differs from rank 0 at the start of step 2 (after DDP's sync)" in finding.message


def test_a_buffer_registered_after_wrapping_is_never_synced(outcomes):
    assert errors(outcomes["late_buffer"]) == [("late buffer", "count")]
    assert outcomes["late_buffer"].buffers == []  # DDP held none at construction


def test_a_late_buffer_beside_a_buffer_is_synced_and_only_warned_about(outcomes):
    report = outcomes["late_beside_buffer"]
    assert errors(report) == []
    (warning,) = report.of_kind("late buffer")
    assert (warning.severity, warning.path) == ("warning", "count") and "syncs it only because" in warning.message
    assert report.buffers == ["early"]
    # DDP re-read the buffers at each sync, so from the second forward it broadcast the late one too.
    assert report.sync_bytes == [4, 8, 8] and report.buffer_bytes == 8
    (note,) = report.of_kind("buffer sync")
    assert "1 buffer (4 bytes) at forward 1, 2 buffers (8 bytes) at forwards 2-3" in note.message


def warnings_of(report: DDPReport) -> list[tuple[str, str]]:
    return [(f.kind, f.path) for f in report.findings if f.severity == "warning"]


def test_a_parameter_without_gradient_is_reported_with_the_fix(outcomes):
    (finding,) = outcomes["unused"].findings[:1]
    assert errors(outcomes["unused"]) == []
    assert warnings_of(outcomes["unused"]) == [("unused parameter", "head (weight, bias)")]
    assert "no gradient in any step on any rank" in finding.message and "every rank raises" in finding.message
    assert "requires_grad_(False)" in finding.message and "remove them" in finding.message


def test_a_rank_dependent_branch_is_a_warning_that_find_unused_parameters_answers(outcomes):
    """find_unused_parameters=True all-reduces the used-parameter bitmap: the gradients are right (MoE's
    setting). Without it the rank that missed a gradient raises at the next step; the other waits."""
    report = outcomes["rank_branch"]
    assert errors(report) == [] and warnings_of(report) == [("rank-dependent parameter", "extra (weight, bias)")]
    (finding,) = report.findings
    assert "a gradient on rank 0 only" in finding.message
    assert "rank 1 raises 'Expected to have finished reduction" in finding.message
    assert "rank 0 waits in backward" in finding.message and "With it (as here)" in finding.message
    assert "only hides" not in finding.message


def test_a_buffer_and_parameters_ddp_ignores_are_a_note(outcomes):
    report = outcomes["ignored"]
    assert errors(report) == [] and report.buffers == []
    assert [(f.severity, f.kind, f.path) for f in report.findings] == [
        ("note", "ignored by DDP", "local"),
        ("note", "ignored by DDP", "own (bias, weight)"),
    ]
    assert "each rank keeps its own; the checkpoint saved from rank 0 holds rank 0's" in report.findings[0].message


def test_a_collective_in_training_forwards_is_a_warning(outcomes):
    report = outcomes["reduces_in_training"]
    (finding,) = report.findings
    assert (finding.severity, finding.kind) == ("warning", "collective in forward")
    assert "(all_reduce in training forwards)" in finding.message
    assert report.lone_forward == "does not hang"
    assert (
        "rank 0 alone ran an eval forward through the wrapper, which finished: this eval forward starts no"
        in " ".join(str(report).split())
    )


def test_a_collective_in_every_forward_hangs_the_lone_forward_not_the_run(outcomes):
    report = outcomes["reduces_always"]
    assert [(f.kind, f.severity) for f in report.findings] == [
        ("collective in forward", "warning"),
        ("lone forward", "warning"),
    ]
    assert "(all_reduce in training and eval forwards)" in report.findings[0].message
    assert report.lone_forward == "hangs" and report.lone_in == "all_reduce"
    assert "starts a collective (all_reduce)" in report.findings[1].message


def test_a_python_number_updated_in_forward_differs(outcomes):
    assert errors(outcomes["scaled"]) == [("plain attribute", "scale")]  # `steps` counts alike on every rank
    assert "the Python number held by a plain attribute" in outcomes["scaled"].findings[0].message


def test_a_frozen_parameter_updated_in_forward_is_per_rank(outcomes):
    (finding,) = outcomes["frozen_updated"].findings
    assert (finding.severity, finding.kind, finding.path) == ("warning", "diverged parameter", "codebook")
    assert "requires_grad=False, which DDP's reducer leaves out" in finding.message
    assert "keeps equal" not in finding.message


def test_a_healthy_model_has_no_error(outcomes):
    report = outcomes["healthy"]
    assert errors(report) == []
    assert report.kinds() == {"buffer sync", "lone forward"}  # BatchNorm's buffers
    (note,) = report.of_kind("buffer sync")
    assert "3 buffers (72 bytes)" in note.message and "body.1.running_mean, body.1.running_var" in note.message
    assert "It syncs the first forward and each one after a forward with gradients" in note.message


def test_the_askers_plain_matrix_differs_between_ranks(outcomes):
    report = outcomes["matrix_plain"]
    assert [(f.severity, f.kind, f.path) for f in report.findings] == [("error", "plain attribute", "matrix")]
    assert report.lone_forward == "does not hang" and report.buffer_bytes == 0
    assert "which finished" in str(report)


def test_the_askers_buffer_is_broadcast_and_does_not_diverge(outcomes):
    report = outcomes["matrix_buffer"]
    assert [(f.severity, f.kind) for f in report.findings] == [("warning", "lone forward"), ("note", "buffer sync")]
    note = report.findings[1]
    assert note.path == "" and "1 buffer (24 bytes) at 3 of 3 forwards" in note.message  # 2 x 3 float32
    assert "updates matrix on each rank" in note.message
    assert report.buffers == ["matrix"] and report.buffer_bytes == 24 and report.lone_forward == "hangs"
    assert report.findings[0].link.endswith("#ddp-hang") and report.lone_in == "buffer sync"
    assert "right after training (the usual validation) hangs" in report.findings[0].message


def test_a_rank_that_raises_is_one_line_naming_it(outcomes):
    assert str(outcomes["fails"]) == "rank 1: ValueError: no batch for rank 1"


def test_every_finding_links_to_chapter_7():
    for kind, target in SECTIONS.items():
        assert target.startswith("notebooks/07_buffers_and_ddp.html#ddp-"), kind


def test_the_command_prints_the_report_and_exits_1_on_an_error(outcomes, monkeypatch, capsys):
    monkeypatch.setattr(ddp_check, "check_ddp", lambda *args: outcomes["matrix_plain"])
    cases = ddp_cases.__file__
    assert cli.main(["ddp", f"{cases}:matrix_plain", "--inputs", f"{cases}:matrix_inputs"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("ddp_check(matrix_plain): 1 error, 0 warnings, 0 notes\nERROR   plain attribute · matrix")
    assert fits(out)
    monkeypatch.setattr(ddp_check, "check_ddp", lambda *args: outcomes["matrix_buffer"])
    assert cli.main(["ddp", f"{cases}:matrix_buffer", "--inputs", f"{cases}:matrix_inputs"]) == 0


def test_the_command_says_a_rank_error_in_one_line(outcomes, monkeypatch, capsys):
    def failing(*args):
        raise outcomes["fails"]

    monkeypatch.setattr(ddp_check, "check_ddp", failing)
    cases = ddp_cases.__file__
    assert cli.main(["ddp", f"{cases}:healthy", "--inputs", f"{cases}:fails_on_rank_1"]) == 1
    assert capsys.readouterr() == ("", "inside-nn ddp: rank 1: ValueError: no batch for rank 1\n")
    assert cli.main(["ddp", "missing.py:build", "--inputs", f"{cases}:vector_inputs"]) == 1
    assert capsys.readouterr().err == "inside-nn ddp: cannot read missing.py:build: no such file: missing.py\n"


@pytest.mark.parametrize("argv", [["--ranks", "1"], ["--steps", "0"], ["--timeout", "x"], []])
def test_wrong_usage_exits_2(argv):
    inputs = [] if not argv else ["--inputs", "m.py:make_inputs"]
    with pytest.raises(SystemExit) as stop:
        cli.main(["ddp", "m.py:build", *inputs, *argv])
    assert stop.value.code == 2


@pytest.fixture
def token(monkeypatch, tmp_path):
    """A token every process the command starts inherits, and the file the sleepy model touches."""
    value = uuid.uuid4().hex
    monkeypatch.setenv(TOKEN_VARIABLE, value)
    monkeypatch.setenv("DDP_CHECK_MARKER", str(tmp_path / "running"))
    return value


def sleepy_argv() -> list[str]:
    cases = ddp_cases.__file__
    return ["ddp", f"{cases}:sleepy", "--inputs", f"{cases}:vector_inputs"]


def test_ctrl_c_stops_every_process(token, tmp_path, capsys):
    marker = tmp_path / "running"

    def interrupt() -> None:
        deadline = time.monotonic() + 120
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    started = time.monotonic()
    assert cli.main(sleepy_argv()) == 130
    assert marker.exists() and time.monotonic() - started < 120
    assert capsys.readouterr().err == "inside-nn ddp: interrupted; the ranks were stopped\n"
    assert processes_with_token(token) == []
    assert psutil.Process().children(recursive=True) == []


def test_a_run_past_its_timeout_stops_every_process(token, capsys):
    started = time.monotonic()
    assert cli.main([*sleepy_argv(), "--timeout", "2"]) == 1
    assert time.monotonic() - started < 100
    assert capsys.readouterr().err.startswith("inside-nn ddp: ranks [0, 1] gave no result within 2.0 s")
    assert processes_with_token(token) == []
    assert psutil.Process().children(recursive=True) == []


def record(**changes) -> dict:
    """A rank's record as run_plan returns it, for a Linear `proj` and a buffer `stat`, all equal."""
    same = {"proj.weight": ["torch.float32", [2, 2], "a"], "stat": ["torch.float32", [2], "b"]}
    labels = ["wrap", "step 2", "after steps", "eval", "after eval"]
    base = {
        "digests": {label: dict(same) for label in labels},
        "kinds": {"proj.weight": "parameter", "stat": "buffer"},
        "used": {"proj.weight": [True, True]},
        "syncs": [True, True, True],
        "sync_sizes": [[1, 8]] * 3,
        "collectives": [["training", []], ["training", []], ["eval", []]],
        "buffers": ["stat"],
        "lone": None,
    }
    return base | changes


def test_what_the_ranks_record_becomes_findings():
    """Outcomes the zoo and the planted models do not produce: a parameter or a synced buffer that differs, a
    parameter without gradient in one step, a lone forward that raises."""
    differing = {"proj.weight": ["torch.float32", [2, 2], "other"], "stat": ["torch.float32", [2], "other"]}
    rank_1 = record(used={"proj.weight": [True, False]})
    rank_1["digests"] |= {label: dict(differing) for label in ["step 2", "eval"]}
    report = report_of("made", [record(lone="RuntimeError: boom"), rank_1], steps=2)
    kinds = [(f.severity, f.kind, f.path) for f in report.findings]
    assert kinds == [
        ("error", "buffer", "stat"),
        ("error", "diverged parameter", "proj.weight"),
        ("warning", "lone forward", ""),
        ("warning", "unused parameter", "proj.weight"),
        ("note", "buffer sync", ""),
    ]
    assert "on rank 1 in step 2 (a data-dependent path" in report.of_kind("unused parameter")[0].message
    assert "at the start of step 2" in report.of_kind("diverged parameter")[0].message
    assert report.of_kind("lone forward")[0].message.endswith("raised RuntimeError: boom")
    assert fits(str(report)) and "which finished" not in str(report)


def test_the_targets_the_ranks_can_import(monkeypatch):
    def local():  # not at the top of a file: the ranks cannot find it
        return None

    with pytest.raises(TypeError, match="pass FILE.py:function"):
        check_ddp_many([(local, ddp_cases.vector_inputs)])
    with pytest.raises(ValueError, match="at least 2 ranks and 1 step"):
        check_ddp_many([("m.py:build", "m.py:inputs")], ranks=1)
    assert ddp_check._target(zoo.inputs) == ["inside_nn.zoo:inputs", []]
    case = ddp_check._case({"build": "m.py:build", "inputs": functools.partial(ddp_cases.zoo_inputs, "gpt2")})
    assert case["build"] == [f"{os.path.abspath('m.py')}:build", []] and case["loss"] is None
    assert case["inputs"] == [f"{ddp_cases.__file__}:zoo_inputs", ["gpt2"]]
    assert ddp_check._name(case) == "build"

    monkeypatch.setattr(ddp_check, "check_ddp_many", lambda cases, *args: [RankError("rank 1: ValueError: x")])
    with pytest.raises(RankError, match="rank 1: ValueError: x"):
        check_ddp("m.py:build", "m.py:inputs")


def test_when_every_rank_misses_a_gradient_every_rank_raises():
    """A data-dependent branch (verify.py's `branch`): each rank misses some parameter's gradient."""
    report = report_of(
        "branch",
        [
            record(used={"proj.weight": [True, True], "a.w": [True, True], "b.w": [False, False]}),
            record(used={"proj.weight": [True, True], "a.w": [False, False], "b.w": [True, True]}),
        ],
        steps=2,
    )
    gradients = report.of_kind("rank-dependent parameter")
    assert [f.path for f in gradients] == ["a.w", "b.w"]
    assert all("every rank raises" in f.message and "in backward" not in f.message for f in gradients)
