"""The report types both inspectors share live in `inside_nn/report.py`; `inside_nn/inspect_module.py`, chapter
8's one-file download, holds a copy of them so that it needs nothing but torch. The copy must be the same text,
definition by definition, and in the package both inspectors must use one set of classes."""

import ast
import functools
from pathlib import Path

import pytest

from inside_nn import inspect_checkpoint, inspect_module, report

ROOT = Path(__file__).resolve().parent.parent
SHARED = ("BOOK", "SEVERITIES", "WIDTH", "wrap", "Finding", "Report")


@functools.cache
def _definitions(path: Path) -> dict[str, str]:
    """The source text of each shared top-level definition (class, function, assignment) of a module, by
    name (parsed once per module: `ast.get_source_segment` walks the text from its start)."""
    text = path.read_text(encoding="utf-8")
    out = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names = [node.name]
        elif isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        else:
            continue
        for name in set(names) & set(SHARED):
            out[name] = ast.get_source_segment(text, node)
    return out


@pytest.mark.parametrize("name", SHARED)
def test_the_download_holds_the_shared_definition_word_for_word(name):
    shared = _definitions(ROOT / "inside_nn" / "report.py")
    copy = _definitions(ROOT / "inside_nn" / "inspect_module.py")
    assert name in shared and name in copy
    assert copy[name] == shared[name]


def test_both_inspectors_use_one_set_of_report_types():
    for name in SHARED:
        assert getattr(inspect_module, name) is getattr(report, name)
    assert issubclass(inspect_checkpoint.CheckpointReport, report.Report)
