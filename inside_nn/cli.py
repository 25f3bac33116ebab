"""The `inside-nn` command: the book's tools from a shell.

inside-nn inspect path/to/file.py:build_model
"""

from __future__ import annotations

import argparse
import sys

from inside_nn import __version__


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="inside-nn",
        description="The tools of the book Inside nn.Module, run on your own models and files.",
    )
    parser.add_argument(
        "--version", action="version", version=f"inside-nn {__version__}"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    inspect = commands.add_parser(
        "inspect",
        help="report what nn.Module, .to(), state_dict and DDP do with a model's state",
    )
    inspect.add_argument("target", help="path/to/file.py:build_model")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.command == "inspect":
        from inside_nn.inspect_module import main as inspect_main

        return inspect_main([args.target])
    return 2  # pragma: no cover (argparse rejects other commands)


if __name__ == "__main__":
    raise SystemExit(main())
