#!/usr/bin/env bash
# One prepared run of the book on a CUDA GPU, sized for a short device lease (under 10 minutes on one GPU).
#
#   OUT=DIR bash tools/gpu_run.sh         strict nbval of every notebook with BOOK_DEVICE=cuda (one pytest per
#                                         notebook, in parallel), then chapter 6's measurements. Writes
#                                         DIR/gpu_ch6.json (device, torch, date, measurements, nbval per
#                                         notebook), DIR/nbval.json, DIR/nbval-cuda.xml and DIR/run.log. Exit 0 only if all passed.
#   bash tools/gpu_run.sh --fetch-wheels  on a machine with network and .venv: download into .whl/ the
#                                         (FETCH_DRY_RUN=1: only print what it would download)
#                                         notebook-testing wheels (Python 3.12, manylinux x86-64, pins from
#                                         requirements.txt) that a bare GPU image lacks, to carry along.
#
# Python: .venv if its torch sees a GPU; else python3 after installing the wheels carried in .whl/ (if any)
# into /tmp/gpu-site; else a new .venv-gpu from requirements.txt (needs network). torch is never installed
# from .whl: the machine's own CUDA build is used. To show the record in chapter 6, copy DIR/gpu_ch6.json to
# book/records/gpu_ch6.json and run `make execute NB=notebooks/06_gpus.ipynb`.
# To add the run to the verified record (book/records/, shown under each chapter title):
#   .venv/bin/python tools/record.py DIR/nbval-cuda.xml --mode strict --device cuda --env DIR/gpu_ch6.json
set -euo pipefail
cd "$(dirname "$0")/.."
NOTEBOOK_TIMEOUT="${NOTEBOOK_TIMEOUT:-300}"   # seconds for one notebook's nbval run
MEASURE_TIMEOUT="${MEASURE_TIMEOUT:-180}"     # seconds for chapter 6's measurements
# For a dry run of this script's own logic on a CPU machine: GPU_RUN_DEVICE=cpu GPU_RUN_NOTEBOOKS=notebooks/01_*.ipynb
GPU_RUN_DEVICE="${GPU_RUN_DEVICE:-cuda}"
GPU_RUN_NOTEBOOKS="${GPU_RUN_NOTEBOOKS:-notebooks/*.ipynb}"
PLATFORMS=(manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64
           manylinux1_x86_64)

fetch_wheels() {
    test -x .venv/bin/python || { echo "--fetch-wheels needs .venv (run 'make book' first)" >&2; exit 1; }
    # nbval and the Jupyter kernel with everything they need, at the versions pinned in .venv; pytest and
    # its plugins are left to the GPU image (this script loads only nbval's plugin).
    local specs
    specs=$(.venv/bin/python - <<'EOF'
import importlib.metadata as md
from packaging.requirements import Requirement
target = {"extra": "", "python_version": "3.12", "python_full_version": "3.12.3",
          "implementation_name": "cpython", "platform_python_implementation": "CPython",
          "sys_platform": "linux", "platform_system": "Linux", "os_name": "posix",
          "platform_machine": "x86_64"}
skip = {"pytest", "pluggy", "iniconfig"}
seen, todo = {}, ["nbval", "ipykernel", "nbformat", "jupyter-client"]
while todo:
    name = todo.pop().lower().replace("_", "-")
    if name in seen or name in skip:
        continue
    seen[name] = md.version(name)
    for line in md.requires(name) or []:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(target):
            todo.append(req.name)
print(" ".join(f"{n}=={v}" for n, v in sorted(seen.items())))
EOF
)
    mkdir -p .whl
    local flags=()
    for p in "${PLATFORMS[@]}"; do flags+=(--platform "$p"); done
    if [ -n "${FETCH_DRY_RUN:-}" ]; then echo "would download: $specs"; return; fi
    # shellcheck disable=SC2086
    .venv/bin/python -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp "${flags[@]}" -d .whl $specs
    echo "downloaded into .whl: $specs"
}

if [ "${1:-}" = "--fetch-wheels" ]; then
    fetch_wheels
    exit 0
fi

if [ "$GPU_RUN_DEVICE" = cuda ] && { ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; }; then
    echo "no CUDA device: tools/gpu_run.sh runs the book on a CUDA GPU, so nothing was run or recorded" >&2
    exit 2
fi

OUT="${OUT:-$PWD/gpu-run-out}"
mkdir -p "$OUT"
LOG="$OUT/run.log"
export GPU_RUN_DEVICE
: >"$LOG"
say() { echo "[gpu_run $(date -u +%H:%M:%S)] $*" | tee -a "$LOG"; }

