"""The Korean edition: generated from the English notebooks, current cell by cell, consistent in its terms."""

from __future__ import annotations

import copy
import json
import re

import pytest
from korean import (
    KO_BOOK,
    KO_NOTEBOOKS,
    PAGES,
    audit,
    caption_of,
    chapters,
    digest,
    dumps,
    korean_notebook,
    load_english,
    load_store,
    page_header,
    source,
)

CHAPTERS = chapters()
FENCE = re.compile(r"^(`{3,}|:{3,}).*?^\1", re.MULTILINE | re.DOTALL)
ROLE = re.compile(r"\{(\w+)\}`([^`]*)`")
CODE_SPAN = re.compile(r"`([^`]+)`")
MATH_SPAN = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.DOTALL)
HANGUL = "\uac00-\ud7a3"


def describe(chapter: str, unit: dict) -> str:
    first = unit["en"].strip().splitlines()[0][:60]
    return (
        f"{chapter} cell {unit['index']} ({unit['kind']}, id {unit['cell']}): {first!r}"
    )


def stale_report(
    chapter: str, nb: dict | None = None, store: list[dict] | None = None
) -> list[str]:
    report = audit(chapter, nb, store)
    lines = [
        f"{describe(chapter, u)}: English changed since it was translated"
        for u in report["stale"]
    ]
    lines += [f"{describe(chapter, u)}: not translated" for u in report["missing"]]
    lines += [
        f"{chapter}: translation of a cell that no longer exists (id {e['cell']})"
        for e in report["orphans"]
    ]
    return lines


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_prose_cell_is_translated_and_current(chapter):
    problems = stale_report(chapter)
    assert problems == [], (
        "update book/ko/translations (python tests/korean.py pending CHAPTER):\n"
        + "\n".join(problems)
    )


def test_a_changed_english_sentence_is_named_by_chapter_and_cell():
    chapter = CHAPTERS[0]
    nb = load_english(chapter)
    store = [
        {
            "cell": u["cell"],
            "kind": u["kind"],
            "en_sha256": digest(u["en"]),
            "ko": "번역",
        }
        for u in audit(chapter, nb, [])["missing"]
    ]
    assert stale_report(chapter, nb, store) == []
    edited = copy.deepcopy(nb)
    cell = next(c for c in edited["cells"] if c["cell_type"] == "markdown")
    cell["source"] = source(cell) + " One more sentence."
    (problem,) = stale_report(chapter, edited, store)
    assert problem.startswith(f"{chapter} cell 0 (markdown, id {cell['id']})")
    assert problem.endswith("English changed since it was translated")


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_korean_notebook_is_generated_from_the_english_one(chapter):
    committed = (KO_NOTEBOOKS / f"{chapter}.ipynb").read_text(encoding="utf-8")
    assert committed == dumps(korean_notebook(chapter)), (
        "run: make book (or python tests/korean.py build)"
    )


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_code_and_outputs_are_the_english_ones(chapter):
    english = load_english(chapter)["cells"]
    korean = json.loads(
        (KO_NOTEBOOKS / f"{chapter}.ipynb").read_text(encoding="utf-8")
    )["cells"]
    assert [c["id"] for c in korean] == [c["id"] for c in english]
    for en, ko in zip(english, korean, strict=True):
        assert ko["cell_type"] == en["cell_type"]
        if en["cell_type"] != "code":
            continue
        assert json.dumps(ko["source"]) == json.dumps(en["source"]), en["id"]
        assert json.dumps(ko["outputs"], sort_keys=True) == json.dumps(
            en["outputs"], sort_keys=True
        ), en["id"]
        assert ko["execution_count"] == en["execution_count"]
        tags = en.get("metadata", {}).get("tags", [])
        assert ko.get("metadata", {}).get("tags", []) == tags
        if caption_of(en):
            assert caption_of(ko) and caption_of(ko) != caption_of(en), (
                f"{chapter}: caption of {en['id']}"
            )


