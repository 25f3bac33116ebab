"""The Korean edition: generated from the English notebooks plus a per-cell translation store.

Only prose is translated. Code cells and their stored outputs are copied from the English
notebooks unchanged, so the Korean edition runs and prints exactly what CI verified.

The store is one YAML file per chapter, ``book/ko/translations/<chapter>.yml``: a list of
entries, each naming the English cell it translates (by its nbformat cell id), what is
translated (``markdown`` for a prose cell, ``caption`` for a figure caption in a code cell's
metadata), the SHA-256 of the English text it was made from, and the Korean text. When an
English cell changes, its hash no longer matches and the translation counts as stale until it is
updated (``tests/test_korean.py`` names the chapter and cell).

Commands (run with the venv's Python, from the repository root):

* ``build``   write ``notebooks/ko/*.ipynb`` and the Korean book's config and toc under ``_build/ko``;
* ``publish`` copy the built Korean site into ``_build/html/ko``;
* ``status``  per chapter: prose cells and captions, how many are translated and current;
* ``pending CHAPTER`` print, as YAML, the entries a translator has to write or update;
* ``figures`` redraw the figures of :data:`FIGURES` with Korean labels into ``book/ko/figures``.

One exception to "outputs are copied unchanged": the figures listed in :data:`FIGURES`. Their text
(titles, axis labels, legends) is English pixels in a PNG, so the Korean notebook shows, in place of
that one PNG output, an SVG of the same figure drawn with Korean labels (``book/ko/figures``, made by
``figures`` from data that it regenerates, and checked to reproduce the English PNG). The SVG's text
is text, which the reader's own Hangul font renders, like the rest of the Korean pages (nothing is
downloaded). Each SVG records the SHA-256 of the English PNG it was made from; when the English
figure changes, the Korean notebook keeps the English PNG and the tests name the figure until it is
redrawn.
"""

from __future__ import annotations

import argparse
import ast
import base64
import copy
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
EN_NOTEBOOKS = ROOT / "notebooks"
KO_NOTEBOOKS = EN_NOTEBOOKS / "ko"
KO_BOOK = ROOT / "book" / "ko"
STORE = KO_BOOK / "translations"
KO_BUILD = ROOT / "_build" / "ko"
# English pages translated as whole files: book/ko/<name>.md records the hash of book/<name>.md.
PAGES = ["intro", "bibliography", "status"]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def source(cell: dict) -> str:
    text = cell["source"]
    return text if isinstance(text, str) else "".join(text)


def caption_of(cell: dict) -> str | None:
    return cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("caption")


def english_units(nb: dict) -> list[dict]:
    """Everything in an English notebook that needs a translation, in reading order."""
    units = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "markdown" and source(cell).strip():
            units.append(
                {
                    "cell": cell["id"],
                    "kind": "markdown",
                    "index": index,
                    "en": source(cell),
                }
            )
        elif cell["cell_type"] == "code" and caption_of(cell):
            units.append(
                {
                    "cell": cell["id"],
                    "kind": "caption",
                    "index": index,
                    "en": caption_of(cell),
                }
            )
    return units


def chapters() -> list[str]:
    return sorted(p.stem for p in EN_NOTEBOOKS.glob("*.ipynb"))


def load_store(chapter: str) -> list[dict]:
    path = STORE / f"{chapter}.yml"
    if not path.exists():
        return []
    return yaml.safe_load(path.read_text(encoding="utf-8")) or []


def load_english(chapter: str) -> dict:
    return json.loads((EN_NOTEBOOKS / f"{chapter}.ipynb").read_text(encoding="utf-8"))


def audit(chapter: str, nb: dict | None = None, store: list[dict] | None = None) -> dict:
    """Which units of a chapter are current, stale or missing, and which entries are orphans."""
    nb = load_english(chapter) if nb is None else nb
    store = load_store(chapter) if store is None else store
    entries = {(e["cell"], e["kind"]): e for e in store}
    report = {"units": [], "current": [], "stale": [], "missing": [], "orphans": []}
    for unit in english_units(nb):
        report["units"].append(unit)
        entry = entries.pop((unit["cell"], unit["kind"]), None)
        if entry is None:
            report["missing"].append(unit)
        elif entry["en_sha256"] != digest(unit["en"]):
            report["stale"].append(unit)
        else:
            report["current"].append(unit)
    report["orphans"] = list(entries.values())
    return report


