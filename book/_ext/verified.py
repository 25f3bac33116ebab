"""The verified record on the site, generated from the recorded runs in book/records/.

Under the title of every chapter page: one line saying which torch releases and devices the
chapter's stored outputs (strict nbval) and asserts (lax nbval) were last verified on, and when.
The ``verified-status`` directive (used by book/status.md) renders the chapter × environment
table with each notebook's execution time. Nothing here is written by hand: `make record`,
`make compat` and tools/record.py write the records; a record whose notebook hash no longer
matches the notebook is shown as stale (and tests/test_record.py fails).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

ROOT = Path(__file__).resolve().parent.parent.parent
RECORDS = ROOT / "book" / "records"
STATUS_DOC = "book/status"
BOX_CLASS = "verified-record"

_spec = importlib.util.spec_from_file_location("book_record", ROOT / "tools" / "record.py")
_record = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_record)
notebook_hash = _record.notebook_hash
RECORD_GLOB = _record.RECORD_GLOB

DEVICE_NAMES = {"cpu": "CPU", "cuda": "CUDA", "mps": "MPS", "xpu": "XPU"}
MODE_NAMES = {"strict": "strict outputs", "lax": "asserts"}


def book_order(stems) -> list[str]:
    """Chapter notebooks in the order of _toc.yml (5 before its second page 5.1), then any other."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    order: list[str] = []

    def walk(entries):
        for entry in entries:
            order.append(Path(entry["file"]).name)
            walk(entry.get("sections", []))

    for part in toc.get("parts", []):
        walk(part.get("chapters", []))
    stems = set(stems)
    return [s for s in order if s in stems] + sorted(stems - set(order))


def _release_key(version: str) -> tuple:
    return tuple(int(part) if part.isdigit() else 0 for part in version.split("."))


def load_records() -> list[dict]:
    """Every record, strict before lax, CPU before other devices, then by torch release."""
    records = [json.loads(p.read_text()) for p in sorted(RECORDS.glob(RECORD_GLOB))]
    return sorted(
        records,
        key=lambda r: (
            r["environment"]["mode"] != "strict",
            r["environment"]["device"] != "cpu",
            r["environment"]["device"],
            _release_key(r["environment"]["torch"]),
        ),
    )


def _records_fingerprint() -> str:
    digest = hashlib.sha256()
    for path in sorted(RECORDS.glob(RECORD_GLOB)):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


def device_label(env: dict) -> str:
    label = DEVICE_NAMES.get(env["device"], env["device"])
    return f"{label}: {env['device_name']}" if env.get("device_name") else label


def mode_label(mode: str, text: dict | None = None) -> str:
    """The name of a record's mode in the edition's words (TEXT[edition]["modes"])."""
    name = MODE_NAMES[mode]
    return (text or {}).get("modes", {}).get(name, name)


def environment_label(env: dict, text: dict | None = None) -> str:
    return f"torch {env['torch']}, {device_label(env)}, {mode_label(env['mode'], text)}"


def _and(items: list[str], word: str = "and") -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]


def chapter_state(stem: str, current_hash: str, records: list[dict], text: dict | None = None):
    """(passing groups, failing labels, stale labels, dates) of one notebook across the records."""
    text = text or TEXT["en"]
    groups: dict[tuple, list[str]] = {}
    failing, stale, dates = [], [], []
    for record in records:
        entry = record["notebooks"].get(stem)
        if entry is None:
            continue
        env = record["environment"]
        if entry["hash"] != current_hash:
            stale.append(environment_label(env, text))
        elif entry["result"] != "pass":
            failing.append(text["env_failing"].format(env=environment_label(env, text), n=len(entry["failed_cells"])))
        else:
            key = (device_label(env), MODE_NAMES[env["mode"]])
            groups.setdefault(key, []).append(env["torch"])
            dates.append(entry["date"])
    return groups, failing, stale, dates


def _status_link(app, docname: str, text: str) -> nodes.Node:
    """A link to this edition's status page, else to the English one (the Korean site is en/ko/)."""
    edition = getattr(app.config, "book_edition", "en")
    local = STATUS_DOC if edition == "en" else f"book/{edition}/status"
    if local in app.env.found_docs:
        ref = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget="/" + local, refexplicit=True)
    else:
        depth = len(Path(docname).parts) - 1
        ref = nodes.reference("", "", refuri="../" * (depth + 1) + STATUS_DOC + ".html")
        text += "" if edition == "en" else " (English)"
    ref += nodes.inline(text, text)
    return ref


