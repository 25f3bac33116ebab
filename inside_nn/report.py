"""The report types both inspectors share: a Finding (severity, kind, path, message, link to the book) and a
Report (the findings, most severe first, printed as a table that fits 80 columns).

inspect_module's report is a Report, and inspect_checkpoint's CheckpointReport is one too (its own first word,
its own path for "the whole file", its own closing sentence: the class attributes `subject`, `whole` and the
method `closing`). inspect_module.py is also chapter 8's one-file download, which needs only torch, so it holds
a copy of these definitions; in the package it uses these (one class for both inspectors).
tests/test_report.py checks that the copy is this text, definition by definition.
"""

import dataclasses
import textwrap

BOOK = "https://inside-nn-module.github.io/inside-nn-module/"
SEVERITIES = ("error", "warning", "note")


WIDTH = 80  # a report's lines fit an 80-column terminal; only a URL (or a path) longer than that overflows


def wrap(text: str, indent: str, first: str | None = None, width: int = WIDTH) -> list[str]:
    """`text` in lines of at most `width` characters, each starting with `indent` (the first with `first`
    when given). A word longer than a line, such as a URL or a path, is never cut: it stands on a line of
    its own, whole, so that it can still be copied or clicked."""
    first = indent if first is None else first
    return textwrap.wrap(
        text,
        width=width,
        initial_indent=first,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [first.rstrip()]


@dataclasses.dataclass(frozen=True)
class Finding:
    severity: str  # "error": wrong now; "warning": bites under a named operation; "note": worth knowing
    kind: str  # a key of SECTIONS
    path: str  # the module path ("" is the model itself), with the attribute name where there is one
    message: str  # what will happen
    link: str  # where the book explains it

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


class Report:
    """The findings, most severe first; `print(report)` shows a table, `report.findings` the data."""

    subject = "inspect_module"  # the report's first word
    whole = "(model)"  # the path of a finding about the model as a whole
    # What to do for the forward checks when no forward was run (the command line says its own way).
    forward_hint = "pass example_inputs (inspect_module(model, example_inputs)) to run them"

    def __init__(
        self,
        model_name: str,
        findings: list[Finding],
        buffers: list[dict],
        forward_run: bool = True,
    ):
        order = {s: i for i, s in enumerate(SEVERITIES)}
        self.model_name = model_name
        self.findings = sorted(findings, key=lambda f: (order[f.severity], f.kind, f.path))
        self.buffers = buffers  # one dict per buffer: path, persistent, dtype, shape, bytes
        self.forward_run = forward_run  # False: inspect_module had no example_inputs

    def __len__(self) -> int:
        return len(self.findings)

    def __iter__(self):
        return iter(self.findings)

    def kinds(self) -> set[str]:
        return {f.kind for f in self.findings}

    def of_kind(self, kind: str) -> list[Finding]:
        return [f for f in self.findings if f.kind == kind]

    def closing(self) -> list[str]:
        """Sentences printed after the findings: here, that the forward checks were skipped."""
        if self.forward_run:
            return []
        return [
            (
                "No forward was run, so the forward checks were skipped (what a forward "
                "changes: buffers, plain attributes, parameters, generators; whether it "
                f"runs in eval and train mode): {self.forward_hint}."
            )
        ]

    def __str__(self) -> str:
        counts = {s: sum(f.severity == s for f in self.findings) for s in SEVERITIES}
        head = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items())
        lines = wrap(f"{self.subject}({self.model_name}): {head}", " " * 4, first="")
        for f in self.findings:
            lines += wrap(
                f"{f.kind} · {f.path or self.whole}",
                " " * 8,
                first=f"{f.severity.upper():8}",
            )
            lines += wrap(f.message, " " * 8)
            lines.append(f"        see {f.link}")  # a URL is never cut
        for sentence in self.closing():
            lines += wrap(sentence, "")
        return "\n".join(lines)

    __repr__ = __str__