# The exercise checkers print English (their code is the English code, byte for byte). One line under
# every Korean exercises heading, in a chapter that has checkers, says what their lines mean.
EXERCISES_HEADING = "## 연습 문제"
CHECKER_NOTE = (
    "확인 셀의 출력은 코드와 함께 영어판 그대로입니다. `✓ correct`는 답이 맞았다는 뜻이고, `✗`는 아직 "
    "풀지 않았거나(`not solved yet`) 답이 틀렸다는 뜻이며, 뒤따르는 영어 설명이 처음 어긋난 경우를 "
    "알려 줍니다."
)


def with_checker_note(text: str) -> str:
    """A translated cell with the checker note put under its exercises heading, if it has one: after
    the heading's own paragraph (which introduces the checkers), or right under the heading."""
    lines = text.split("\n")
    if EXERCISES_HEADING not in lines:
        return text
    at = lines.index(EXERCISES_HEADING) + 1
    start = at
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start < len(lines) and not re.match(r"#{1,6}\s|:{3,}|`{3,}", lines[start]):
        at = start
        while at < len(lines) and lines[at].strip():
            at += 1
    rest = lines[at:]
    return "\n".join(lines[:at] + ["", CHECKER_NOTE] + ([""] if rest and rest[0] else []) + rest)


def has_checkers(nb: dict) -> bool:
    return any("exercise-check" in c.get("metadata", {}).get("tags", []) for c in nb["cells"])


# --- Figures drawn with Korean labels ---------------------------------------------------------------

FIGURES_DIR = KO_BOOK / "figures"
# The Korean edition's sans-serif stack (book/_static/book.css): the reader's own Hangul font renders
# the figures' text, as it renders the pages'.
KOREAN_FONTS = "'Noto Sans KR', 'Noto Sans CJK KR', 'Apple SD Gothic Neo', 'Malgun Gothic', 'NanumGothic', sans-serif"


@dataclass
class KoreanFigure:
    """One figure output of an English notebook, redrawn with Korean labels."""

    chapter: str
    cell: str
    why: str
    # (English text, its Korean form): regular expressions matched against a whole text of the figure
    labels: list[tuple[str, str | Callable]]
    # what the figure cell plots: (English notebook, its PNG, this figure) -> the names the cell reads
    data: Callable[[dict, bytes, KoreanFigure], dict]
    # texts of the figure that stay as they are (numbers, tick labels, names)
    keep: str = r"[-−+.,\d\s]*|\$.*\$"
    # the English figure drawn again from `data` must match the stored PNG: the share of pixels that
    # differ by more than a trace of antialiasing (0: the same pixels)
    tolerance: float = 0.0
    names: set[str] = field(default_factory=set)  # Latin words the Korean figure may still show

    @property
    def path(self) -> Path:
        return FIGURES_DIR / f"{self.chapter}.{self.cell}.svg"


def _code(nb: dict, cell_id: str) -> str:
    cell = next(c for c in nb["cells"] if c["id"] == cell_id)
    return source(cell)


def _assigned(nb: dict, name: str):
    """The literal a code cell of the notebook assigns to `name` (`row_counts = [1, 4, ...]`)."""
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        for line in source(cell).splitlines():
            if re.match(rf"{name}\s*=\s*[\[({{]", line):
                return ast.literal_eval(line.split("=", 1)[1].strip())
    raise LookupError(f"no cell assigns a literal to {name}")


def _cells_data(prelude: str, cell_ids: list[str]) -> Callable:
    """Data made by running cells of the English notebook again (seeded: the same numbers)."""

    def data(nb: dict, png: bytes, figure: KoreanFigure) -> dict:
        names: dict = {}
        exec(prelude, names)  # noqa: S102 - the book's own notebook cells
        for cell_id in cell_ids:
            exec(_code(nb, cell_id), names)  # noqa: S102
        return names

    return data