TEXT = {
    "en": {
        "verified": "Checked",
        "and": "and",
        "on": " with torch {range} on the {devices}, {when}{outputs}.",
        "range": "{first} to {last}",
        "outputs": " (outputs as printed by {releases})",
        "same_day": "on {day}",
        "between": "between {first} and {last}",
        "none": "Not verified yet",
        "none_why": ": no recorded run matches this version of the chapter.",
        "fails": " Fails on {what}.",
        "stale": " Changed since the runs on {what}.",
        "details": " Details: ",
        "status": "verification status",
        "env_failing": "{env}: {n} cells",
        "chapter": "Chapter",
        "changed": "changed since",
        "failed_of": "✗ {failed} of {cells} cells",
        "legend": (
            "Each cell: ✓ and the notebook's execution time when every cell passed, ✗ and the "
            "number of failing cells otherwise, \u201cchanged since\u201d when the notebook was "
            "edited or re-executed after that run, and a dash when it was not run there. "
            "Strict outputs: every stored output compared (nbval). Asserts: nbval in lax mode, "
            "so asserts and exceptions are checked but printed text is not."
        ),
    },
    "ko": {
        "verified": "검증됨",
        "and": "및",
        "on": ": torch {range}, {devices}, {when}{outputs}.",
        "range": "{first}~{last}",
        "outputs": " (출력은 {releases} 기준)",
        "same_day": "{day}",
        "between": "{first}부터 {last}까지",
        "none": "아직 검증되지 않음",
        "none_why": ": 이 버전의 장과 일치하는 실행 기록이 없습니다.",
        "fails": " 실패: {what}.",
        "stale": " 다음 실행 이후 바뀜: {what}.",
        "details": " 자세히: ",
        "status": "검증 현황",
        "modes": {"strict outputs": "출력 전체 비교", "asserts": "`assert`·예외만 확인"},
        "env_failing": "{env}: 셀 {n}개",
        "chapter": "장",
        "changed": "이후 바뀜",
        "failed_of": "✗ 셀 {cells}개 중 {failed}개 실패",
        "legend": (
            "각 칸: 모든 셀이 통과했으면 ✓와 노트북 실행 시간, 아니면 ✗와 실패한 셀 수입니다. "
            "그 실행 뒤에 노트북을 고쳤거나 다시 실행했으면 \u201c이후 바뀜\u201d, 그 환경에서 "
            "실행하지 않았으면 줄표(\u2014)입니다. 출력 전체 비교: 저장된 출력을 모두 새 실행의 "
            "출력과 비교합니다. `assert`·예외만 확인: 모든 셀이 예외 없이 실행되는지(`assert` 문 포함) 확인하고, "
            "출력된 글자는 비교하지 않습니다."
        ),
    },
}


def _summary(groups: dict, dates: list[str], text: dict) -> dict[str, str]:
    """A reader's summary of the passing runs: the torch range, the devices, when, and which
    releases printed the outputs shown (strict runs); the status page lists every run."""
    releases = sorted({r for rs in groups.values() for r in rs}, key=_release_key)
    minor = [".".join(r.split(".")[:2]) for r in releases]
    rng = minor[0] if minor[0] == minor[-1] else text["range"].format(first=minor[0], last=minor[-1])
    devices = list(dict.fromkeys(device for device, _ in groups))
    strict = [r for (_, mode), rs in groups.items() if mode == MODE_NAMES["strict"] for r in rs]
    first, last = min(dates), max(dates)
    when = text["same_day"].format(day=last) if first == last else text["between"].format(first=first, last=last)
    outputs = text["outputs"].format(releases=_and(strict, text["and"])) if strict else ""
    return {
        "range": rng,
        "devices": _and(devices, text["and"]),
        "when": when,
        "outputs": outputs,
    }


def _with_code(text: str) -> list[nodes.Node]:
    """A string's nodes, with what it writes between backticks as code (`assert` in the Korean
    legend and mode name, as in the book's prose), so no backtick reaches the page."""
    return [
        nodes.literal(part, part) if index % 2 else nodes.Text(part)
        for index, part in enumerate(text.split("`"))
        if part
    ]


def verified_box(stem: str, current_hash: str, records: list[dict], app=None, docname: str = "") -> nodes.container:
    edition = getattr(app.config, "book_edition", "en") if app else "en"
    text = TEXT.get(edition, TEXT["en"])
    groups, failing, stale, dates = chapter_state(stem, current_hash, records, text)
    para = nodes.paragraph()
    if groups:
        para += nodes.strong(text["verified"], text["verified"])
        para += nodes.Text(text["on"].format(**_summary(groups, dates, text)))
    else:
        para += nodes.strong(text["none"], text["none"])
        para += nodes.Text(text["none_why"])
    if failing:
        para += _with_code(text["fails"].format(what="; ".join(failing)))
    if stale:
        para += _with_code(text["stale"].format(what="; ".join(stale)))
    if app is not None:
        para += nodes.Text(text["details"])
        para += _status_link(app, docname, text["status"])
        para += nodes.Text(".")
    box = nodes.container(classes=[BOX_CLASS])
    box += para
    return box


