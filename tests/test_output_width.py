"""Every code output fits its box without a browser: the rule tests/test_site_width.py checks on the site.

The text column holds 86 monospace characters at 1366 px, so no line of a stored code output may be longer,
except a line that is only a URL (a report's `see https://...`): a URL is never cut, and the page wraps it.
Two kinds of output are the page's to wrap, not the notebook's: a checker's one-sentence result (cells
tagged exercise-check) and an error's one-line message, both prose that book.css wraps in their box.

The inspectors' reports are held to 80 columns, an 80-column terminal, on every model of the zoo by
tests/test_inspect_zoo.py, which builds those reports anyway.
"""

from __future__ import annotations

import re

import pytest
from conftest import load_notebook, real_notebook_paths

from inside_nn.inspect_module import WIDTH, wrap

COLUMN = 86  # monospace characters the output box holds at 1366 px
URL_LINE = re.compile(r"^\s*(see )?https?://\S+$")


def too_wide(text: str, width: int) -> list[str]:
    return [line for line in text.splitlines() if len(line) > width and not URL_LINE.match(line)]


def output_texts(cell: dict) -> list[str]:
    """The text a code cell's outputs show, consecutive stream pieces joined (the page shows them as one)."""
    texts, stream = [], None
    for output in cell.get("outputs", []):
        kind = output["output_type"]
        if kind == "stream":
            if stream is not None and stream[0] == output["name"]:
                stream[1].append("".join(output["text"]))
                continue
            stream = (output["name"], ["".join(output["text"])])
            texts.append(stream[1])
            continue
        stream = None
        data = output.get("data", {})
        if kind != "error" and "text/plain" in data and not {"text/html", "image/png"} & set(data):
            texts.append(["".join(data["text/plain"])])
    return ["".join(parts) for parts in texts]


def wide_outputs(nb: dict) -> list[tuple[str, str]]:
    found = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        if "exercise-check" in cell.get("metadata", {}).get("tags", []):
            continue
        for text in output_texts(cell):
            found += [(cell.get("id", "?"), line) for line in too_wide(text, COLUMN)]
    return found


@pytest.mark.parametrize("path", real_notebook_paths(), ids=lambda p: p.stem)
def test_every_stored_output_line_fits_the_column(path):
    wide = wide_outputs(load_notebook(path))
    assert wide == [], f"{len(wide)} line(s) over {COLUMN} characters: {wide[:5]}"


def test_the_width_check_sees_a_wide_line_and_lets_a_url_through():
    long = "x" * (COLUMN + 1)
    url = "        see https://inside-nn-module.github.io/" + "a" * 100
    cell = {
        "cell_type": "code",
        "id": "c",
        "metadata": {},
        "outputs": [
            {"output_type": "stream", "name": "stdout", "text": ["short, then "]},
            {"output_type": "stream", "name": "stdout", "text": [long[:50]]},
            {
                "output_type": "stream",
                "name": "stdout",
                "text": [long[50:] + "\n" + url],
            },
        ],
    }
    assert wide_outputs({"cells": [cell]}) == [("c", "short, then " + long)]
    cell["metadata"]["tags"] = ["exercise-check"]
    assert wide_outputs({"cells": [cell]}) == []


def test_wrap_keeps_a_url_whole_and_indents_what_follows():
    lines = wrap("word " * 30 + "https://example.org/" + "a" * 90 + " end", "    ")
    assert all(len(line) <= WIDTH or URL_LINE.match(line) for line in lines)
    assert "    https://example.org/" + "a" * 90 in lines
    assert all(line.startswith("    ") for line in lines)