def _loglog_data(x_name: str, series: list[str], scale: float, device: bool):
    """Data read back from a log-log line plot's PNG (a live measurement no run repeats): each series'
    markers at the known x values, on the y axis given by its decade ticks, and the decade read by
    drawing the figure for each candidate and keeping the one whose tick labels match."""

    def data(nb: dict, png: bytes, figure: KoreanFigure) -> dict:
        import numpy as np

        xs = list(_assigned(nb, x_name))
        image = _pixels(png)
        frame = _frame(image)
        columns = _log_columns(frame, xs)
        colours = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40)]
        rows = [
            _marker_rows(image, frame, columns, colours[i], colours[:i] + colours[i + 1 :]) for i in range(len(series))
        ]
        ticks = _decade_ticks(image, frame)
        if len(ticks) < 2:
            raise ValueError("fewer than two decade ticks: cannot read the y axis")
        per_decade = float(np.mean(np.diff(ticks)))

        def names_for(top: int, factor: float = 1.0, kind: str = "cpu") -> dict:
            values = {
                name: [factor * 10 ** (top - (y - ticks[0]) / per_decade) / scale for y in ys]
                for name, ys in zip(series, rows, strict=True)
            }
            return {x_name: xs, "device": types.SimpleNamespace(type=kind), **values}

        def tick_labels_differ(names: dict) -> float:
            mine = _pixels(_draw(nb, figure, names, "png"))
            if mine.shape != image.shape:
                return 1.0
            box = (slice(frame[0] - 20, frame[1] + 20), slice(0, frame[2] - 10))
            return float((abs(mine[box] - image[box]).max(axis=2) > 40).mean())

        top = min(range(-6, 10), key=lambda d: tick_labels_differ(names_for(d)))
        names = names_for(top)
        # the scale: move every value until the drawn decade ticks sit where the English ones do
        mine = _pixels(_draw(nb, figure, names, "png"))
        shift = float(np.mean(np.array(ticks) - np.array(_decade_ticks(mine, _frame(mine)))))
        names = names_for(top, 10 ** (shift / per_decade))
        if device:
            kinds = ["cpu", "cuda", "mps", "xpu"]
            title = slice(0, frame[0] - 2)

            def title_differs(kind: str) -> float:
                mine = _pixels(
                    _draw(
                        nb,
                        figure,
                        {**names, "device": types.SimpleNamespace(type=kind)},
                        "png",
                    )
                )
                if mine.shape[1] != image.shape[1]:
                    return 1.0
                return float((abs(mine[title] - image[title]).max(axis=2) > 40).mean())

            names["device"] = types.SimpleNamespace(type=min(kinds, key=title_differs))
        return names

    return data


def _pixels(png: bytes):
    import numpy as np
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def _frame(image) -> tuple[int, int, int, int]:
    """Top, bottom, left and right of the axes frame: the long dark lines of the spines."""
    import numpy as np

    dark = image.sum(axis=2) < 150
    height, width = dark.shape
    rows = np.where(dark.sum(axis=1) > 0.3 * width)[0]
    columns = np.where(dark.sum(axis=0) > 0.3 * height)[0]
    return int(rows.min()), int(rows.max()), int(columns.min()), int(columns.max())


def _log_columns(frame, xs) -> list[int]:
    """Pixel columns of `xs` on a log x axis autoscaled with matplotlib's default 5 % margins."""
    import math

    low, high = math.log10(min(xs)), math.log10(max(xs))
    span = high - low
    low, high = low - 0.05 * span, high + 0.05 * span
    left, right = frame[2], frame[3]
    return [round(left + (math.log10(x) - low) / (high - low) * (right - left)) for x in xs]


def _legend_box(image, frame):
    """The legend's frame inside the axes (light grey lines), as (top, bottom, left, right)."""
    import numpy as np

    top, bottom, left, right = frame
    inside = image[top + 2 : bottom - 1, left + 2 : right - 1]
    grey = (np.abs(inside - 204) < 16).all(axis=2)
    rows = np.where(grey.sum(axis=1) > 40)[0]
    columns = np.where(grey.sum(axis=0) > 20)[0]
    if not len(rows) or not len(columns):
        return None
    return (
        top + 2 + int(rows.min()),
        top + 2 + int(rows.max()),
        left + 2 + int(columns.min()),
        left + 2 + int(columns.max()),
    )


