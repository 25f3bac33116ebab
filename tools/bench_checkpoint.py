"""Time and peak memory of `inside-nn checkpoint` next to a plain `torch.load`, on two large files (issue 37).

    python tools/bench_checkpoint.py            # both files, written to a temporary folder and removed after
    python tools/bench_checkpoint.py --only many

The files: a state dict of 50,000 small tensors (a deep model's worth of names: 10,000 blocks of five), and
one of 4 GiB (sixteen float32 tensors of 256 MiB). Each command runs in a fresh process under /usr/bin/time,
which reports the wall time and the peak resident memory; torch.load runs with weights_only=True, once
reading everything (map_location="cpu") and once with mmap=True (what a reader who only looks would use).
`inside-nn checkpoint` runs with its default scan budget and with --scan all, and with --model for the
50,000-tensor file (the model's own load run on a meta copy). Nothing here is a test: the figures go in the
issue's note, and depend on the machine and its disk cache (each file is read once before the timings).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import torch

BIN = Path(sys.executable).parent
MODEL_SOURCE = """
import torch
from torch import nn


def build():
    blocks = nn.ModuleList(nn.Sequential(nn.Linear(2, 2), nn.LayerNorm(2), nn.Linear(2, 1, bias=False)) for _ in range(10_000))
    return nn.ModuleDict({"blocks": blocks})
"""


def write_many(folder: Path) -> Path:
    """50,000 tensors: blocks.{i}.0.weight/bias, .1.weight/bias, .2.weight for 10,000 blocks."""
    namespace: dict = {}
    exec(MODEL_SOURCE, namespace)  # noqa: S102 (the model file this script writes itself)
    state = namespace["build"]().state_dict()
    assert len(state) == 50_000
    path = folder / "many.pt"
    torch.save(state, path)
    (folder / "many_model.py").write_text(MODEL_SOURCE)
    return path


def write_big(folder: Path) -> Path:
    """4 GiB: sixteen float32 tensors of 64 Mi elements each, filled with a cheap deterministic pattern."""
    chunk = 64 * 2**20
    state = {f"layers.{i}.weight": torch.full((chunk,), float(i)) for i in range(16)}
    path = folder / "big.pt"
    torch.save(state, path)
    return path


def timed(argv: list[str], cwd: Path) -> tuple[float, float, int]:
    """(wall seconds, peak resident MiB, exit status) of one fresh process."""
    done = subprocess.run(["/usr/bin/time", "-f", "%e %M", *argv], cwd=cwd, capture_output=True, text=True, check=False)
    wall, peak_kib = re.findall(r"([\d.]+) (\d+)\s*$", done.stderr)[-1]
    return float(wall), int(peak_kib) / 1024, done.returncode


def rows(path: Path, with_model: bool) -> list[tuple[str, list[str]]]:
    load = "import sys, torch; torch.load(sys.argv[1], weights_only=True, {})"
    out = [
        ("torch.load(weights_only=True)", [str(BIN / "python"), "-c", load.format('map_location="cpu"'), path.name]),
        ("torch.load(weights_only=True, mmap=True)", [str(BIN / "python"), "-c", load.format("mmap=True"), path.name]),
        ("inside-nn checkpoint", [str(BIN / "inside-nn"), "checkpoint", path.name]),
        ("inside-nn checkpoint --scan all", [str(BIN / "inside-nn"), "checkpoint", path.name, "--scan", "all"]),
    ]
    if with_model:
        build_and_load = (
            "import sys, torch, many_model; model = many_model.build(); "
            "model.load_state_dict(torch.load(sys.argv[1], weights_only=True))"
        )
        out.append(("build + torch.load + load_state_dict", [str(BIN / "python"), "-c", build_and_load, path.name]))
        out.append(
            (
                "inside-nn checkpoint --model",
                [str(BIN / "inside-nn"), "checkpoint", path.name, "--model", "many_model.py:build"],
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["many", "big"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, write in (("many", write_many), ("big", write_big)):
            if args.only not in (None, name):
                continue
            path = write(folder)
            with path.open("rb") as f:  # into the disk cache, so that every command starts alike
                while f.read(64 * 2**20):
                    pass
            print(f"\n{path.name}: {path.stat().st_size / 2**20:,.0f} MiB")
            for label, argv in rows(path, with_model=name == "many"):
                wall, peak, status = timed(argv, folder)
                print(textwrap.shorten(f"  {label:<42} {wall:7.1f} s {peak:8.0f} MiB  exit {status}", 80))


if __name__ == "__main__":
    main()