stack_ok() {  # torch that sees a GPU, and what nbval needs to run a notebook
    timeout 120 "$1" -c 'import torch, nbval, ipykernel, nbformat, matplotlib, safetensors
import os; assert torch.cuda.is_available() or os.environ["GPU_RUN_DEVICE"] == "cpu"' >/dev/null 2>&1
}

PY=""
if [ -x .venv/bin/python ] && stack_ok .venv/bin/python; then
    PY=.venv/bin/python
else
    if compgen -G ".whl/*.whl" >/dev/null; then
        say "installing $(ls .whl/*.whl | wc -l) carried wheels into /tmp/gpu-site"
        python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target /tmp/gpu-site .whl/*.whl >>"$LOG" 2>&1
        export PYTHONPATH="/tmp/gpu-site${PYTHONPATH:+:$PYTHONPATH}"
    fi
    if stack_ok python3; then
        PY=python3
    else
        say "no ready Python: building .venv-gpu from requirements.txt (needs network)"
        python3 -m venv .venv-gpu
        timeout 900 .venv-gpu/bin/python -m pip install --quiet -r requirements.txt >>"$LOG" 2>&1
        PY=.venv-gpu/bin/python
        stack_ok "$PY" || { say "the new .venv-gpu has no working CUDA torch"; exit 1; }
    fi
fi
say "python: $PY; $("$PY" -c 'import torch; print("torch", torch.__version__, "on", torch.cuda.get_device_name() if torch.cuda.is_available() else "no GPU")')"

# Strict nbval, one pytest per notebook, all at once (16 cores, one GPU); only nbval's pytest plugin is loaded,
# so plugins of the image's pytest cannot interfere.
export BOOK_DEVICE="$GPU_RUN_DEVICE" PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 PYTHONUNBUFFERED=1
LOGS=$(mktemp -d)
declare -A PIDS=()
for nb in $GPU_RUN_NOTEBOOKS; do
    stem=$(basename "$nb" .ipynb)
    timeout "$NOTEBOOK_TIMEOUT" "$PY" -m pytest -q -p no:cacheprovider -p nbval.plugin --nbval "$nb" \
        --nbval-sanitize-with tests/sanitize.cfg --junitxml "$LOGS/$stem.xml" >"$LOGS/$stem.log" 2>&1 &
    PIDS[$stem]=$!
done
: >"$LOGS/results.tsv"
for stem in $(printf '%s\n' "${!PIDS[@]}" | sort); do
    rc=0
    wait "${PIDS[$stem]}" || rc=$?
    case $rc in 0) result=passed ;; 124 | 137) result="timed out after ${NOTEBOOK_TIMEOUT} s" ;; *) result=failed ;; esac
    summary=$(grep -E '(passed|failed|error)' "$LOGS/$stem.log" | tail -n 1 || true)
    printf '%s\t%s\t%s\n' "$stem" "$result" "$summary" >>"$LOGS/results.tsv"
    say "nbval $stem: $result ($summary)"
    { echo "===== $stem ($result)"; cat "$LOGS/$stem.log"; } >>"$LOG"
done
"$PY" - "$LOGS/results.tsv" "$OUT/nbval.json" <<'EOF'
import json, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
json.dump({stem: {"result": result, "summary": summary} for stem, result, summary in rows},
          open(sys.argv[2], "w"), indent=1)
EOF

measured=0
timeout "$MEASURE_TIMEOUT" "$PY" tools/gpu_measurements.py "$OUT/gpu_ch6.json" --nbval "$OUT/nbval.json" \
    2>&1 | tee -a "$LOG" || measured=$?
# One junit file for all notebooks (the device hands back at most 8 files), for tools/record.py.
"$PY" - "$OUT/nbval-cuda.xml" "$LOGS"/*.xml <<'MERGE' || true
import sys
import xml.etree.ElementTree as ET

merged = ET.Element("testsuites")
for path in sys.argv[2:]:
    root = ET.parse(path).getroot()
    merged.extend(root.iter("testsuite") if root.tag == "testsuites" else [root])
ET.ElementTree(merged).write(sys.argv[1], encoding="utf-8", xml_declaration=True)
MERGE
rm -rf "$LOGS"
if grep -q '"result": "passed"' "$OUT/nbval.json" && ! grep -q '"result": "\(failed\|timed out\)' "$OUT/nbval.json" \
    && [ "$measured" = 0 ]; then
    say "all notebooks passed strict nbval on CUDA; record in $OUT/gpu_ch6.json"
    exit 0
fi
say "something failed (measurements exit status $measured); see $LOG"
exit 1