def _marker_rows(image, frame, columns, colour, others) -> list[float]:
    """The centre row of this colour's marker at each column. A marker that another series' marker
    hides in part is placed by its visible edge and the size of the whole ones; one hidden entirely
    by the line to its neighbour, fitted where the line shows and carried to the column."""
    import numpy as np

    near = lambda rgb: np.abs(image - np.array(rgb)).sum(axis=2) < 40
    mask = near(colour)
    mask[: frame[0] + 1], mask[frame[1] :] = False, False
    legend = _legend_box(image, frame)
    if legend:
        mask[legend[0] : legend[1] + 1, legend[2] : legend[3] + 1] = False
    hidden = np.zeros(image.shape[:2], bool)
    for other in others:
        hidden |= near(other)
    runs = []
    for x in columns:
        ys = np.where(mask[:, x - 1 : x + 2].any(axis=1))[0]
        pieces = np.split(ys, np.where(np.diff(ys) > 1)[0] + 1) if len(ys) else []
        piece = max(pieces, key=len) if pieces else None
        runs.append(None if piece is None else (int(piece[0]), int(piece[-1])))
    size = max(b - a for a, b in filter(None, runs))
    rows: list[float | None] = []
    for run in runs:
        if run is None or run[1] - run[0] < size / 3:
            rows.append(None)
        elif run[1] - run[0] >= size - 2:
            rows.append((run[0] + run[1]) / 2)
        elif hidden[run[1] + 1 : run[1] + 4, :].any():  # cut at the bottom
            rows.append(run[0] + size / 2)
        else:
            rows.append(run[1] - size / 2)
    for i, row in enumerate(rows):
        if row is not None:
            continue
        for j in (i + 1, i - 1):
            if not 0 <= j < len(columns) or rows[j] is None:
                continue
            low, high = sorted((columns[i], columns[j]))
            xs, ys = [], []
            for x in range(low + int(size) + 3, high - int(size) - 2):
                found = np.where(mask[:, x])[0]
                if len(found) and not hidden[found, x].any():
                    xs.append(x)
                    ys.append(found.mean())
            if len(xs) > 10:
                slope, intercept = np.polyfit(xs, ys, 1)
                rows[i] = float(slope * columns[i] + intercept)
                break
        if rows[i] is None:
            raise ValueError(f"cannot place the marker of colour {colour} at column {columns[i]}")
    return rows


def _decade_ticks(image, frame) -> list[float]:
    """Rows of the major ticks left of the left spine (longer than the minor ones), top first."""
    import numpy as np

    top, bottom, left, _ = frame
    dark = image.sum(axis=2) < 200
    rows = np.where(dark[:, left - 9 : left - 6].all(axis=1))[0]
    rows = rows[(rows >= top) & (rows <= bottom)]
    if not len(rows):
        return []
    groups = np.split(rows, np.where(np.diff(rows) > 1)[0] + 1)
    return [float(np.mean(g)) for g in groups]


def _rc(nb: dict) -> dict:
    """The matplotlib settings of the notebook's setup cell (`plt.rcParams.update({...})`)."""
    for cell in nb["cells"]:
        found = re.search(r"plt\.rcParams\.update\((\{.*?\})\)", source(cell), re.DOTALL)
        if cell["cell_type"] == "code" and found:
            return ast.literal_eval(found.group(1))
    return {}


