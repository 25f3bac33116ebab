"""inside_nn.checkpoint, the tools of "Checkpoints that survive", and the page that shows them.

- `save_atomically` survives a process killed in the middle of a write (the page's own demonstration,
  `inside_nn._demo_files.kill_while_saving`), cleans up after a failed save, keeps the old file's mode
  and writes through a symlink.
- The loader gives every file of the page's table the verdict the page prints, changes no file and runs
  no code; the checks the table does not reach are tested on files made for them.
- The page defines `save_atomically` and the loader's checks in its cells, to be read; they must be the
  package's functions line for line (docstrings aside), so that what the reader imports is what they read.
"""

from __future__ import annotations

import ast
import hashlib
import io
import os
import pickle
import signal
import stat
import struct
import time
import types
import zipfile

import pytest
import torch
from conftest import NOTEBOOK_DIR, load_notebook

from inside_nn import _demo_files, checkpoint
from inside_nn.checkpoint import (
    judge,
    load_newest_valid,
    printable,
    save_atomically,
)

NOTEBOOK = NOTEBOOK_DIR / "05_checkpoints_that_survive.ipynb"


def saved(obj, **kwargs) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer, **kwargs)
    return buffer.getvalue()


# --- Saving -----------------------------------------------------------------------------------------


def test_save_atomically_survives_a_kill_in_the_middle_of_the_write(tmp_path):
    for how in ("in_place", "atomically"):
        save_atomically({"weight": torch.arange(6.0)}, tmp_path / f"{how}.pt")
    codes = _demo_files.kill_while_saving(tmp_path, ["in_place", "atomically"])
    assert set(codes.values()) == {-signal.SIGKILL if os.name == "posix" else 1}
    # In place, the old checkpoint is gone and the new one is cut: torch.load fails.
    with pytest.raises(RuntimeError, match="central directory"):
        torch.load(tmp_path / "in_place.pt", weights_only=True)
    # Atomically, the old checkpoint is whole; the temporary file is cut where the kill struck.
    intact = torch.load(tmp_path / "atomically.pt", weights_only=True)
    assert torch.equal(intact["weight"], torch.arange(6.0))
    (leftover,) = tmp_path.glob(".atomically.pt.*.tmp")
    stop = _demo_files.STOP_AFTER
    assert leftover.stat().st_size == stop == (tmp_path / "in_place.pt").stat().st_size
    _, reason = judge(leftover)
    assert reason.startswith("truncated"), reason


def test_the_writes_that_stop_pause_after_stop_after_bytes(tmp_path, monkeypatch):
    """What the killed children write through: STOP_AFTER bytes, then a pause (here, an exception)."""

    class Paused(Exception):
        pass

    def pause(seconds):
        raise Paused(seconds)

    monkeypatch.setattr(_demo_files, "time", types.SimpleNamespace(sleep=pause))
    opener = _demo_files._open_that_stops(tmp_path / "paused")
    with opener(tmp_path / "out.bin", "wb") as f:
        assert f.write(b"x" * 1000) == 1000
        with pytest.raises(Paused):
            f.write(bytes(_demo_files.STOP_AFTER))
    assert (tmp_path / "paused").exists()
    assert (tmp_path / "out.bin").stat().st_size == _demo_files.STOP_AFTER


def test_save_in_place_replaces_the_contents_as_torch_save_does(tmp_path):
    path = tmp_path / "a.pt"
    path.write_bytes(bytes(10_000))  # longer than what follows: emptied first
    _demo_files._save_in_place({"w": torch.ones(2)}, path)
    assert path.read_bytes() == saved({"w": torch.ones(2)})


def test_a_failed_save_leaves_the_old_file_and_no_temporary(tmp_path):
    latest = tmp_path / "latest.pt"
    save_atomically({"weight": torch.arange(6.0)}, str(latest))  # a str path works
    with pytest.raises((pickle.PicklingError, AttributeError)):
        save_atomically({"schedule": lambda step: 0.9**step}, latest)
    assert torch.equal(torch.load(latest, weights_only=True)["weight"], torch.arange(6.0))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest.pt"]