@pytest.mark.parametrize("name", PAGES)
def test_translated_pages_are_current(name):
    first = (KO_BOOK / f"{name}.md").read_text(encoding="utf-8").splitlines()[0]
    assert first == page_header(name), (
        f"book/{name}.md changed: update book/ko/{name}.md and its first line"
    )


def glossary() -> list[tuple[str, str, list[str]]]:
    rows = []
    for line in (KO_BOOK / "glossary.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if (
            line.startswith("|")
            and len(cells) == 3
            and cells[0] not in {"English", "---"}
        ):
            others = [w.strip() for w in cells[2].split(",") if w.strip()]
            rows.append((cells[0], cells[1], others))
    return rows


def korean_prose() -> list[tuple[str, str]]:
    """(where, text) for every Korean prose unit, code spans and math removed."""
    texts = [(f"{c}:{e['cell']}", e["ko"]) for c in CHAPTERS for e in load_store(c)]
    texts += [
        (f"book/ko/{p}.md", (KO_BOOK / f"{p}.md").read_text(encoding="utf-8"))
        for p in PAGES
    ]
    return [(where, prose_only(text)) for where, text in texts]


def prose_only(text: str) -> str:
    text = ROLE.sub("", FENCE.sub("", text))
    return MATH_SPAN.sub("", CODE_SPAN.sub("", text))


def kept_spans(text: str) -> set[str]:
    """What a translation must carry over unchanged: code, math and the targets of roles.

    A role's link text may be translated (`{ref}`그 오류 <ddp-lazy>``), its target may not.
    Fenced code blocks count as a whole; a code span may wrap onto the next line.
    """
    kept = {
        " ".join(block.split())
        for block in re.findall(r"^`{3,}.*?^`{3,}", text, re.MULTILINE | re.DOTALL)
    }
    text = re.sub(r"^`{3,}.*?^`{3,}", "", text, flags=re.MULTILINE | re.DOTALL)
    for name, content in ROLE.findall(text):
        target = re.search(r"<([^<>]+)>\s*$", content)
        kept.add(f"{{{name}}}" + (target.group(1) if target else content).strip())
    text = ROLE.sub("", text)
    kept |= {"`" + " ".join(span.split()) + "`" for span in CODE_SPAN.findall(text)}
    kept |= {" ".join(m.split()) for m in MATH_SPAN.findall(CODE_SPAN.sub("", text))}
    return kept


def test_kept_spans_ignore_translated_link_text():
    english = (
        "See {ref}`that error <ddp-lazy>`, `nn.Linear(...,\nbias=False)` and $x^2$."
    )
    korean = "{ref}`그 오류 <ddp-lazy>`, `nn.Linear(..., bias=False)`, $x^2$를 보세요."
    assert kept_spans(english) == kept_spans(korean)
    assert kept_spans(english) - kept_spans("{ref}`오류 <other>`") >= {"{ref}ddp-lazy"}


def test_glossary_has_terms():
    assert len(glossary()) >= 25


def test_prose_uses_the_glossary_terms():
    """A word the glossary lists as the other community's rendering never starts a Korean word here."""
    found = []
    for english, ours, others in glossary():
        for other in others:
            pattern = re.compile(rf"(?<![{HANGUL}]){re.escape(other)}")
            for where, text in korean_prose():
                if pattern.search(text):
                    found.append(
                        f"{where}: {other!r} (this book writes {ours!r} for {english})"
                    )
    assert found == []


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_code_spans_and_math_are_kept(chapter):
    """API names stay in code font and in English; math is not translated."""
    english = {(u["cell"], u["kind"]): u["en"] for u in audit(chapter)["current"]}
    for entry in load_store(chapter):
        en = english.get((entry["cell"], entry["kind"]))
        if en is None:
            continue
        missing = kept_spans(en) - kept_spans(entry["ko"])
        assert not missing, (
            f"{chapter} cell id {entry['cell']}: {sorted(missing)} lost in translation"
        )