def _draw(nb: dict, figure: KoreanFigure, names: dict, kind: str, korean_font: str = "") -> bytes:
    """The figure cell run on `names`: a retina PNG as the notebook stored it, or the Korean SVG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    code = _code(nb, figure.cell).replace("plt.show()", "")
    settings = dict(_rc(nb))
    if kind == "svg":
        settings |= {"svg.fonttype": "none", "svg.hashsalt": figure.cell}
        settings["font.family"] = ["DejaVu Sans", korean_font]  # Hangul falls back
    plt.close("all")
    with matplotlib.rc_context(settings):
        scope = {**names, "plt": plt}
        exec(code, scope)  # noqa: S102 - the figure cell of the book's notebook
        fig = plt.gcf()
        if kind == "svg":
            _korean_texts(fig, figure)
        buffer = io.BytesIO()
        fig.savefig(
            buffer,
            format=kind,
            dpi=fig.dpi * 2 if kind == "png" else fig.dpi,  # IPython's "retina" PNG
            bbox_inches="tight",
            facecolor=fig.get_facecolor(),
            edgecolor=fig.get_edgecolor(),
            metadata={"Date": None, "Creator": None} if kind == "svg" else None,
        )
        plt.close(fig)
    return buffer.getvalue()


def _korean_texts(fig, figure: KoreanFigure) -> None:
    import matplotlib

    for text in fig.findobj(matplotlib.text.Text):
        english = text.get_text()
        for pattern, korean in figure.labels:
            if re.fullmatch(pattern, english):
                text.set_text(re.sub(pattern, korean, english))
                break
        else:
            if not re.fullmatch(figure.keep, english):
                raise ValueError(
                    f"{figure.chapter} cell {figure.cell}: no Korean label for {english!r} "
                    "(add it to FIGURES in tools/korean.py)"
                )


DEVICE_NAMES = {
    "cpu": "CPU",
    "cuda": "CUDA GPU",
    "mps": "Apple GPU(MPS)",
    "xpu": "Intel GPU(XPU)",
}

FIGURES = [
    KoreanFigure(
        chapter="02_parameter_initialization",
        cell="init-065",
        why="signal and gradient scales over 20 layers: seeded, so the cells that compute them "
        "give the same numbers again (the English PNG is reproduced pixel for pixel)",
        labels=[
            (
                r"scale of the input / of the gradient sent in",
                "입력의 크기 / 거꾸로 보낸 기울기의 크기",
            ),
            (r"too small", "너무 작은 값"),
            (r"Xavier, gain 1", "Xavier, 게인 1"),
            (r"Xavier, tanh gain 5/3", "Xavier, tanh 게인 5/3"),
            (r"Kaiming, ReLU gain √2", "Kaiming, ReLU 게인 √2"),
            (r"layer", "계층"),
            (r"std of the layer's output", "계층 출력의 표준편차"),
            (
                r"std of the gradient\nreaching that output",
                "그 출력에 닿는\n기울기의 표준편차",
            ),
        ],
        keep=r"[-−+.,\d\s]*|\$.*\$|tanh|ReLU",
        data=_cells_data("import math\nimport torch\nfrom torch import nn", ["init-063", "init-064"]),
        names={"Xavier", "Kaiming", "tanh", "ReLU"},
    ),
    KoreanFigure(
        chapter="06_gpus",
        cell="gpu-54",
        why="a live timing of the machine that ran the notebook, which no run repeats: the values "
        "are read back from the English PNG (markers against the decade ticks), and drawing the "
        "English figure from them reproduces it up to antialiasing",
        labels=[
            (r"loop: 2k small operations", "루프: 작은 연산 2k개"),
            (r"one batched operation", "배치 연산 하나"),
            (r"number of rows k", "행 수 k"),
            (r"time per call \(µs\)", "호출 한 번에 걸린 시간(µs)"),
            (
                r"Measured live on (\w+)",
                lambda m: f"{DEVICE_NAMES.get(m.group(1), m.group(1))}에서 직접 측정",
            ),
        ],
        data=_loglog_data("row_counts", ["loop_times", "batched_times"], 1e6, device=True),
        tolerance=0.01,
        names={"CPU", "CUDA", "GPU", "MPS", "XPU", "Apple", "Intel", "k", "µs"},
    ),
]
FIGURE_HEADER = re.compile(r"<!-- (.*?) sha256 ([0-9a-f]{16}) -->\n")


def figure_output(cell: dict) -> tuple[int, str] | None:
    """The index of a code cell's PNG output and the PNG's digest (of its base64 text)."""
    for index, output in enumerate(cell.get("outputs", [])):
        png = output.get("data", {}).get("image/png")
        if png is not None:
            return index, digest(png if isinstance(png, str) else "".join(png))
    return None


def stored_figure(figure: KoreanFigure) -> tuple[str, str] | None:
    """(digest of the English PNG it was drawn from, SVG text) of a redrawn figure."""
    if not figure.path.exists():
        return None
    text = figure.path.read_text(encoding="utf-8")
    header = FIGURE_HEADER.match(text)
    return (header.group(2), text) if header else None


def figures_of(chapter: str) -> dict[str, KoreanFigure]:
    return {f.cell: f for f in FIGURES if f.chapter == chapter}


def with_korean_figure(cell: dict, figure: KoreanFigure) -> bool:
    """Put the Korean SVG in place of the cell's PNG output if it was drawn from this very PNG."""
    found, stored = figure_output(cell), stored_figure(figure)
    if found is None or stored is None or stored[0] != found[1]:
        return False
    index, _ = found
    output = cell["outputs"][index]
    data = {k: v for k, v in output["data"].items() if k != "image/png"}
    output["data"] = {"image/svg+xml": stored[1], **data}
    metadata = output.get("metadata", {})
    if "image/png" in metadata:
        metadata = {k: v for k, v in metadata.items() if k != "image/png"}
        metadata["image/svg+xml"] = output["metadata"]["image/png"]
        output["metadata"] = metadata
    return True