def test_mode_symlink_and_umask(tmp_path):
    fresh = tmp_path / "fresh.pt"
    save_atomically({"w": torch.ones(1)}, fresh)
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask  # not mkstemp's 0600

    fresh.chmod(0o600)
    save_atomically({"w": torch.zeros(1)}, fresh)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600

    (tmp_path / "best.pt").symlink_to("fresh.pt")
    save_atomically({"w": torch.full((1,), 7.0)}, tmp_path / "best.pt")
    assert (tmp_path / "best.pt").is_symlink()
    assert torch.load(fresh, weights_only=True)["w"].item() == 7.0


def test_sha256_of(tmp_path):
    data = os.urandom(3 * 2**20 + 5)  # more than one chunk
    (tmp_path / "f").write_bytes(data)
    assert checkpoint.sha256_of(tmp_path / "f") == hashlib.sha256(data).hexdigest()


# --- The loader ---------------------------------------------------------------------------------------


def test_every_file_of_the_table_gets_its_verdict_and_none_changes(tmp_path):
    torch.save({"model": {"w": torch.ones(3)}, "step": 12}, tmp_path / "run.pt")
    cases, marker = tmp_path / "cases", tmp_path / "marker.txt"
    verdicts = _demo_files.make_case_files(cases, tmp_path / "run.pt", marker)
    assert len(verdicts) == 46
    assert set(_demo_files.NEWEST_FIRST) <= set(verdicts)
    before = _demo_files.snapshot(cases)
    for name, expected in verdicts.items():
        state, reason = judge(cases / name)
        if expected == "loaded":
            assert reason is None, (name, reason)
            assert isinstance(state, dict) and state, name
        else:
            assert state is None and expected in reason, (name, reason)
            assert printable(reason).isprintable()
    assert _demo_files.snapshot(cases) == before
    assert not marker.exists(), "loading runs-code.pt ran its code"


def test_load_newest_valid_skips_what_it_refuses_and_escapes_names(tmp_path, capsys):
    (tmp_path / "new.pt\nloaded old.pt").write_bytes(b"\x1b[2Kforged")
    (tmp_path / "diverged.pt").write_bytes(saved({"w": torch.tensor([float("nan")])}))
    save_atomically({"w": torch.ones(2)}, tmp_path / "old.pt")
    names = ["new.pt\nloaded old.pt", "diverged.pt", "old.pt"]
    name, state = load_newest_valid([tmp_path / n for n in names])
    assert name == "old.pt" and torch.equal(state["w"], torch.ones(2))
    # each reason wrapped at 80 columns, continued on lines indented by 4
    assert capsys.readouterr().out.splitlines() == [
        r"skipping new.pt\nloaded old.pt: not a checkpoint: a text file, 10 bytes,",
        r"    starting '\x1b[2Kforged'",
        "skipping diverged.pt: w (float32 1) holds 1 NaN of its 1 values: every output it",
        "    touches is non-finite (a diverged run saved, or damaged bytes)",
        "loaded old.pt",
    ]
    with pytest.raises(FileNotFoundError, match="no usable checkpoint"):
        load_newest_valid([tmp_path / "diverged.pt", tmp_path / "missing.pt"])


def test_records_larger_than_the_file_are_refused(tmp_path):
    data = bytearray(saved({"w": torch.ones(4)}))
    # The storage's central directory entry claims 2 GiB.
    entry = data.index(b"PK\x01\x02")
    while not data[entry + 46 :].startswith(b"archive/data/0"):
        entry = data.index(b"PK\x01\x02", entry + 4)
    data[entry + 24 : entry + 28] = struct.pack("<I", 2**31 - 1)
    (tmp_path / "claims.pt").write_bytes(bytes(data))
    state, reason = judge(tmp_path / "claims.pt")
    assert state is None and reason


def test_the_limits_are_parameters_listed_among_the_refusals(tmp_path):
    big = saved({"w": torch.ones(5 * 2**18)}, _use_new_zipfile_serialization=False)
    (tmp_path / "big.pt").write_bytes(big)  # a 5 MiB legacy file: loads
    assert judge(tmp_path / "big.pt")[1] is None
    history = saved({"w": torch.ones(2), "losses": [0.5] * 10_000})  # 90 kB of pickle
    (tmp_path / "history.pt").write_bytes(history)
    assert judge(tmp_path / "history.pt")[1] is None
    state, reason = judge(tmp_path / "history.pt", pickle_limit=2**16)
    assert state is None and "pickle_limit=65,536" in reason
    views = saved({"v": [torch.arange(64.0)[i:] for i in range(64)]})
    (tmp_path / "views.pt").write_bytes(views)  # 64 distinct views of one storage
    assert judge(tmp_path / "views.pt")[1] is None
    assert "view_limit" in judge(tmp_path / "views.pt", view_limit=0.1)[1]


