"""The book's code within sizes a newcomer can hold (run by `make lint`; complexity is ruff's C901).

    python tools/shape.py [PATH ...]     # default: inside_nn, tools, book/_ext, tests

Limits: a module at most 1,000 lines (inside_nn/inspect_module.py, which readers download as one file,
1,500), a class at most 500 lines, a function at most 100 lines. tests/exercise_cases/ is exempt from
the module limit: each file is a table of readers' answers as source text, one chapter per file.
Exit status 1 and one line per excess.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ["inside_nn", "tools", "book/_ext", "tests"]
MODULE_LINES, CLASS_LINES, FUNCTION_LINES = 1000, 500, 100
MODULE_EXCEPTIONS = {"inside_nn/inspect_module.py": 1500}
NO_MODULE_LIMIT = ("tests/exercise_cases/",)


def excesses(path: Path, name: str) -> list[str]:
    """What in one file is over its limit, as 'file:line: what (n lines > limit)'."""
    text = path.read_text(encoding="utf-8")
    found = []
    lines = len(text.splitlines())
    limit = MODULE_EXCEPTIONS.get(name, MODULE_LINES)
    if lines > limit and not name.startswith(NO_MODULE_LIMIT):
        found.append(f"{name}:1: module ({lines} lines > {limit})")
    for node in ast.walk(ast.parse(text, filename=name)):
        if isinstance(node, ast.ClassDef):
            kind, limit = "class", CLASS_LINES
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            kind, limit = "function", FUNCTION_LINES
        else:
            continue
        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
        size = node.end_lineno - start + 1
        if size > limit:
            found.append(f"{name}:{node.lineno}: {kind} {node.name} ({size} lines > {limit})")
    return found


def main(argv: list[str]) -> int:
    found = []
    for arg in argv or DEFAULT:
        base = (ROOT / arg) if not Path(arg).is_absolute() else Path(arg)
        files = [base] if base.is_file() else sorted(base.rglob("*.py"))
        for path in files:
            if "__pycache__" in path.parts or "vendor" in path.parts:
                continue
            name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
            found += excesses(path, name)
    print("\n".join(found) or "shape: every module, class and function within its limit")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