def hangul_font() -> str:
    """A Hangul font file for the layout of the figures' text (only `figures` needs one)."""
    try:
        listed = subprocess.run(["fc-list", ":lang=ko", "file"], capture_output=True, text=True, check=False).stdout
    except FileNotFoundError:
        listed = ""
    files = sorted(line.split(":")[0].strip() for line in listed.splitlines() if line.strip())
    preferred = [f for f in files if re.search(r"NotoSansCJK|NanumGothic\.ttf|NanumBarunGothic\.ttf", f)]
    if not (preferred or files):
        raise SystemExit(
            "no Hangul font found (fc-list :lang=ko): install one to lay out the Korean labels, "
            "e.g. apt-get install fonts-nanum"
        )
    return (preferred or files)[0]


def draw_figures() -> None:
    """Redraw every figure of FIGURES with Korean labels, after checking that its data draws the
    English figure as stored."""
    import numpy as np
    from matplotlib import font_manager

    font_file = hangul_font()
    font_manager.fontManager.addfont(font_file)
    font = font_manager.FontProperties(fname=font_file).get_name()
    FIGURES_DIR.mkdir(parents=True, exist_ok=True)
    for figure in FIGURES:
        nb = load_english(figure.chapter)
        cell = next(c for c in nb["cells"] if c["id"] == figure.cell)
        index, png_digest = figure_output(cell)
        png = base64.b64decode(cell["outputs"][index]["data"]["image/png"])
        names = figure.data(nb, png, figure)
        english, drawn = _pixels(png), _pixels(_draw(nb, figure, names, "png"))
        differ = 1.0 if english.shape != drawn.shape else float((np.abs(english - drawn).max(axis=2) > 60).mean())
        if differ > figure.tolerance:
            raise SystemExit(
                f"{figure.chapter} cell {figure.cell}: the data does not draw the English figure "
                f"({differ:.2%} of its pixels differ)"
            )
        svg = _draw(nb, figure, names, "svg", font).decode("utf-8")
        # no XML declaration, doctype or metadata: the header comment comes first
        svg = svg[svg.index("<svg") :]
        svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg, flags=re.DOTALL)
        svg = re.sub(r"font-family: [^;\"]*", f"font-family: {KOREAN_FONTS}", svg)
        header = (
            f"<!-- notebooks/{figure.chapter}.ipynb cell {figure.cell} drawn with Korean labels "
            f"by tools/korean.py figures, from the English figure with sha256 {png_digest} -->\n"
        )
        figure.path.write_text(header + svg, encoding="utf-8")
        print(f"{figure.path.relative_to(ROOT)}: {differ:.2%} of the English pixels differ when redrawn")


def korean_notebook(chapter: str) -> dict:
    """The Korean notebook: the English one with current translations put in place.

    A unit without a current translation keeps its English text, so the Korean site still
    builds while a translation is pending; the tests fail until it is done.
    """
    nb = copy.deepcopy(load_english(chapter))
    entries = {(e["cell"], e["kind"]): e for e in load_store(chapter)}
    checkers = has_checkers(nb)
    figures = figures_of(chapter)
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            entry = entries.get((cell["id"], "markdown"))
            if entry and entry["en_sha256"] == digest(source(cell)):
                text = entry["ko"].rstrip("\n")
                cell["source"] = with_checker_note(text) if checkers else text
        elif caption_of(cell):
            entry = entries.get((cell["id"], "caption"))
            if entry and entry["en_sha256"] == digest(caption_of(cell)):
                cell["metadata"]["mystnb"]["figure"]["caption"] = entry["ko"].strip()
        if cell["cell_type"] == "code" and cell["id"] in figures:
            with_korean_figure(cell, figures[cell["id"]])
    nb["metadata"].setdefault("book", {})["translation_of"] = f"notebooks/{chapter}.ipynb"
    nb["metadata"]["book"]["language"] = "ko"
    return nb


