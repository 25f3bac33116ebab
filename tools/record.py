"""Turn an nbval run's junit XML into a verified record under book/records/.

    python tools/record.py RUN.xml --mode strict|lax [--device cuda] [--device-name "..."]
                           [--torch 2.13.0] [--python 3.11.9] [--env run.json] [--date YYYY-MM-DD]

One JSON file per environment (device, mode, torch release), e.g.
book/records/cpu-strict-torch-2.13.0.json. Each notebook's entry holds pass/fail, the failing
cells, seconds, and a hash of the notebook's cells (source, tags and stored outputs) as it was when
the run happened; tests/test_record.py fails once a notebook no longer matches its entry. A run of
some notebooks only updates their entries. Only the standard library is used, so any venv can run it.

Without options the environment is the one running this script: its torch (read from the installed
package, not imported), BOOK_DEVICE or else the device the notebooks' setup cell picks, and its
Python. For a run made elsewhere (a GPU machine), give what that machine had: `--device`,
`--device-name`, `--torch`, `--python`, or `--env FILE.json` holding those keys (top level or under
"environment"; "device_kind" or "kind" are taken for "device").
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
RECORDS = ROOT / "book" / "records"
ENV_KEYS = ("mode", "torch", "device", "device_name", "python", "date")
DEVICE_KINDS = {"cpu", "cuda", "mps", "xpu", "hpu", "npu", "xla", "meta"}
# Record files: <device>-<mode>-torch-<release>.json (other JSON in book/records/ is not a record).
RECORD_GLOB = "*-*-torch-*.json"


def notebook_hash(path: Path) -> str:
    """sha256 of what nbval checks: every cell's type, source and tags, and its stored outputs."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [
        {
            "type": cell["cell_type"],
            "source": "".join(cell.get("source", "")),
            "tags": sorted(cell.get("metadata", {}).get("tags", [])),
            "outputs": cell.get("outputs", []),
        }
        for cell in nb["cells"]
    ]
    blob = json.dumps(cells, sort_keys=True, ensure_ascii=True).encode()
    return hashlib.sha256(blob).hexdigest()


def record_name(env: dict) -> str:
    return f"{env['device']}-{env['mode']}-torch-{env['torch']}.json"


def release(version: str) -> str:
    """2.6.0+cu124 -> 2.6.0"""
    return version.split("+")[0]


def local_device() -> str:
    if os.environ.get("BOOK_DEVICE"):
        return os.environ["BOOK_DEVICE"].split(":")[0]
    probe = "import torch\na = torch.accelerator\nprint(a.current_accelerator().type if a.is_available() else 'cpu')\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def parse_results(path: Path) -> dict[str, dict]:
    """A summary without per-cell detail: {stem: {"result": "passed"|"failed"|...}} (nbval.json)."""
    runs = {}
    for stem, row in json.loads(path.read_text()).items():
        ok = str(row.get("result", "")).startswith("pass")
        runs[stem] = {"cells": None, "failed": [] if ok else ["?"], "seconds": None}
    return runs


def parse_junit(path: Path) -> dict[str, dict]:
    """Per notebook stem: cells run, failing cells, seconds."""
    if path.suffix == ".json":
        return parse_results(path)
    runs: dict[str, dict] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        match = re.search(r"([^./\\]+)\.ipynb$", case.get("classname", ""))
        if not match:
            continue
        run = runs.setdefault(match.group(1), {"cells": 0, "failed": [], "seconds": 0.0})
        run["cells"] += 1
        run["seconds"] += float(case.get("time", 0))
        if case.find("failure") is not None or case.find("error") is not None:
            run["failed"].append(case.get("name", "?"))
    return runs


def environment(args: argparse.Namespace) -> tuple[dict, str]:
    given: dict = {}
    if args.env:
        data = json.loads(Path(args.env).read_text())
        data = dict(data.get("environment", data))
        kind = data.get("device_kind") or data.get("kind")
        if data.get("device") and data["device"].split(":")[0] not in DEVICE_KINDS:
            # {"device": "NVIDIA H200", "cuda": "13.0"}: a device name, not a kind
            data.setdefault("device_name", data["device"])
            kind = kind or ("cuda" if data.get("cuda") else None)
            data["device"] = kind
        given = {k: str(data[k]) for k in ENV_KEYS if data.get(k) is not None}
    for key in ENV_KEYS:
        if getattr(args, key, None):
            given[key] = getattr(args, key)
    env = {
        "mode": given.get("mode"),
        "torch": release(given.get("torch") or metadata.version("torch")),
        "device": (given.get("device") or local_device()).split(":")[0],
    }
    # A run made elsewhere (--env) names its own Python; this machine's would be wrong.
    python = given.get("python") or (None if args.env else platform.python_version())
    if python:
        env["python"] = python
    if given.get("device_name"):
        env["device_name"] = given["device_name"]
    if env["mode"] not in {"strict", "lax"}:
        raise SystemExit("--mode must be strict or lax")
    date = given.get("date") or datetime.datetime.now(datetime.UTC).date().isoformat()
    return env, date[:10]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "junit",
        type=Path,
        nargs="+",
        help="junit XML of nbval runs (or an nbval.json summary)",
    )
    parser.add_argument("--mode", choices=["strict", "lax"])
    parser.add_argument("--device", help="cpu, cuda, mps, ... (default: this machine's)")
    parser.add_argument("--device-name", dest="device_name")
    parser.add_argument("--torch", help="the torch release the run used")
    parser.add_argument("--python")
    parser.add_argument("--date", help="YYYY-MM-DD (default: today, UTC)")
    parser.add_argument("--env", help="JSON file with the environment of a run made elsewhere")
    parser.add_argument("--records", type=Path, default=RECORDS)
    parser.add_argument("--notebooks", type=Path, default=NOTEBOOKS)
    args = parser.parse_args(argv)

    env, date = environment(args)
    runs = {}
    for path in args.junit:
        runs |= parse_junit(path)
    if not runs:
        raise SystemExit(f"{args.junit}: no notebook cells in these results")
    args.records.mkdir(parents=True, exist_ok=True)
    target = args.records / record_name(env)
    record = {"environment": env, "date": date, "notebooks": {}}
    if target.exists():
        record["notebooks"] = json.loads(target.read_text())["notebooks"]
    for stem, run in sorted(runs.items()):
        record["notebooks"][stem] = {
            "result": "fail" if run["failed"] else "pass",
            "cells": run["cells"],
            "failed_cells": run["failed"],
            "seconds": None if run["seconds"] is None else round(run["seconds"], 1),
            "date": date,
            "hash": notebook_hash(args.notebooks / f"{stem}.ipynb"),
        }
    record["notebooks"] = dict(sorted(record["notebooks"].items()))
    record["date"] = max(entry["date"] for entry in record["notebooks"].values())
    target.write_text(json.dumps(record, indent=1) + "\n")
    failed = sum(bool(r["failed"]) for r in runs.values())
    print(f"recorded {len(runs)} notebooks ({failed} failing) in {os.path.relpath(target)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
