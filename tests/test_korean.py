"""The Korean edition: generated from the English notebooks, current cell by cell, consistent in its terms."""

from __future__ import annotations

import copy
import functools
import html
import importlib.util
import json
import re

import pytest
from korean import (
    CHECKER_NOTE,
    EXERCISES_HEADING,
    FIGURES,
    KO_BOOK,
    KO_NOTEBOOKS,
    KOREAN_FONTS,
    PAGES,
    audit,
    caption_of,
    chapters,
    digest,
    dumps,
    english_units,
    figure_output,
    has_checkers,
    korean_notebook,
    load_english,
    load_store,
    page_header,
    source,
    stored_figure,
    with_checker_note,
)

CHAPTERS = chapters()
FENCE = re.compile(r"^(`{3,}|:{3,}).*?^\1", re.MULTILINE | re.DOTALL)
ROLE = re.compile(r"\{(\w+)\}`([^`]*)`")
CODE_SPAN = re.compile(r"`([^`]+)`")
MATH_SPAN = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.DOTALL)
HANGUL = "\uac00-\ud7a3"


def describe(chapter: str, unit: dict) -> str:
    first = unit["en"].strip().splitlines()[0][:60]
    return f"{chapter} cell {unit['index']} ({unit['kind']}, id {unit['cell']}): {first!r}"


