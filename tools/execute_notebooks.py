"""Execute notebooks in place and normalise them so that diffs stay small.

Used by ``make execute``. Each notebook runs in a fresh kernel with the notebook's
folder as working directory. After execution the script:

* joins stream chunks that the kernel split at random;
* drops per-cell execution timestamps and volatile notebook metadata;
* shortens every traceback to its last line (``Name: message``), so stored error
  outputs show what a reader meets without machine paths;
* prints how long each notebook took.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

KERNEL_METADATA = {
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python", "pygments_lexer": "ipython3"},
}


def merge_streams(outputs: list) -> list:
    """Join consecutive stdout (or stderr) chunks, which the kernel splits at random."""
    merged = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            previous is not None
            and output.output_type == "stream"
            and previous.output_type == "stream"
            and previous.name == output.name
        ):
            previous.text += output.text
        else:
            merged.append(output)
    return merged


def normalise(nb: nbformat.NotebookNode) -> None:
    keep = {key: nb.metadata[key] for key in ("book", "colab") if key in nb.metadata}
    nb.metadata = nbformat.from_dict({**KERNEL_METADATA, **keep})
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("collapsed", None)
        if cell.cell_type != "code":
            continue
        cell.outputs = merge_streams(cell.get("outputs", []))
        for output in cell.outputs:
            output.get("metadata", {}).pop("execution", None)
            if output.output_type == "error":
                output.traceback = [f"{output.ename}: {output.evalue}"]


def run(nb: nbformat.NotebookNode, path: Path, timeout: int) -> float:
    """Execute `nb` (read from `path`) in a fresh kernel, in place; return the seconds it took."""
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


def execute(path: Path, timeout: int) -> float:
    nb = nbformat.read(path, as_version=4)
    env_device = os.environ.get("BOOK_DEVICE")
    if env_device:
        print(f"note: BOOK_DEVICE={env_device} is set; stored outputs should come from CPU runs")
    elapsed = run(nb, path, timeout)
    normalise(nb)
    nbformat.write(nb, path)
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    args = parser.parse_args()
    for path in args.notebooks:
        elapsed = execute(path, args.timeout)
        print(f"{path}: executed in {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
