"""Reader notebooks: the chapters as JupyterLab, Colab, Binder and a downloaded notebook show them.

The notebooks in ``notebooks/`` are written in MyST for the site: ``:::{exercise}`` and
``:::{solution-start}`` directives, admonitions, ``{ref}``/``{numref}``/``{cite}`` roles and
``(label)=`` targets. A notebook interface shows all of that as raw text, and every exercise's
reference solution open under its statement. This module writes a clean copy of each notebook:

* an exercise is a heading, ``### Exercise 1.2``, numbered as the site numbers it (per chapter of
  ``_toc.yml``'s numbered part, sub-pages continuing their chapter's count);
* a solution stays collapsed until asked for: its code cells are hidden (``jupyter.source_hidden``
  and ``outputs_hidden`` for JupyterLab and VS Code; a ``#@title`` first line with ``cellView:
  form`` for Colab, which then shows only the title) and still run, unchanged below the title;
  its prose sits in a ``<details>`` block;
* admonitions are a bold title over a quote, a dropdown a ``<details>`` block, ``literalinclude`` a
  link to the published file; ``{ref}``, ``{numref}`` and ``{doc}`` are links to the published
  site's page and anchor (the Korean notebooks to the Korean pages), ``{cite}`` is author-year
  text linking to the bibliography, ``(label)=`` targets are dropped; math stays ``$...$``;
* cells tagged ``hide-input`` (setup machinery) are hidden as on the site.

Code and outputs are the source notebook's, byte for byte. Labels are resolved from the notebooks
themselves (their ``(label)=`` targets, exercise labels and figure names), so the same code serves
every use, with or without a Sphinx build:

* ``make book`` (this file is a Sphinx extension): after each edition's build, the page's download
  (``_sources/notebooks/<name>.ipynb``) is overwritten with the reader notebook, and the offline
  copy takes those files (``book/_ext/offline_archive.py``);
* ``python book/_ext/reader_notebooks.py OUT``: every English and Korean notebook into
  ``OUT/notebooks/`` and ``OUT/notebooks/ko/`` (``make lab``; the publish workflow pushes them to the
  ``reader-notebooks`` branch that the Colab buttons open);
* ``python book/_ext/reader_notebooks.py --in-place``: ``.binder/postBuild`` converts the checkout's
  notebooks inside the Binder image, which has neither Sphinx nor this repository's venv.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
READER_BRANCH = "reader-notebooks"

WORDS = {
    "en": {
        "exercise": "Exercise",
        "figure": "Fig.",
        "solution": "Solution to Exercise {number}",
        "solution_note": (
            "The reference solution follows, collapsed: try the exercise first. In JupyterLab,"
            " click a collapsed cell's \u2022\u2022\u2022 to show it; in Colab, double-click"
            " its title. Its cells run as they are; run them to see what they print."
        ),
        "details": "Solution (explanation)",
        "title": "#@title Solution to Exercise {number}{part} (double-click to show the code)",
        "part": ", cell {i} of {n}",
        "bibliography": "book/bibliography.html",
        "whole_file": "the whole file, on the book's site",
    },
    "ko": {
        "exercise": "연습 문제",
        "figure": "그림",
        "solution": "연습 문제 {number} 풀이",
        "solution_note": (
            "아래는 접어 둔 참고 풀이입니다. 먼저 연습 문제를 풀어 보세요. JupyterLab에서는 접힌 셀의"
            " \u2022\u2022\u2022을 누르면, Colab에서는 제목을 두 번 클릭하면 코드가 보입니다. 셀은 그대로"
            " 실행되고, 실행하면 출력이 보입니다."
        ),
        "details": "풀이 (설명)",
        "title": "#@title 연습 문제 {number} 풀이{part} (두 번 클릭하면 코드가 보입니다)",
        "part": ", 셀 {n}개 중 {i}번째",
        "bibliography": "book/ko/bibliography.html",
        "whole_file": "전체 파일, 책의 사이트에서",
    },
}

# A markdown link to a chapter notebook beside this one: ](03_lazy_modules.ipynb#anchor)
CHAPTER_LINK = re.compile(r"\]\((?:\./)?(\d\d_\w+)\.ipynb(#[\w-]+)?\)")
# An HTML link or image to a file beside the page: href="inspect_module.py"
RELATIVE_HREF = re.compile(r'\b(href|src)="(?![a-z]+:|#|/)([^"]+)"')
LABEL = re.compile(r"^\(([\w.-]+)\)=[ \t]*\n?", re.MULTILINE)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)
OPENER = re.compile(r"^(:{3,}|`{3,})\{([\w-]+)\}[ \t]*(.*?)\s*$")
OPTION = re.compile(r"^:([\w-]+):\s*(.*?)\s*$")
MARKER = re.compile(
    r"^(:{3,})\{solution-(start|end)\}[ \t]*(\S*)[ \t]*(?:\n|$)((?::[\w-]+:.*(?:\n|$))*)"
    r"(?:\1[ \t]*(?:\n|$))?",
    re.MULTILINE,
)
ROLE = re.compile(r"\{(ref|numref|doc|cite|cite:p|cite:t|math)\}`([^`]*)`")
EXPLICIT = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.DOTALL)
PLAIN_MARKDOWN = re.compile(r"\[([^\]]*)\]\(([^)]*)\)")


def site_url(root: Path = ROOT) -> str:
    """The published site, from _config.yml's repository (github.com/OWNER/NAME -> OWNER.github.io/NAME/)."""
    text = (root / "_config.yml").read_text(encoding="utf-8")
    url = re.search(r"^\s+url:\s*https://github\.com/([\w.-]+)/([\w.-]+)", text, re.MULTILINE)
    owner, name = url.group(1), url.group(2)
    return f"https://{owner}.github.io/{name}/"


