"""The `inside-nn` command: the book's tools from a shell.

    inside-nn --version
    inside-nn inspect path/to/file.py:build_model [--inputs path/to/file.py:make_inputs]
    inside-nn checkpoint path/to/model.pt [--model path/to/file.py:build_model] [--scan all|BYTES]
    inside-nn checkpoint path/to/folder      (a torch.distributed.checkpoint save, a Hugging Face sharded one)
    inside-nn ddp path/to/file.py:build --inputs path/to/file.py:make_inputs [--ranks 2] [--steps 3]
                  [--loss path/to/file.py:loss] [--timeout S]

Each tool is a subcommand: a function `add_<name>(commands)` declares its arguments and sets `run`, the
function that does the work and returns the exit status.

Exit status of `inside-nn inspect`, `inside-nn checkpoint` and `inside-nn ddp`:

- 0: the report is printed and has no error-severity finding (warnings and notes do not count);
- 1: the report is printed and has at least one error, or the model (or its inputs) cannot be made or
  inspected, or the file cannot be opened (then one line on stderr says why, no traceback, and nothing on stdout);
  for `ddp`, a rank that cannot run the reader's code is that line (`inside-nn ddp: rank 1: ValueError: ...`),
  and so is a run past --timeout (every process it started is stopped);
- 2: wrong usage (argparse's message on stderr).

`inside-nn ddp` interrupted (Ctrl-C) stops its ranks, says so on stderr and exits 130.

`python inspect_module.py file.py:build_model`, the standalone download of chapter 8, prints the same report
and the same one-line errors; it exits 0 whenever the report is printed, whatever it finds.
"""

from __future__ import annotations

import argparse
import sys

from inside_nn import __version__


class _Stop(Exception):
    """The command cannot go on: `main` prints "inside-nn <command>: <message>" on stderr, exits 1."""


def _target(text: str) -> str:
    """argparse's check of a FILE:FUNCTION argument: without both parts it is wrong usage (exit 2)."""
    from inside_nn.inspect_module import split_target

    try:
        split_target(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not FILE:FUNCTION, e.g. my_model.py:build_model") from None
    return text


def _build_model(target: str):
    """The model FUNCTION in FILE returns, or _Stop with the builder's error in one line."""
    from inside_nn.inspect_module import load_model, one_line

    try:
        return load_model(target)
    except (Exception, SystemExit) as error:  # noqa: BLE001 (one clear line, not a traceback)
        raise _Stop(f"cannot build the model from {target}: {one_line(error)}") from None


def _print_report(report) -> int:
    """Print the report; the exit status by its severities (1 when any finding is an error)."""
    print(report)
    return 1 if any(f.severity == "error" for f in report.findings) else 0


def _inspect(args: argparse.Namespace) -> int:
    from inside_nn.inspect_module import inspect_module, load_inputs, one_line

    model = _build_model(args.target)
    inputs = None
    if args.inputs is not None:
        try:
            inputs = load_inputs(args.inputs)
        except (Exception, SystemExit) as error:  # noqa: BLE001 (one clear line, not a traceback)
            raise _Stop(f"cannot make the inputs from {args.inputs}: {one_line(error)}") from None
    try:
        report = inspect_module(model, inputs)
    except Exception as error:  # noqa: BLE001 (one clear line, not a traceback)
        raise _Stop(f"cannot inspect the model from {args.target}: {one_line(error)}") from None
    report.forward_hint = "add --inputs FILE:FUNCTION to run them"
    return _print_report(report)


def add_inspect(commands) -> None:
    inspect = commands.add_parser(
        "inspect",
        help="report what nn.Module, .to(), state_dict and DDP do with a model's state",
        description="Build the model that FUNCTION in FILE returns (called without arguments) and print "
        "chapter 8's report on it. With --inputs, also run one eval-mode and one train-mode forward on "
        "the inputs that function returns, under torch.no_grad(), and report the state they change (the "
        "model is restored afterwards). Exit status: 0 no error-severity finding, 1 errors found or the "
        "model or its inputs cannot be made, 2 wrong usage.",
    )
    inspect.add_argument(
        "target",
        metavar="FILE:FUNCTION",
        type=_target,
        help="path/to/file.py:build_model, called without arguments, returns the model",
    )
    inspect.add_argument(
        "--inputs",
        metavar="FILE:FUNCTION",
        type=_target,
        help="path/to/file.py:make_inputs, called without arguments, returns what the forward takes: "
        "a tensor (its one argument), a tuple (its positional arguments) or a dict (its keyword "
        "arguments)",
    )
    inspect.set_defaults(run=_inspect)


def _scan(text: str) -> int | None:
    """argparse's check of --scan: "all" (None, every byte) or a byte count, with an optional K, M, G or T
    (binary: 2 GiB is 2G)."""
    if text.strip().lower() == "all":
        return None
    units = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
    number = text.strip().lower().removesuffix("ib").removesuffix("b")
    scale = units.get(number[-1:], 1)
    try:
        value = float(number[:-1] if scale > 1 else number) * scale
    except ValueError:
        value = -1.0
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"{text!r} is not 'all' nor a number of bytes, e.g. 8G or 500000000")
    return int(value)