def stale_report(chapter: str, nb: dict | None = None, store: list[dict] | None = None) -> list[str]:
    report = audit(chapter, nb, store)
    lines = [f"{describe(chapter, u)}: English changed since it was translated" for u in report["stale"]]
    lines += [f"{describe(chapter, u)}: not translated" for u in report["missing"]]
    lines += [f"{chapter}: translation of a cell that no longer exists (id {e['cell']})" for e in report["orphans"]]
    return lines


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_prose_cell_is_translated_and_current(chapter):
    problems = stale_report(chapter)
    assert problems == [], "update book/ko/translations (python tools/korean.py pending CHAPTER):\n" + "\n".join(
        problems
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
    assert committed == dumps(korean_notebook(chapter)), "run: make book (or python tools/korean.py build)"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_code_and_outputs_are_the_english_ones(chapter):
    english = load_english(chapter)["cells"]
    korean = json.loads((KO_NOTEBOOKS / f"{chapter}.ipynb").read_text(encoding="utf-8"))["cells"]
    assert [c["id"] for c in korean] == [c["id"] for c in english]
    for en, ko in zip(english, korean, strict=True):
        assert ko["cell_type"] == en["cell_type"]
        if en["cell_type"] != "code":
            continue
        assert json.dumps(ko["source"]) == json.dumps(en["source"]), en["id"]
        outputs = copy.deepcopy(ko["outputs"])
        if en["id"] in REDRAWN.get(chapter, set()):
            # the one exception (tools/korean.py FIGURES): the figure's PNG output is an SVG of
            # the same figure with Korean labels; every other output of the cell is the English one
            index, _ = figure_output(en)
            redrawn = outputs[index]
            assert set(redrawn["data"]) == set(en["outputs"][index]["data"]) - {"image/png"} | {"image/svg+xml"}
            redrawn["data"].pop("image/svg+xml")
            redrawn["data"]["image/png"] = en["outputs"][index]["data"]["image/png"]
            redrawn["metadata"]["image/png"] = redrawn["metadata"].pop("image/svg+xml")
        assert json.dumps(outputs, sort_keys=True) == json.dumps(en["outputs"], sort_keys=True), en["id"]
        assert ko["execution_count"] == en["execution_count"]
        tags = en.get("metadata", {}).get("tags", [])
        assert ko.get("metadata", {}).get("tags", []) == tags
        if caption_of(en):
            assert caption_of(ko) and caption_of(ko) != caption_of(en), f"{chapter}: caption of {en['id']}"


REDRAWN: dict[str, set[str]] = {}
for _figure in FIGURES:
    REDRAWN.setdefault(_figure.chapter, set()).add(_figure.cell)
FIGURE_IDS = [f"{f.chapter}:{f.cell}" for f in FIGURES]


def test_the_redrawn_figures_are_the_book_s_figures():
    """The exceptions are explicit: each names a cell of its chapter with one PNG output, and says
    where its data comes from."""
    assert FIGURES, "no figure is redrawn; drop this test with the mechanism"
    for figure in FIGURES:
        cell = next(c for c in load_english(figure.chapter)["cells"] if c["id"] == figure.cell)
        assert figure_output(cell) is not None, figure.cell
        assert len(figure.why) > 40 and figure.labels


@pytest.mark.parametrize("figure", FIGURES, ids=FIGURE_IDS)
def test_a_redrawn_figure_is_current_and_in_the_korean_notebook(figure):
    """Drawn from the English figure as it is now (else: `python tools/korean.py figures`), and in
    the generated Korean notebook in place of that PNG."""
    stored = stored_figure(figure)
    assert stored is not None, f"no {figure.path.name}: run python tools/korean.py figures"
    cell = next(c for c in load_english(figure.chapter)["cells"] if c["id"] == figure.cell)
    index, png = figure_output(cell)
    assert stored[0] == png, (
        f"{figure.chapter} cell {figure.cell}: the English figure changed since its Korean "
        "drawing; run python tools/korean.py figures"
    )
    korean = next(c for c in korean_notebook(figure.chapter)["cells"] if c["id"] == figure.cell)
    assert korean["outputs"][index]["data"]["image/svg+xml"] == stored[1]
    assert "image/png" not in korean["outputs"][index]["data"]


SVG_TEXT = re.compile(r"<text\b[^>]*>(.*?)</text>", re.DOTALL)


@pytest.mark.parametrize("figure", FIGURES, ids=FIGURE_IDS)
def test_a_redrawn_figure_labels_in_korean_with_the_readers_font(figure):
    """Its text is text (the reader's Hangul font draws it, as it draws the page), in Korean but for
    names and numbers; it loads nothing (no image, font or style from anywhere)."""
    svg = stored_figure(figure)[1]
    texts = [html.unescape(re.sub(r"<[^>]+>", "", t)) for t in SVG_TEXT.findall(svg)]
    assert any(re.search(f"[{HANGUL}]", t) for t in texts)
    latin = {w for t in texts for w in re.findall(r"[A-Za-zµ]+", t)}
    assert latin <= figure.names, sorted(latin - figure.names)
    english = {e for pattern, _ in figure.labels for e in [pattern] if "(" not in pattern}
    assert not [t for t in texts if t in english]
    assert f"font-family: {KOREAN_FONTS}" in svg
    assert not re.search(r"<image|@import|@font-face|url\((?!#)|href=\"http", svg)


@pytest.mark.parametrize("name", PAGES)
def test_translated_pages_are_current(name):
    first = (KO_BOOK / f"{name}.md").read_text(encoding="utf-8").splitlines()[0]
    assert first == page_header(name), f"book/{name}.md changed: update book/ko/{name}.md and its first line"


def glossary(text: str | None = None) -> list[tuple[str, str, list[str]]]:
    """(English, this book's form, rejected forms) for every row of the style sheet's tables (see _glossary)."""
    return list(_glossary((KO_BOOK / "glossary.md").read_text(encoding="utf-8") if text is None else text))


@functools.cache
def _glossary(text: str) -> list[tuple[str, str, list[str]]]:
    """(English, this book's form, rejected forms) for every row of the style sheet's tables.

    The page marks a stem with a trailing hyphen ("import하-", "할당받-"), as Korean grammar writes
    stems, so that a reader does not take it for a typo; the rejected form is the stem without the
    hyphen, found where a word starts, so it catches every ending ("할당받은", "할당받아")."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 3 and cells[0] not in {"English", "---"}:
            others = [w.strip().removesuffix("-").rstrip() for w in cells[2].split(",") if w.strip()]
            rows.append((cells[0], cells[1], others))
    return rows


def test_a_stem_shown_with_a_hyphen_is_found_without_it():
    """The page shows "할당받-" (a bare stem reads as a typo); the test looks for 할당받."""
    (row,) = glossary("| assign | 대입 | 다시 할당, 할당받- |")
    assert row == ("assign", "대입", ["다시 할당", "할당받"])
    assert rejected_pattern(row[2][1]).search("값을 할당받은 속성입니다.")
    shown = (KO_BOOK / "glossary.md").read_text(encoding="utf-8")
    stems = ["import하", "할당받", "다시 묶", "공유시키"]
    assert [s for s in stems if f"{s}-" not in shown] == []
    rejected = {form for _, _, others in glossary() for form in others}
    assert set(stems) <= rejected
    assert not [f for f in rejected if f.endswith("-") or not f]


LINK_TARGET = re.compile(r"(?<=\])\([^()\s]*\)|<[^<>]*>|https?://\S+")


CODE_FENCE = re.compile(r"^(`{3,}).*?^\1", re.MULTILINE | re.DOTALL)
# A directive's own lines (`:::{exercise}`, `:label: ...`, `:::`): its body is prose (an exercise).
DIRECTIVE_LINE = re.compile(r"^\s*(:{3,}.*|:[\w-]+:.*)$", re.MULTILINE)


def prose_only(text: str) -> str:
    """The words of a text: no code blocks, directive lines, roles, code spans, math, link targets
    or HTML tags. The body of a `:::` directive (an exercise, a dropdown) is prose and is kept."""
    text = DIRECTIVE_LINE.sub("", CODE_FENCE.sub("", text))
    text = ROLE.sub("", text)
    text = MATH_SPAN.sub("", CODE_SPAN.sub("", text))
    return LINK_TARGET.sub("", text)


@functools.cache
def rejected_pattern(form: str) -> re.Pattern:
    """A rejected form where it starts a word: after no Hangul syllable (nor, for a form that starts
    with a Latin letter, after a letter, digit, `_` or `-`: `all-reduce` is not `reduce`).
    A form of several words also matches across a line break."""
    before = HANGUL + ("A-Za-z0-9_\\-" if form[0].isascii() and form[0].isalpha() else "")
    body = r"\s+".join(re.escape(word) for word in form.split())
    return re.compile(rf"(?<![{before}]){body}")


# Register and borrowed structures (glossary.md, "문체"). Each is checked on prose without code, math
# or role targets, except ENGLISH_VERB, which also catches a code span conjugated as a verb.
ENDINGS = "하|합|해|했|한|할|함|되|됩|돼|됐|된|될|됨|시키|시킵|시켜|시킨"
STYLE_RULES = [
    ("-십시오 imperative (write -세요)", re.compile(r"십시오")),
    (
        "해요체 ending (write -ㅂ니다 / -세요)",
        re.compile(
            # a sentence-final 요 (not -세요, 필요, 중요, 개요); a question to the reader may end in -까요?
            rf"(?<=[{HANGUL}])(?<![세필중개])요(?=[.!)]|$)|(?<=[{HANGUL}])(?<![까필중개])요\?"
            rf"|[{HANGUL}]죠(?=[.!?]|$)",
            re.MULTILINE,
        ),
    ),
    ("literal 그것을 (name the thing, or drop it)", re.compile(r"그것을")),
    (
        "책의 패키지 (write 이 책의 패키지)",
        re.compile(rf"(?<![{HANGUL}])(?<!이\s)책의\s+패키지"),
    ),
    (
        "만 added to a count (the English states the count: 37개 중 14개에서)",
        re.compile(r"\d+개\s+중\s+\d+개에서만"),
    ),
]
ENGLISH_VERB = re.compile(rf"(?:(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9_\-]*|`[^`\n]+`)(?:{ENDINGS})")
# an English gloss in parentheses right after the Korean term: *영속 버퍼*(persistent buffer)
GLOSS = re.compile(rf"(?<=[{HANGUL}*])\([A-Za-z][^(){HANGUL}]*\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$", re.MULTILINE)
HEADING_SENTENCE = re.compile(r"(?:다|는가|인가|까)[.?!]?$")


# A quotation of a source stays verbatim, in the source's words: text inside quotation marks
# (typographic “…” or, as the translations write them, "…" on one line) and block quotes (`> ` lines).
QUOTATION = re.compile(r"“[^”]*”|\"[^\"\n]*\"|^[ \t]*>.*$", re.MULTILINE)


def unquoted(text: str) -> str:
    return QUOTATION.sub(" ", text)


def style_problems(text: str) -> list[str]:
    """Everything in one Korean text that the style sheet (book/ko/glossary.md) rejects, outside
    quotations of a source (which keep the source's words)."""
    text = unquoted(text)
    prose = prose_only(text)
    unglossed = GLOSS.sub("", prose)
    found = []
    for english, ours, others in glossary():
        for other in others:
            if rejected_pattern(other).search(unglossed if other.isascii() else prose):
                found.append(f"{other!r} (this book writes {ours!r} for {english})")
    for name, pattern in STYLE_RULES:
        found += [f"{m.group()!r}: {name}" for m in pattern.finditer(prose)]
    no_roles = MATH_SPAN.sub("", ROLE.sub("", DIRECTIVE_LINE.sub("", CODE_FENCE.sub("", text))))
    found += [
        f"{m.group()!r}: an English word conjugated with 하다/되다 (use a Korean verb)"
        for m in ENGLISH_VERB.finditer(no_roles)
    ]
    for m in HEADING.finditer(FENCE.sub("", text)):
        if HEADING_SENTENCE.search(CODE_SPAN.sub("", m.group(1)).rstrip()):
            found.append(f"heading {m.group(1)!r}: write headings as noun phrases")
    return found


def korean_texts() -> list[tuple[str, str]]:
    """(where, text) for every Korean text the built book shows: current translations and pages."""
    texts = []
    for chapter in CHAPTERS:
        current = {(u["cell"], u["kind"]) for u in audit(chapter)["current"]}
        texts += [(f"{chapter}:{e['cell']}", e["ko"]) for e in load_store(chapter) if (e["cell"], e["kind"]) in current]
    texts += [(f"book/ko/{p}.md", (KO_BOOK / f"{p}.md").read_text(encoding="utf-8")) for p in PAGES]
    return texts


def kept_spans(text: str) -> set[str]:
    """What a translation must carry over unchanged: code, math and the targets of roles.

    A role's link text may be translated (`{ref}`그 오류 <ddp-lazy>``), its target may not.
    Fenced code blocks count as a whole; a code span may wrap onto the next line.
    """
    kept = {" ".join(block.split()) for block in re.findall(r"^`{3,}.*?^`{3,}", text, re.MULTILINE | re.DOTALL)}
    text = re.sub(r"^`{3,}.*?^`{3,}", "", text, flags=re.MULTILINE | re.DOTALL)
    for name, content in ROLE.findall(text):
        target = re.search(r"<([^<>]+)>\s*$", content)
        kept.add(f"{{{name}}}" + (target.group(1) if target else content).strip())
    text = ROLE.sub("", text)
    kept |= {"`" + " ".join(span.split()) + "`" for span in CODE_SPAN.findall(text)}
    kept |= {" ".join(m.split()) for m in MATH_SPAN.findall(CODE_SPAN.sub("", text))}
    return kept


def test_kept_spans_ignore_translated_link_text():
    english = "See {ref}`that error <ddp-lazy>`, `nn.Linear(...,\nbias=False)` and $x^2$."
    korean = "{ref}`그 오류 <ddp-lazy>`, `nn.Linear(..., bias=False)`, $x^2$를 보세요."
    assert kept_spans(english) == kept_spans(korean)
    assert kept_spans(english) - kept_spans("{ref}`오류 <other>`") >= {"{ref}ddp-lazy"}


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_code_spans_and_math_are_kept(chapter):
    """API names stay in code font and in English; math is not translated."""
    english = {(u["cell"], u["kind"]): u["en"] for u in audit(chapter)["current"]}
    for entry in load_store(chapter):
        en = english.get((entry["cell"], entry["kind"]))
        if en is None:
            continue
        missing = kept_spans(en) - kept_spans(entry["ko"])
        assert not missing, f"{chapter} cell id {entry['cell']}: {sorted(missing)} lost in translation"


ISSUE_21_CONCEPTS = [
    "freeze",
    "pinned",
    "step",
    "epoch",
    "argument",
    "Python",
    "sample",
    "plain",
    "crash",
    "slope",
    "qualified name",
    "cumulative",
    "state dict",
    "persistent",
    "reduce",
    "gather",
    "import",
    "method",
    "gradient",
    "leaf",
]


def test_glossary_has_one_form_for_every_concept_the_review_named():
    rows = glossary()
    assert len(rows) >= 60
    english = " ".join(row[0] for row in rows)
    assert [c for c in ISSUE_21_CONCEPTS if c not in english] == []
    forms = [row[1] for row in rows]
    rejected = [form for row in rows for form in row[2]]
    clash = [form for form in rejected if any(rejected_pattern(form).match(f) for f in forms)]
    assert clash == [], "a form the glossary uses is also one it rejects"


@pytest.mark.parametrize(
    "text",
    [
        "두 에폭 동안 학습합니다.",
        "학습률이 50스텝 뒤에 줄어듭니다.",
        "이 인수를 생략합니다.",
        "파이썬 속성입니다.",
        "평범한 속성입니다.",
        "긴 학습은 충돌이 일어나도 안전합니다.",
        "`named_parameters()`가 돌려주는 정규화된 이름입니다.",
        "여기 state dict가 있습니다.",
        "persistent이든 아니든 같습니다.",
        "한 번 reduce하는 것입니다.",
        "개수를 all-gather해서 합칩니다.",
        "설정 셀이 import하는 이름들입니다.",
        "`weight` 속성은 새 텐서를 할당받습니다.",
        "두 가중치를 다시 묶어 둡니다.",
        "디코더가 인코더와 가중치를 공유시키는 코드입니다.",
        "질문을 던집니다.",
        "이 방법은 모델 모음의 어딘가에서 멈춥니다.",
        "`all_reduce`하면 됩니다.",
        "레이어를 쌓습니다.",
        "이 층을 쓰십시오.",
        "메모리를 고정하면 빨라져요.",
        "그게 다죠.",
        "모델은 그것을 다시 읽습니다.",
        "경계는 이야기의 절반일 뿐입니다.",
        "랭크 0의 버퍼를 랭크 1 위에 복사합니다.",
        "### 버퍼도 `state_dict`에 들어 있다",
        "## 효과는 얼마나 클까?",
        "### 경계는 어디서 오는가",
        "### `Join` 아래에서는 가장 높은 랭크의 버퍼가 쓰입니다",
        "매개변수를\n고정하거나 공유합니다.",
        "한 번은 해롭지 않습니다. 단계마다 한 번일 테니까요.",
        "이 셀은 `torch.load(path)`를 호출합니다. 그다음 `os.replace`합니다.",
        "*영속 버퍼*(persistent buffer)는 persistent 여부와 상관없이 같습니다.",
        "책의 패키지에 있는 함수입니다.",
        "확인 함수는 책의 패키지(`inside_nn`)에 있습니다.",
        "모델 모음 37개 중 14개에서만 통합니다.",
        "텐서의 dtype을 바꿉니다.",
        "LayerNorm을 쓰는 ViT입니다.",
        "프로세스 그룹의 시간 제한이 지납니다.",
        "가수부 비트가 적습니다.",
    ],
)
def test_the_style_sheet_rejects(text):
    assert style_problems(text), text


@pytest.mark.parametrize(
    "text",
    [
        "두 에포크 동안 학습합니다. 계층을 쌓고, 필요한 것만 합니다.",
        "`epoch_에폭` 코드 안의 낱말과 $에폭$ 수식은 검사하지 않습니다.",
        "{ref}`에폭 <io-resume>` 링크 대상도 검사하지 않습니다.",
        "```python\nx = 1  # 에폭, 쓰십시오\n```",
        "all-reduce를 한 번 합니다. 시드를 고정하고, 고정 메모리를 씁니다.",
        "두 실행이 포트에서 충돌하지 않습니다. 일반 속성은 중요합니다.",
        "### 텐서 저장하기",
        "## 버퍼가 `state_dict`에 들어가는 이유",
        "`torch.save`를 호출하세요. `.to()`를 쓰지 마세요.",
        "CUDA 한 번, GPU 두 개, Python 3.9 이상입니다.",
        "*영속 버퍼*(persistent buffer)가 들어 있습니다. 어떤 일이 일어날까요? 필요. 중요.",
        "이 책의 패키지에 있는 함수입니다. 이\n책의 패키지(`inside_nn`)입니다.",
        "모델 모음 37개 중 14개에서 통합니다. 자료형(dtype)과 `dtype` 인자, `nn.LayerNorm`입니다.",
        "계층 정규화(LayerNorm)와 RMS 정규화(RMSNorm)를 씁니다. 프로세스 그룹의 제한 시간입니다.",
    ],
)
def test_the_style_sheet_accepts(text):
    assert style_problems(text) == [], text


SOURCE_QUOTE = "모델의 파라미터와 버퍼는 각 프로세스 간에 동기화됩니다"


@pytest.mark.parametrize(
    "text",
    [
        f'GPT-4: "{SOURCE_QUOTE}"라고 답합니다.',
        f"GPT-4는 “{SOURCE_QUOTE}”라고 답합니다.",
        f"GPT-4의 답입니다.\n\n> {SOURCE_QUOTE}\n\n매개변수는 그렇지 않습니다.",
    ],
)
def test_a_banned_variant_inside_a_quotation_passes_and_outside_fails(text):
    """A quotation keeps the source's words (파라미터, the glossary's rejected form for parameter);
    the same words in the book's own prose are rejected."""
    assert style_problems(text) == [], text
    outside = text.replace('"', "").replace("“", "").replace("”", "").replace("> ", "")
    assert any("'파라미터'" in p for p in style_problems(outside)), outside


def test_chapter_7_quotes_the_forum_thread_verbatim():
    """The GPT-4 answer quoted in chapter 7's table is the source's sentence, word for word."""
    thread = KO_BOOK.parent.parent.parent / "shared/sources/forum-thread-register-buffer-ddp.ko.txt"
    ko = "".join(e["ko"] for e in load_store("07_buffers_and_ddp"))
    assert f'"{SOURCE_QUOTE}"' in ko
    if thread.exists():
        assert SOURCE_QUOTE in thread.read_text(encoding="utf-8")


def test_a_planted_variant_in_chapter_5_is_rejected():
    """The style test can fail: 에폭 put into a copy of chapter 5's text is named; the original passes.
    (Chapter 5 first; any chapter that writes 에포크 if chapter 5 is being rewritten.)"""
    order = [c for c in CHAPTERS if c.startswith("05_")] + CHAPTERS
    entries = [e for c in order for e in load_store(c) if "에포크" in prose_only(e["ko"])]
    assert entries, "no chapter writes 에포크; the plant needs a sentence to put 에폭 into"
    entry = entries[0]
    assert style_problems(entry["ko"]) == []
    planted = entry["ko"].replace("에포크", "에폭", 1)
    assert any("'에폭'" in p and "에포크" in p for p in style_problems(planted))


# The review of 2026-12-03 (shared/reviews/2026-12-03/korean.md) counted 26 groups of concepts written
# in more than one way across chapters. Each has one row in the glossary (one form, the variants
# rejected), or a rule of its own tested below (link texts, the Korean tutorials, the once-only notes).
REVIEW_2026_12_03_CONCEPTS = [
    "re-tie",
    "silently",
    "this chapter",
    "machine",
    "storage",
    "store (c10d",
    "thread (on a forum)",
    "broadcast",
    "BatchNorm",
    "barrier",
    "reference (API",
    "return (a value)",
    "helper",
    "checker",
    "legacy",
    "causal",
    "detached",
    "assign",
    "allocate",
    "sample (the same data",
    "eager",
    "pin (a release)",
    "stray tensor",
    "`meta` device",
    "assert",
    "derivative",
    "decay",
]

# The review of 2026-12-06 (shared/reviews/2026-12-06/korean.md, "Cross-page term inconsistencies")
# found more concepts written in more than one way; each has a glossary row, planted like the above.
REVIEW_2026_12_06_CONCEPTS = [
    "architecture",
    "rotary position embedding",
    "missing key / unexpected key",
    "stops working",
    "dtype",
    "LayerNorm",
    "RMSNorm",
    "timeout",
    "reset loop",
    "mantissa",
    "inode",
    "compute capability",
    "constrained parameter",
]


def test_glossary_has_one_form_for_every_group_of_the_2026_12_03_review():
    english = [row[0] for row in glossary()]
    missing = [c for c in REVIEW_2026_12_03_CONCEPTS if not any(c in e for e in english)]
    assert missing == []


def test_glossary_has_one_form_for_every_group_of_the_2026_12_06_review():
    english = [row[0] for row in glossary()]
    missing = [c for c in REVIEW_2026_12_06_CONCEPTS if not any(c in e for e in english)]
    assert missing == []


def _plain_form(form: str) -> str:
    """The words of a glossary form as they appear in running text: "(다시) 공유하다" -> "공유하",
    "대입 / 다시 대입" -> "대입", "`assert` (문)" -> "`assert`"."""
    words = re.sub(r"\s*\([^()]*\)\s*", " ", form).strip()
    first = re.split(r" / |, ", words)[0].strip()
    return first[:-1] if first.endswith("다") and len(first) > 2 else first


def _review_rows() -> list:
    concepts = REVIEW_2026_12_03_CONCEPTS + REVIEW_2026_12_06_CONCEPTS
    rows = [r for r in glossary() if any(c in r[0] for c in concepts)]
    return [pytest.param(r[0], _plain_form(r[1]), v, id=f"{r[0]}: {v}") for r in rows for v in r[2]]


@pytest.mark.parametrize(("english", "form", "variant"), _review_rows())
def test_a_planted_variant_of_a_2026_12_03_row_is_rejected(english, form, variant):
    """Each variant the review found, put in place of the book's form in the first text (book order)
    that uses that form, is named by the style test; the text as it is passes."""
    found = rejected_pattern(form)
    texts = [
        text
        for text, prose in _ko_texts_in_book_order()
        if found.search(prose) or (form.startswith("`") and form in text)
    ]
    assert texts, f"no chapter writes {form!r} ({english}); the plant needs a sentence to put {variant!r} into"
    text = texts[0]
    assert style_problems(text) == []
    planted = text.replace(form, variant, 1) if form.startswith("`") else found.sub(lambda m: variant, text, count=1)
    assert any(repr(variant) in p for p in style_problems(planted)), planted[:200]


@functools.cache
def _ko_texts_in_book_order() -> list[tuple[str, str]]:
    """(Korean text, its prose) of every translation, chapters in the book's order, read once."""
    order = [c for c in _toc_chapters() if c in CHAPTERS] + CHAPTERS
    return [(e["ko"], prose_only(e["ko"])) for c in order for e in load_store(c)]


def _toc_chapters() -> list[str]:
    from conftest import toc_files

    return [f.rsplit("/", 1)[1] for f in toc_files() if f.startswith("notebooks/")]


MARKDOWN_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])+)\]\((https?://[^)\s]+)\)")


def test_one_link_text_for_every_address():
    """A page the book links from several chapters has one name in Korean (review 2026-12-03, group
    21); a PyTorch note is named in Korean, not by its English title."""
    texts: dict[str, set[str]] = {}
    for _, text in korean_texts():
        for label, url in MARKDOWN_LINK.findall(text):
            if not re.fullmatch(r"`[^`]+`", label.strip()):  # an API name, kept as the English has it
                texts.setdefault(url, set()).add(" ".join(label.split()))
    assert {u: t for u, t in texts.items() if len(t) > 1} == {}
    notes = {u: t for u, t in texts.items() if "/docs/stable/notes/" in u}
    assert notes and all(re.search(f"[{HANGUL}]", t) for ts in notes.values() for t in ts), notes


def test_what_the_book_says_once_is_not_repeated_in_a_chapter():
    """The intro says that code and outputs are the English ones; the generated checker note says what
    ✓ and ✗ mean. No translated chapter says either again (review 2026-12-03, groups 23 and 24)."""
    repeated = [
        where
        for chapter in CHAPTERS
        for e in load_store(chapter)
        for where in [f"{chapter}:{e['cell']}"]
        if re.search(r"영어판과\s+(똑같|같)습니다|✓|✗", e["ko"])
    ]
    assert repeated == []
    assert "영어판과 바이트 단위로 같습니다" in (KO_BOOK / "intro.md").read_text(encoding="utf-8")


HEADING_LINE = re.compile(r"^(#{1,6})\s", re.MULTILINE)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_translations_keep_the_headings_of_the_english_cell(chapter):
    """Same number and levels of headings in every translated cell, so that the n-th section of a
    Korean page is the n-th section of the English one (the report links of chapter 8 rely on it)."""
    english = {(u["cell"], u["kind"]): u["en"] for u in audit(chapter)["current"]}
    wrong = []
    for entry in load_store(chapter):
        en = english.get((entry["cell"], entry["kind"]))
        if en is None:
            continue
        levels = [HEADING_LINE.findall(FENCE.sub("", t)) for t in (en, entry["ko"])]
        if levels[0] != levels[1]:
            wrong.append(f"{entry['cell']}: {levels[0]} != {levels[1]}")
    assert wrong == []


def test_prose_follows_the_style_sheet():
    """Every current translation and translated page: glossary terms, -세요, no 해요체, no English verbs."""
    found = [f"{where}: {problem}" for where, text in korean_texts() for problem in style_problems(text)]
    assert found == [], "see book/ko/glossary.md:\n" + "\n".join(found)


CHAPTER_LINK = re.compile(r"\[([^\]]+)\]\((\d\d_[a-z_]+)\.ipynb(?:#[^)]*)?\)")


def chapter_title(text: str) -> str:
    return re.search(r"^# (.+)$", text, re.MULTILINE).group(1).strip()


def test_links_to_a_chapter_use_its_korean_title():
    """Where the English names a chapter by its title, the Korean names it by its Korean title."""
    en_titles, ko_titles = {}, {}
    for chapter in CHAPTERS:
        first = english_units(load_english(chapter))[0]
        en_titles[chapter] = chapter_title(first["en"])
        entry = {(e["cell"], e["kind"]): e for e in load_store(chapter)}.get((first["cell"], "markdown"))
        if entry:
            ko_titles[chapter] = chapter_title(entry["ko"])
    wrong = []
    for chapter in CHAPTERS:
        english = {(u["cell"], u["kind"]): u["en"] for u in audit(chapter)["current"]}
        for entry in load_store(chapter):
            en = english.get((entry["cell"], entry["kind"]))
            if en is None:
                continue
            titled = {t for text, t in CHAPTER_LINK.findall(en) if text == en_titles.get(t)}
            wrong += [
                f"{chapter}:{entry['cell']}: [{text}]({target}) should read [{ko_titles[target]}]"
                for text, target in CHAPTER_LINK.findall(entry["ko"])
                if target in titled and target in ko_titles and " ".join(text.split()) != ko_titles[target]
            ]
    assert wrong == []


def test_the_checker_note_goes_under_the_exercises_heading_after_its_paragraph():
    """The note explains the checkers' lines, so it follows the paragraph that introduces the
    checkers (review 2026-12-06, chapter 5 item 4); under a bare heading it comes right under it."""
    assert with_checker_note("## 연습 문제") == f"## 연습 문제\n\n{CHECKER_NOTE}"
    assert with_checker_note("## 연습 문제\n\n본문.") == (f"## 연습 문제\n\n본문.\n\n{CHECKER_NOTE}")
    assert with_checker_note("## 연습 문제\n\n첫 줄\n둘째 줄\n") == (
        f"## 연습 문제\n\n첫 줄\n둘째 줄\n\n{CHECKER_NOTE}\n"
    )
    assert with_checker_note("## 연습 문제\n\n:::{exercise}\n본문.\n:::") == (
        f"## 연습 문제\n\n{CHECKER_NOTE}\n\n:::{{exercise}}\n본문.\n:::"
    )
    assert with_checker_note("## 요약\n\n본문.") == "## 요약\n\n본문."
    assert style_problems(CHECKER_NOTE) == []


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_korean_exercises_say_what_the_checker_lines_mean(chapter):
    """Checker messages stay English (the code is the English code); each Korean chapter says what
    ✓ and ✗ mean, once, under 연습 문제 (after its paragraph), generated by tools/korean.py."""
    nb = korean_notebook(chapter)
    if not has_checkers(nb):
        pytest.skip(f"{chapter} has no exercise checkers")
    sources = [source(c) for c in nb["cells"] if c["cell_type"] == "markdown"]
    headed = [s for s in sources if EXERCISES_HEADING in s.split("\n")]
    if not headed:
        pytest.skip(f"{chapter}: the exercises heading is not translated yet")
    notes = sum(s.count(CHECKER_NOTE) for s in sources)
    assert notes == 1
    cell = headed[0]
    assert cell.index(EXERCISES_HEADING) < cell.index(CHECKER_NOTE)
    assert f"\n\n{CHECKER_NOTE}" in cell
    # nothing but the heading's own paragraph between the heading and the note
    between = cell[cell.index(EXERCISES_HEADING) + len(EXERCISES_HEADING) : cell.index(CHECKER_NOTE)]
    assert len([p for p in between.split("\n\n") if p.strip()]) <= 1, between


def load_extension(name: str):
    spec = importlib.util.spec_from_file_location(f"book_ext_{name}", KO_BOOK.parent / "_ext" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Latin-script words the Korean status page may show: release and device names (torch 2.13.0, CPU).
STATUS_LATIN_ALLOWED = {"torch", "CPU", "CUDA", "MPS", "XPU", "s"}


def test_korean_status_page_words_are_korean():
    """Table header, modes, cell states and legend of the Korean status page (the page as built is
    checked by building it; this checks every string the directive can put on it)."""
    verified = load_extension("verified")
    text = verified.TEXT["ko"]
    record = {"mode": "lax", "torch": "2.6.0", "device": "cpu"}
    entries = [
        None,
        {"hash": "old"},
        {"hash": "now", "result": "fail", "cells": 30, "failed_cells": [3, 4]},
        {"hash": "now", "result": "fail", "cells": None, "failed_cells": []},
        {"hash": "now", "result": "pass", "seconds": 2.5},
    ]
    shown = [text["chapter"], text["legend"], verified.environment_label(record, text)]
    shown += [verified.VerifiedStatus._cell(e, "now", text) for e in entries]
    shown += [text[k] for k in ("verified", "none", "none_why", "fails", "stale")]
    # code (`assert`) stays code; placeholders ({what}) are filled in later
    latin = {w for s in shown for w in re.findall(r"[A-Za-z]+", re.sub(r"\{\w+\}|`[^`]*`", "", s))}
    assert latin <= STATUS_LATIN_ALLOWED, sorted(latin - STATUS_LATIN_ALLOWED)
    assert set(text) >= set(verified.TEXT["en"]), "a status string has no Korean form"


def test_the_status_table_shows_a_chapter_title_with_its_code():
    """Sphinx resolves the table's :doc: links to a title's plain text; the extension puts back the
    title as the page shows it, so `meta` in the title of 03_meta_device stays code (both editions)."""
    from docutils import nodes

    verified = load_extension("verified")
    title = chapter_title(load_store("03_meta_device")[0]["ko"])
    assert title.startswith("`meta`"), title
    docname = "notebooks/ko/03_meta_device"
    shown = nodes.title()
    shown += verified._with_code(title)
    para = nodes.paragraph()
    para[verified.TITLED] = docname
    plain = title.replace("`", "")
    link = nodes.reference("", "", refuri="03_meta_device.html")
    link += nodes.inline(plain, plain, classes=["doc"])
    para += link
    verified.titles_with_code(para, {docname: shown})
    (code,) = para.findall(nodes.literal)
    assert code.astext() == "meta" and para.astext() == plain
    assert verified.TITLED not in para.attributes


def test_korean_exercise_labels_are_the_glossary_words():
    labels = load_extension("korean_labels").LABELS
    words = {english: ours for english, ours, _ in glossary()}
    assert labels["Exercise"] == words["exercise"]
    assert labels["Solution"] == words["solution"]
    assert labels["Solution to"].startswith(words["solution"])
    overrides = (KO_BOOK / "overrides.yml").read_text(encoding="utf-8")
    assert "korean_labels: book/_ext" in overrides


# English tutorials that tutorials-kr (tutorials.pytorch.kr) translates and keeps up (its repository,
# PyTorchKorea/tutorials-kr, holds the source of each, at the same path the English site uses).
KOREAN_TUTORIALS = [
    "beginner/saving_loading_models.html",
    "intermediate/parametrizations.html",
    "recipes/recipes/profiler_recipe.html",
    "recipes/recipes/benchmark.html",
    "recipes/recipes/saving_and_loading_a_general_checkpoint.html",
]


def tutorial_links(text: str, site: str) -> set[str]:
    pattern = rf"\]\(https://{re.escape(site)}/([^)#\s]+)"
    return {p for p in re.findall(pattern, text) if p in KOREAN_TUTORIALS}


def test_a_tutorial_with_a_korean_version_is_linked_in_korean_with_the_english_beside_it():
    found = []
    for where, text in korean_texts():
        english = tutorial_links(text, "pytorch.org/tutorials")
        korean = tutorial_links(text, "tutorials.pytorch.kr")
        found += [f"{where}: {p} has no Korean link" for p in sorted(english - korean)]
        found += [f"{where}: {p} has no English link" for p in sorted(korean - english)]
    assert found == []
    assert tutorial_links(
        "[모델 저장](https://tutorials.pytorch.kr/beginner/saving_loading_models.html)",
        "tutorials.pytorch.kr",
    ) == {"beginner/saving_loading_models.html"}