def test_crcs_on_off_and_zeroed(tmp_path):
    torch.serialization.set_crc32_options(False)
    try:
        (tmp_path / "off.pt").write_bytes(saved({"w": torch.arange(6.0)}))
    finally:
        torch.serialization.set_crc32_options(True)
    state, reason = judge(tmp_path / "off.pt")
    assert reason is None and torch.equal(state["w"], torch.arange(6.0))
    zeroed = _demo_files._zero_crc(saved({"w": torch.arange(6.0)}), "data/0")
    (tmp_path / "zeroed.pt").write_bytes(zeroed)
    assert "CRC 0 among records with a CRC-32" in judge(tmp_path / "zeroed.pt")[1]


def test_two_archives_in_one_file_are_refused(tmp_path):
    good = saved({"w": torch.arange(6.0)})
    bad = saved({"w": torch.full((6,), float("nan"))})
    path = tmp_path / "two.pt"
    path.write_bytes(_demo_files._two_archives(bad, good))
    with zipfile.ZipFile(path) as archive:  # zipfile sees the intact archive
        assert archive.testzip() is None
    assert torch.load(path, weights_only=True)["w"].isnan().all()  # torch the other
    assert "does not count" in judge(path)[1]


def test_a_sparse_gigabyte_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "hole.pt"
    with open(path, "wb") as f:
        f.truncate(2**30)
    start = time.process_time()
    assert "only zero bytes" in judge(path)[1]
    assert time.process_time() - start < 2
    path.unlink()


def test_a_file_that_changes_while_judged_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "growing.pt"
    path.write_bytes(saved({"w": torch.ones(2)}))
    real_load = checkpoint.load

    def load_then_append(p, fmt):
        state = real_load(p, fmt)
        with open(p, "ab") as f:
            f.write(b"more")
        return state

    monkeypatch.setattr(checkpoint, "load", load_then_append)
    assert judge(path) == (None, "changed while it was read")


def test_printable_escapes_what_could_forge_a_line():
    assert printable("a\nb\r\x1b[1Ac\tü") == r"a\nb\r\x1b[1Ac\tü"
    assert printable(3) == "3"


# --- The page and the package ---------------------------------------------------------------------


def _shape(node: ast.AST) -> str:
    """A definition's AST without its docstring; an assignment's value."""
    if isinstance(node, ast.Assign):
        return ast.dump(node.value)
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return ast.dump(ast.Module(body=body, type_ignores=[]))


def _definitions(source: str) -> dict[str, ast.AST]:
    """Top-level functions and single-name assignments of `source`, by name (the last one wins)."""
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            found[node.name] = node
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = node
    return found


def _page_definitions() -> dict[str, ast.AST]:
    """What the page's code cells define, outside the exercises' solution dropdowns."""
    found, in_solution = {}, False
    for cell in load_notebook(NOTEBOOK)["cells"]:
        text = "".join(cell["source"])
        if "{solution-start}" in text:
            in_solution = True
        elif "{solution-end}" in text:
            in_solution = False
        elif cell["cell_type"] == "code" and not in_solution:
            found.update(_definitions(text))
    return found


def _package_definitions() -> dict[str, ast.AST]:
    with open(checkpoint.__file__, encoding="utf-8") as f:
        return _definitions(f.read())


SHOWN_ON_THE_PAGE = [
    "fsync_directory",
    "save_atomically",
    "check_report",
    "load",
    "check_tensor",
    "check_contents",
    "judge",
    "load_newest_valid",
]


@pytest.mark.parametrize("name", SHOWN_ON_THE_PAGE)
def test_the_code_the_page_shows_is_the_packages(name):
    page, package = _page_definitions(), _package_definitions()
    assert name in page, f"the page no longer defines {name}: update SHOWN_ON_THE_PAGE"
    assert _shape(page[name]) == _shape(package[name]), f"{name}: the page's cell and inside_nn/checkpoint.py differ"


def test_the_page_defines_no_other_function_the_package_has():
    """What the page imports from the package, it does not also define."""
    page = _page_definitions()
    shadowed = (set(page) & set(checkpoint.__all__)) - set(SHOWN_ON_THE_PAGE)
    assert not shadowed, shadowed