def _checkpoint(args: argparse.Namespace) -> int:
    import os

    from inside_nn.inspect_checkpoint import _special_file, inspect_checkpoint
    from inside_nn.inspect_module import one_line

    try:
        # A named pipe would block in open(): the report says what it is. A directory is listed, not opened.
        if _special_file(args.path) is None and not os.path.isdir(args.path):
            # a missing or unreadable path: one line, not a report
            with open(args.path, "rb"):
                pass
        elif os.path.isdir(args.path):
            os.listdir(args.path)
    except OSError as error:
        raise _Stop(f"cannot read {args.path}: {error.strerror or one_line(error)}") from None
    model = None if args.model is None else _build_model(args.model)
    try:
        report = inspect_checkpoint(os.fspath(args.path), model, scan_bytes=args.scan)
    except Exception as error:  # noqa: BLE001 (one clear line, not a traceback)
        raise _Stop(f"cannot inspect {args.path}: {one_line(error)}") from None
    return _print_report(report)


def add_checkpoint(commands) -> None:
    checkpoint = commands.add_parser(
        "checkpoint",
        help="report what torch.load and load_state_dict will do with a checkpoint file, before they do it",
        description="Read PATH (torch.save zip or legacy file, or safetensors; or a directory: a "
        "torch.distributed.checkpoint save, a Hugging Face sharded one) without running code from "
        "it and print what it holds and what is wrong with it; with --model, also what loading it into "
        "that model would do. Exit status: 0 no error-severity finding, 1 errors found or the file or "
        "model cannot be read, 2 wrong usage.",
    )
    checkpoint.add_argument("path", metavar="PATH", help="the checkpoint file or directory")
    checkpoint.add_argument(
        "--model",
        metavar="FILE:FUNCTION",
        type=_target,
        help="path/to/file.py:build_model, the model the file is meant for",
    )
    checkpoint.add_argument(
        "--scan",
        metavar="all|BYTES",
        type=_scan,
        default="2G",  # inspect_checkpoint's SCAN_BYTES
        help="how many tensor bytes to read for CRCs and NaN/inf counts: 'all' for every byte, or a number "
        "such as 8G (default 2G: past it, a damaged value goes unnoticed and a note says what was not read)",
    )
    checkpoint.set_defaults(run=_checkpoint)


def _positive(kind: type, least):
    """argparse's check of a number of at least `least`."""

    def check(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not value >= least:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of at least {least}")
        return value

    return check


def _ddp(args: argparse.Namespace) -> int:
    import os

    from inside_nn.ddp_check import RankError, check_ddp
    from inside_nn.inspect_module import one_line, split_target

    for target in filter(None, (args.target, args.inputs, args.loss)):
        path = split_target(target)[0]
        if not os.path.isfile(path):
            raise _Stop(f"cannot read {target}: no such file: {path}")
    try:
        report = check_ddp(args.target, args.inputs, args.loss, args.ranks, args.steps, args.timeout)
    except RankError as error:
        raise _Stop(str(error)) from None
    except KeyboardInterrupt:
        print("inside-nn ddp: interrupted; the ranks were stopped", file=sys.stderr)
        return 130
    except TimeoutError as error:  # the launcher's: the ranks took longer than --timeout
        raise _Stop(str(error)) from None
    except RuntimeError as error:  # the launcher's: a rank died outside the reader's code
        raise _Stop(one_line(error)) from None
    return _print_report(report)


def add_ddp(commands) -> None:
    ddp = commands.add_parser(
        "ddp",
        help="run a model under DistributedDataParallel on CPU ranks and report what differs between them",
        description="Start RANKS processes (torchrun, gloo on the CPU); on each, build the model FUNCTION in "
        "FILE returns, wrap it in DistributedDataParallel, train it STEPS SGD steps on the batch "
        "make_inputs(rank) returns, run one eval forward, and report what the ranks observed: state that "
        "differs between ranks, parameters without gradients, the buffers DDP broadcasts, and whether a "
        "forward on rank 0 alone hangs (chapter 7). Exit status: 0 no error-severity finding, 1 errors found "
        "or a rank cannot run the model, 2 wrong usage.",
    )
    ddp.add_argument(
        "target",
        metavar="FILE:FUNCTION",
        type=_target,
        help="path/to/file.py:build_model, called without arguments on every rank, returns the model",
    )
    ddp.add_argument(
        "--inputs",
        metavar="FILE:FUNCTION",
        type=_target,
        required=True,
        help="path/to/file.py:make_inputs, called with the rank, returns the batch: a tensor (the forward's "
        "one argument), a tuple (its positional arguments) or a dict (its keyword arguments)",
    )
    ddp.add_argument(
        "--loss",
        metavar="FILE:FUNCTION",
        type=_target,
        help="path/to/file.py:loss, called as loss(output, inputs), returns the scalar to backward (default: "
        "the sum of the means of every floating tensor in the output)",
    )
    ddp.add_argument("--ranks", type=_positive(int, 2), default=2, help="how many ranks (default 2)")
    ddp.add_argument("--steps", type=_positive(int, 1), default=3, help="how many SGD steps (default 3)")
    ddp.add_argument(
        "--timeout",
        metavar="S",
        type=_positive(float, 1),
        default=120.0,
        help="seconds the ranks may take once started (default 120); past it, every process is stopped",
    )
    ddp.set_defaults(run=_ddp)


SUBCOMMANDS = [add_inspect, add_checkpoint, add_ddp]


def parser() -> argparse.ArgumentParser:
    main_parser = argparse.ArgumentParser(
        prog="inside-nn",
        description="The tools of the book Inside nn.Module, run on your own models and files.",
    )
    main_parser.add_argument("--version", action="version", version=f"inside-nn {__version__}")
    commands = main_parser.add_subparsers(dest="command", required=True)
    for add in SUBCOMMANDS:
        add(commands)
    return main_parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        status = args.run(args)
        sys.stdout.flush()
    except _Stop as stop:
        print(f"inside-nn {args.command}: {stop}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader piped the report into `head` (or similar), which closed the pipe: no traceback.
        # Point stdout at devnull so that the interpreter's final flush does not raise again.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