def dumps(nb: dict) -> str:
    """The exact bytes nbformat writes, so generated notebooks diff like the English ones."""
    import nbformat

    return nbformat.writes(nbformat.from_dict(nb)) + "\n"


def page_header(name: str) -> str:
    """The first line a translated page carries: the hash of the English page it translates."""
    english = (ROOT / "book" / f"{name}.md").read_text(encoding="utf-8")
    return f"<!-- translation of book/{name}.md, sha256 {digest(english)} -->"


def korean_config() -> tuple[dict, dict]:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    overrides = yaml.safe_load((KO_BOOK / "overrides.yml").read_text(encoding="utf-8"))
    config["title"] = overrides["title"]
    sphinx = config["sphinx"]
    # local extension folders are found relative to the config file, which lives in _build/ko
    sphinx["local_extensions"] = {
        name: str(Path("..", "..", path)) for name, path in sphinx["local_extensions"].items()
    } | {name: str(Path("..", "..", path)) for name, path in overrides["local_extensions"].items()}
    sphinx["config"] |= overrides["sphinx_config"]
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    toc["root"] = "book/ko/intro"
    for part, caption in zip(toc["parts"], overrides["part_captions"], strict=True):
        part["caption"] = caption
        entries = list(part["chapters"])
        while entries:  # sub-pages (`sections:`) are translated pages too
            entry = entries.pop()
            folder, name = entry["file"].rsplit("/", 1)
            entry["file"] = f"{folder}/ko/{name}"
            entries += entry.get("sections", [])
    toc["parts"][-1]["chapters"] += [{"file": f} for f in overrides["extra_pages"]]
    return config, toc


def build() -> None:
    KO_NOTEBOOKS.mkdir(exist_ok=True)
    wanted = set()
    for chapter in chapters():
        path = KO_NOTEBOOKS / f"{chapter}.ipynb"
        wanted.add(path)
        text = dumps(korean_notebook(chapter))
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    for stray in set(KO_NOTEBOOKS.glob("*.ipynb")) - wanted:
        stray.unlink()
    config, toc = korean_config()
    KO_BUILD.mkdir(parents=True, exist_ok=True)
    for name, data in (("_config.yml", config), ("_toc.yml", toc)):
        text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
        target = KO_BUILD / name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")


def publish() -> None:
    built = KO_BUILD / "_build" / "html"
    target = ROOT / "_build" / "html" / "ko"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(built, target)


def status() -> list[tuple[str, int, int, int, int]]:
    rows = []
    for chapter in chapters():
        report = audit(chapter)
        rows.append(
            (
                chapter,
                len(report["units"]),
                len(report["current"]),
                len(report["stale"]),
                len(report["missing"]),
            )
        )
    return rows


def print_status() -> None:
    print(f"{'chapter':32} {'units':>5} {'current':>7} {'stale':>5} {'missing':>7}")
    for chapter, units, current, stale, missing in status():
        print(f"{chapter:32} {units:5d} {current:7d} {stale:5d} {missing:7d}")


def pending(chapter: str) -> None:
    report = audit(chapter)
    todo = [
        {
            "cell": u["cell"],
            "kind": u["kind"],
            "en_sha256": digest(u["en"]),
            "en": u["en"],
            "ko": "",
        }
        for u in report["stale"] + report["missing"]
    ]
    print(yaml.safe_dump(todo, allow_unicode=True, sort_keys=False, width=1000))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["build", "publish", "status", "pending", "figures"])
    parser.add_argument("chapter", nargs="?")
    args = parser.parse_args()
    if args.command == "build":
        build()
    elif args.command == "publish":
        publish()
    elif args.command == "status":
        print_status()
    elif args.command == "figures":
        draw_figures()
        build()  # the Korean notebooks take the new drawings (make book's stamp does not see them)
    else:
        pending(args.chapter)
    return 0


if __name__ == "__main__":
    sys.exit(main())