def numbered_chapters(root: Path = ROOT) -> list[list[str]]:
    """The numbered part of _toc.yml: per chapter, its notebook stems (chapter, then sub-pages)."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    part = next(p for p in toc["parts"] if p.get("numbered"))
    chapters = []
    for entry in part["chapters"]:
        files = [entry["file"]] + [s["file"] for s in entry.get("sections", [])]
        chapters.append([Path(f).name for f in files])
    return chapters


@dataclass
class Target:
    page: str  # the page's path on the site, e.g. notebooks/ko/01_parameter_management.html
    anchor: str
    text: str  # what a link with no text of its own shows

    def url(self, base: str) -> str:
        return f"{base}{self.page}#{self.anchor}" if self.anchor else f"{base}{self.page}"


def source_path(stem: str, edition: str, folder: Path) -> Path:
    return folder / stem if edition == "en" else folder / "ko" / stem


def page_of(stem: str, edition: str) -> str:
    return f"notebooks/{stem}.html" if edition == "en" else f"ko/notebooks/ko/{stem}.html"


def label_map(edition: str, root: Path = ROOT, folder: Path | None = None) -> dict:
    """Every label the notebooks define: ``(label)=`` targets, exercises and figures."""
    folder = folder or root / "notebooks"
    words = WORDS[edition]
    labels: dict[str, Target] = {}
    for number, stems in enumerate(numbered_chapters(root), start=1):
        exercises = figures = 0
        for stem in stems:
            path = source_path(f"{stem}.ipynb", edition, folder)
            page = page_of(stem, edition)
            for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
                source = "".join(cell["source"])
                if cell["cell_type"] == "code":
                    name = cell["metadata"].get("mystnb", {}).get("figure", {}).get("name")
                    if name:
                        figures += 1
                        labels[name] = Target(page, name, f"{words['figure']} {number}.{figures}")
                    continue
                for match in LABEL.finditer(source):
                    heading = HEADING.match(source, match.end())
                    text = heading.group(1) if heading else match.group(1)
                    labels[match.group(1)] = Target(page, match.group(1), text)
                for line in source.splitlines():
                    opener = OPENER.match(line)
                    if opener and opener.group(2) == "exercise":
                        exercises += 1
                        option = re.search(r"^:label:\s*(\S+)", source, re.MULTILINE)
                        title = f"{words['exercise']} {number}.{exercises}"
                        if option:
                            labels[option.group(1)] = Target(page, option.group(1), title)
    return labels


def citations(root: Path = ROOT) -> dict[str, str]:
    """Author-year text per BibTeX key, as the site shows it (bibtex_reference_style: author_year)."""
    text = (root / "book" / "references.bib").read_text(encoding="utf-8")
    cites = {}
    for entry in re.split(r"\n(?=@)", text):
        key = re.match(r"@\w+\{([^,]+),", entry.strip())
        if not key:
            continue
        authors = re.search(r"author\s*=\s*\{(.*)\},?\s*$", entry, re.MULTILINE).group(1)
        year = re.search(r"year\s*=\s*\{(\d+)\}", entry).group(1)
        names = [a.split(",")[0].strip() for a in authors.split(" and ")]
        if len(names) > 2 or "others" in names:
            who = f"{names[0]} et al."
        else:
            who = " and ".join(names)
        cites[key.group(1)] = f"{who}, {year}"
    return cites


class Converter:
    def __init__(self, edition: str, root: Path = ROOT, folder: Path | None = None):
        self.edition = edition
        self.root = root
        self.words = WORDS[edition]
        self.base = site_url(root)
        self.labels = label_map(edition, root, folder)
        self.cites = citations(root)
        self.exercise_numbers = {k: t.text.split()[-1] for k, t in self.labels.items()}

    # -- roles --------------------------------------------------------------------------------
    def role(self, match: re.Match) -> str:
        name, content = match.group(1), match.group(2)
        if name == "math":
            return f"${content}$"
        if name.startswith("cite"):
            text = "; ".join(self.cites[k.strip()] for k in content.split(","))
            return f"[[{text}]({self.base}{self.bibliography()})]"
        explicit = EXPLICIT.match(content)
        text, label = (explicit.group(1), explicit.group(2)) if explicit else (None, content)
        if name == "doc":
            stem = Path(label).name
            page = page_of(stem, self.edition)
            return f"[{text or stem}]({self.base}{page})"
        target = self.labels[label]
        if name == "numref" and text and "%s" in text:
            text = text.replace("%s", target.text.split()[-1])
        return f"[{text or target.text}]({target.url(self.base)})"

    def bibliography(self) -> str:
        prefix = "" if self.edition == "en" else "ko/"
        return prefix + self.words["bibliography"]

    def roles(self, text: str) -> str:
        return ROLE.sub(self.role, text)

    # -- directives ---------------------------------------------------------------------------
    def directives(self, text: str) -> str:
        """Each MyST directive of a markdown text as plain markdown (nested ones too)."""
        lines = text.split("\n")
        out: list[str] = []
        i = 0
        while i < len(lines):
            opener = OPENER.match(lines[i])
            if not opener:
                out.append(lines[i])
                i += 1
                continue
            fence, name, argument = opener.groups()
            end = next(
                (j for j in range(i + 1, len(lines)) if lines[j].strip() == fence),
                len(lines),
            )
            body = lines[i + 1 : end]
            options = {}
            while body and OPTION.match(body[0]):
                key, value = OPTION.match(body[0]).groups()
                options[key] = value
                body = body[1:]
            out.extend(self.directive(name, argument, options, "\n".join(body)).split("\n"))
            i = end + 1
        return "\n".join(out)

    def directive(self, name: str, argument: str, options: dict, body: str) -> str:
        body = self.directives(body).strip("\n")
        if name == "exercise":
            title = self.labels[options["label"]].text if "label" in options else name
            heading = f"### {title}" + (f": {argument}" if argument else "")
            return f"{heading}\n\n{body}"
        if name == "dropdown":
            return f"<details><summary>{self.inline_html(argument)}</summary>\n\n{body}\n\n</details>"
        if name == "literalinclude":
            file = Path(argument).name
            page = page_of("x", self.edition).rsplit("/", 1)[0]
            return f"[`{file}`]({self.base}{page}/{file}) ({self.words['whole_file']})"
        title = argument or name.capitalize()
        quoted = "\n".join(f"> {line}" if line else ">" for line in body.split("\n"))
        return f"> **{title}**\n>\n{quoted}"

    @staticmethod
    def inline_html(text: str) -> str:
        return re.sub(r"`([^`]+)`", r"<code>\1</code>", text)

    # -- cells --------------------------------------------------------------------------------
    def chapter_link(self, match: re.Match) -> str:
        """A link to another chapter's notebook, as the site's page: Colab and a lone download
        have no neighbouring notebooks to open."""
        stem, anchor = match.group(1), match.group(2) or ""
        return f"]({self.base}{page_of(stem, self.edition)}{anchor})"

    def site_href(self, match: re.Match) -> str:
        """An HTML link to a file beside the page (chapter 8's download), as the site's file."""
        folder = page_of("x", self.edition).rsplit("/", 1)[0]
        return f'{match.group(1)}="{self.base}{folder}/{match.group(2)}"'

    def prose(self, text: str, solution: str | None) -> str:
        """Markdown as plain markdown; inside a solution, folded under a <details>."""
        text = self.roles(self.directives(LABEL.sub("", text))).strip("\n")
        text = CHAPTER_LINK.sub(self.chapter_link, text)
        text = RELATIVE_HREF.sub(self.site_href, text)
        if text and solution is not None:
            summary = self.words["details"]
            text = f"<details><summary>{summary}</summary>\n\n{text}\n\n</details>"
        return text

    @staticmethod
    def solution_parts(notebook: dict) -> dict[str, tuple[int, int]]:
        """Each solution code cell's id -> (its place, how many code cells its solution has)."""
        groups: list[list[str]] = []
        inside = False
        for cell in notebook["cells"]:
            if cell["cell_type"] == "markdown":
                for marker in MARKER.finditer("".join(cell["source"])):
                    inside = marker.group(2) == "start"
                    if inside:
                        groups.append([])
            elif inside:
                groups[-1].append(cell["id"])
        return {cid: (i, len(ids)) for ids in groups for i, cid in enumerate(ids, start=1)}

    def convert(self, notebook: dict) -> dict:
        nb = copy.deepcopy(notebook)
        parts = self.solution_parts(nb)
        cells = []
        solution = None  # the exercise number while inside a solution
        for cell in nb["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                pieces = []
                position = 0
                for marker in MARKER.finditer(source):
                    pieces.append(self.prose(source[position : marker.start()], solution))
                    if marker.group(2) == "start":
                        solution = self.exercise_numbers[marker.group(3)]
                        heading = self.words["solution"].format(number=solution)
                        pieces.append(f"#### {heading}\n\n*{self.words['solution_note']}*")
                    else:
                        solution = None
                    position = marker.end()
                pieces.append(self.prose(source[position:], solution))
                pieces = [piece for piece in pieces if piece]
                if not pieces:  # a cell that only closed a solution
                    continue
                cell["source"] = "\n\n".join(pieces)
            elif cell["cell_type"] == "code":
                jupyter = cell["metadata"].setdefault("jupyter", {})
                if "hide-input" in cell["metadata"].get("tags", []):
                    jupyter["source_hidden"] = True
                if solution is not None:
                    # Folded, and without its stored outputs: Colab's form view hides the code
                    # but shows outputs, and a solution's outputs are its answer.
                    jupyter["source_hidden"] = True
                    cell["metadata"]["cellView"] = "form"
                    cell["outputs"], cell["execution_count"] = [], None
                    i, n = parts[cell["id"]]
                    part = self.words["part"].format(i=i, n=n) if n > 1 else ""
                    title = self.words["title"].format(number=solution, part=part)
                    cell["source"] = f"{title}\n{source}"
                if not jupyter:
                    del cell["metadata"]["jupyter"]
            cells.append(cell)
        nb["cells"] = cells
        return nb


def dumps(notebook: dict) -> str:
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def sources(root: Path = ROOT, folder: Path | None = None) -> list[tuple[str, Path]]:
    """(edition, path) of every chapter notebook, English then Korean."""
    folder = folder or root / "notebooks"
    english = [("en", p) for p in sorted(folder.glob("*.ipynb"))]
    korean = [("ko", p) for p in sorted((folder / "ko").glob("*.ipynb"))]
    return english + korean


def write_all(out: Path, root: Path = ROOT, folder: Path | None = None) -> list[Path]:
    """Every reader notebook under ``out`` (``out/notebooks/...`` or, in place, ``folder``)."""
    folder = folder or root / "notebooks"
    converters = {e: Converter(e, root, folder) for e in ("en", "ko")}
    written = []
    for edition, path in sources(root, folder):
        reader = converters[edition].convert(json.loads(path.read_text(encoding="utf-8")))
        target = out / path.relative_to(folder.parent)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = dumps(reader)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")
        written.append(target)
    return written


def _replace_downloads(app, exception) -> None:
    """The page's download button hands out the reader notebook (``_sources/<docname>.ipynb``)."""
    if exception is not None or app.builder.format != "html":
        return
    edition = app.config.book_edition
    converter = Converter(edition, Path(app.srcdir))
    for docname in sorted(app.env.found_docs):
        source = Path(app.srcdir) / f"{docname}.ipynb"
        target = Path(app.outdir) / "_sources" / f"{docname}.ipynb"
        if source.exists() and target.exists():
            reader = converter.convert(json.loads(source.read_text(encoding="utf-8")))
            target.write_text(dumps(reader), encoding="utf-8")


def colab_url(url: str) -> str:
    """A Colab link of the theme (``.../github/OWNER/NAME/blob/BRANCH/notebooks/X.ipynb``), pointed
    at the reader notebooks' branch, which the publish workflow fills."""
    return re.sub(
        r"(https://colab\.research\.google\.com/github/[^/]+/[^/]+/blob/)[^/]+/",
        rf"\1{READER_BRANCH}/",
        url,
    )


def _colab_links(app, pagename, templatename, context, doctree) -> None:
    body = context.get("header_buttons") or []
    for button in _buttons(body):
        if "url" in button and "colab.research.google.com" in button["url"]:
            button["url"] = colab_url(button["url"])


def _buttons(buttons):
    for button in buttons:
        yield button
        yield from _buttons(button.get("buttons", []))


def setup(app):
    app.connect("build-finished", _replace_downloads)
    app.connect("html-page-context", _colab_links, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--in-place"]:
        folder = Path(argv[1]) if len(argv) > 1 else ROOT / "notebooks"
        written = write_all(folder.parent, folder.parent, folder)
    elif len(argv) == 1:
        written = write_all(Path(argv[0]))
    else:
        print(
            __doc__.split("\n\n")[0],
            "\nusage: reader_notebooks.py OUT | --in-place [NOTEBOOKS]",
        )
        return 2
    print(f"reader notebooks: {len(written)} in {written[0].parent.parent}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
