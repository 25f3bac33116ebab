"""Chapter 6's measurements on a CUDA GPU, written as the JSON record that the chapter shows.

Run by tools/gpu_run.sh; by hand: ``python tools/gpu_measurements.py OUT.json [--nbval NBVAL.json]``.
It measures what chapter 6 teaches (launch vs finish, the ``.item()`` stall, pageable vs pinned
copies, event timing, small-operation overhead) with the chapter's own methods, and records the
device name, torch release and date with them. Without a CUDA device it exits with status 2 and one
line saying so: a figure from another device is never recorded.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path

import torch
from torch.utils import benchmark


def seconds_per_call(fn, blocks: int = 10, block_time: float = 0.005) -> float:
    """The chapter's helper: the fastest of several blocks timed by torch.utils.benchmark."""
    timer = benchmark.Timer(stmt="fn()", globals={"fn": fn})
    first_call = timer.timeit(1).mean
    number = max(1, int(block_time / first_call))
    return min(timer.timeit(number).mean for _ in range(blocks))


def launch_vs_finish(device: torch.device, size: int = 4096) -> dict[str, float]:
    big = torch.randn(size, size).to(device)
    returned, finished, on_device = [], [], []
    for _ in range(6):  # the first round is a warm-up
        torch.cuda.synchronize(device)
        start_event = torch.cuda.Event(enable_timing=True)
        end_event = torch.cuda.Event(enable_timing=True)
        start = time.perf_counter()
        start_event.record()
        big @ big
        end_event.record()
        returned.append(time.perf_counter() - start)
        torch.cuda.synchronize(device)
        finished.append(time.perf_counter() - start)
        on_device.append(start_event.elapsed_time(end_event) / 1e3)
    return {
        "returned": min(returned[1:]),
        "finished": min(finished[1:]),
        "events": min(on_device[1:]),
    }


def item_stall(device: torch.device, num_steps: int = 100) -> tuple[float, float]:
    features = torch.randn(256, 32).to(device)
    weights = torch.randn(32, 1).to(device)

    def log_with_item():
        return [(features @ weights).square().mean().item() for _ in range(num_steps)]

    def log_on_device():
        loss_log = torch.empty(num_steps, device=device)
        for step in range(num_steps):
            loss_log[step] = (features @ weights).square().mean()
        return loss_log.tolist()

    return seconds_per_call(log_with_item), seconds_per_call(log_on_device)


def copies(device: torch.device, mebibytes: int = 16) -> tuple[float, float, float]:
    """GB/s of a pageable blocking copy, a pinned blocking copy and a pinned non_blocking copy: one
    change at a time, so the memory and the flag are measured apart."""
    host = torch.randn(mebibytes * 2**18)  # float32: 4 bytes each
    target = torch.empty_like(host, device=device)
    pinned_host = host.pin_memory()

    def rate(copy) -> float:
        return host.nbytes / seconds_per_call(copy) / 1e9

    return (
        rate(lambda: target.copy_(host)),
        rate(lambda: target.copy_(pinned_host)),
        rate(lambda: target.copy_(pinned_host, non_blocking=True)),
    )


def small_ops(device: torch.device, k: int = 256) -> tuple[float, float]:
    rows = [torch.randn(64).to(device) for _ in range(k)]
    stacked = torch.stack(rows)
    loop = seconds_per_call(lambda: [row * 2.0 + 1.0 for row in rows])
    batched = seconds_per_call(lambda: stacked * 2.0 + 1.0)
    return loop, batched


def measure(device: torch.device) -> list[dict]:
    torch.manual_seed(0)
    matmul = launch_vs_finish(device)
    with_item, on_device = item_stall(device)
    pageable, pinned_blocking, pinned = copies(device)
    loop, batched = small_ops(device)
    rows = [
        ("4096x4096 float32 product: @ returned after", matmul["returned"] * 1e3, "ms"),
        (
            "4096x4096 float32 product: result ready after",
            matmul["finished"] * 1e3,
            "ms",
        ),
        (
            "4096x4096 float32 product: device time (events)",
            matmul["events"] * 1e3,
            "ms",
        ),
        ("100 steps, .item() every step", with_item * 1e3, "ms"),
        ("100 steps, loss log on the device", on_device * 1e3, "ms"),
        (".item() every step / log on the device", with_item / on_device, "x"),
        ("16 MiB host-to-device copy, pageable", pageable, "GB/s"),
        ("16 MiB host-to-device copy, pinned, blocking", pinned_blocking, "GB/s"),
        ("16 MiB host-to-device copy, pinned, non_blocking", pinned, "GB/s"),
        ("256 rows: loop of 512 small operations", loop * 1e6, "µs"),
        ("256 rows: one batched operation", batched * 1e6, "µs"),
    ]
    return [{"what": what, "value": float(value), "unit": unit} for what, value, unit in rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="where to write the JSON record")
    parser.add_argument("--nbval", type=Path, help="JSON of per-notebook nbval results to include")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print(
            "no CUDA device: chapter 6's GPU measurements need one, so nothing was recorded",
            file=sys.stderr,
        )
        return 2
    device = torch.device("cuda")
    record = {
        "device": torch.cuda.get_device_name(device),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "measurements": measure(device),
    }
    if args.nbval and args.nbval.exists():
        record["nbval"] = json.loads(args.nbval.read_text())
    args.out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    for row in record["measurements"]:
        print(f"{row['what']:<50} {row['value']:>9.3g} {row['unit']}")
    print(f"recorded on {record['device']}, torch {record['torch']}: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
