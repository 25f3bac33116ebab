"""Print the package's line coverage from the structure tests, and fail under the floor.

    python tools/coverage_total.py _build/coverage/coverage.json [--fail-under 90]

`make checks` runs the structure tests under SlipCover (configured in pyproject.toml's
[tool.slipcover]), which writes this JSON. Prints one line, "[coverage] inside_nn line
coverage: 93.9 %"; under the floor it also prints every file that misses lines, with them, and
exits 1.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def ranges(lines: list[int]) -> str:
    """[1, 2, 3, 7] -> "1-3, 7"."""
    out: list[str] = []
    for line in sorted(lines):
        if out and out[-1].split("-")[-1] == str(line - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{line}"
        else:
            out.append(str(line))
    return ", ".join(out)


def main(argv: list[str]) -> int:
    data = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    floor = float(argv[argv.index("--fail-under") + 1]) if "--fail-under" in argv else 0.0
    percent = data["summary"]["percent_covered"]
    print(f"[coverage] inside_nn line coverage: {percent:.1f} %", flush=True)
    if percent >= floor:
        return 0
    print(f"under the floor of {floor:.0f} %; the lines no structure test ran:")
    for name, entry in sorted(data["files"].items()):
        if entry["missing_lines"]:
            print(f"  {name} {entry['summary']['percent_covered']:.0f} %: {ranges(entry['missing_lines'])}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