def _insert_box(app, doctree):
    docname = app.env.docname
    if not docname.startswith("notebooks/"):
        return
    # A translated edition (notebooks/ko/) copies the English code cells and outputs unchanged,
    # so the English notebook's record is the one that holds for it.
    stem = Path(docname).name
    notebook = ROOT / "notebooks" / f"{stem}.ipynb"
    if not notebook.exists():
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None or not isinstance(section[0], nodes.title):
        return
    box = verified_box(stem, notebook_hash(notebook), load_records(), app, docname)
    section.insert(1, box)


class VerifiedStatus(SphinxDirective):
    """The chapter × environment table of the recorded runs."""

    has_content = False

    def run(self):
        self.env.verified_status_docs = getattr(self.env, "verified_status_docs", set())
        self.env.verified_status_docs.add(self.env.docname)
        records = load_records()
        chapters = book_order(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
        hashes = {stem: notebook_hash(ROOT / "notebooks" / f"{stem}.ipynb") for stem in chapters}

        edition = getattr(self.config, "book_edition", "en")
        text = TEXT.get(edition, TEXT["en"])
        folder = "notebooks" if edition == "en" else f"notebooks/{edition}"
        table = nodes.table(classes=["verified-status"])
        group = nodes.tgroup(cols=len(records) + 1)
        table += group
        for _ in range(len(records) + 1):
            group += nodes.colspec(colwidth=1)
        head = nodes.thead()
        group += head
        header = nodes.row()
        head += header
        header += self._entry(nodes.Text(text["chapter"]))
        for record in records:
            env = record["environment"]
            header += self._entry(_with_code(f"{environment_label(env, text)} ({record['date']})"))
        body = nodes.tbody()
        group += body
        for stem in chapters:
            row = nodes.row()
            body += row
            ref = addnodes.pending_xref(
                "",
                refdomain="std",
                reftype="doc",
                reftarget=f"/{folder}/{stem}",
                refexplicit=False,
            )
            ref += nodes.inline(stem, stem)
            chapter = self._entry(ref)
            chapter[0][TITLED] = f"{folder}/{stem}"
            row += chapter
            for record in records:
                row += self._entry(nodes.Text(self._cell(record["notebooks"].get(stem), hashes[stem], text)))
        legend = nodes.paragraph()
        legend += _with_code(text["legend"])
        return [table, legend]

    @staticmethod
    def _entry(child: nodes.Node | list[nodes.Node]) -> nodes.entry:
        entry = nodes.entry()
        para = nodes.paragraph()
        para += child
        entry += para
        return entry

    @staticmethod
    def _cell(entry: dict | None, current_hash: str, text: dict | None = None) -> str:
        text = text or TEXT["en"]
        if entry is None:
            return "\u2014"
        if entry["hash"] != current_hash:
            return text["changed"]
        if entry["result"] != "pass":
            if entry["cells"] is None:
                return "✗"
            return text["failed_of"].format(failed=len(entry["failed_cells"]), cells=entry["cells"])
        if entry["seconds"] is None:
            return "✓"
        return f"✓ {entry['seconds']:.1f} s"


TITLED = "verified_chapter"  # the docname whose title a chapter cell of the table shows


def titles_with_code(doctree: nodes.Node, titles: dict) -> None:
    """Give each chapter cell of the table its page's title as the page shows it.

    Sphinx resolves a :doc: reference to the title's plain text, so `meta` in the Korean title of
    03_meta_device would lose its code font; the title node the environment keeps has it."""
    for para in list(doctree.findall(lambda n: isinstance(n, nodes.Element) and TITLED in n.attributes)):
        title = titles.get(para[TITLED])
        if title is None:
            continue
        for inline in list(para.findall(nodes.inline)):
            if "doc" in inline["classes"]:
                del inline[:]
                inline.extend(child.deepcopy() for child in title.children)
        del para[TITLED]


def _titles_with_code(app, doctree, docname):
    titles_with_code(doctree, app.env.titles)


def _outdated(app, env, added, changed, removed):
    """Re-read the chapters and the status page whenever the records change."""
    fingerprint = _records_fingerprint()
    if getattr(env, "verified_records_fingerprint", None) == fingerprint:
        return []
    env.verified_records_fingerprint = fingerprint
    docs = {d for d in env.found_docs if d.startswith("notebooks/")}
    docs |= getattr(env, "verified_status_docs", set()) & env.found_docs
    return sorted(docs - set(added) - set(changed))


def _merge(app, env, docnames, other):
    env.verified_status_docs = getattr(env, "verified_status_docs", set()) | getattr(
        other, "verified_status_docs", set()
    )


def _purge(app, env, docname):
    getattr(env, "verified_status_docs", set()).discard(docname)


def setup(app):
    app.add_directive("verified-status", VerifiedStatus)
    app.connect("doctree-read", _insert_box)
    app.connect("env-get-outdated", _outdated)
    app.connect("env-merge-info", _merge)
    app.connect("env-purge-doc", _purge)
    app.connect("doctree-resolved", _titles_with_code)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
