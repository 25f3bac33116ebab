"""The Korean edition: generated from the English notebooks, current cell by cell, consistent in its terms."""

from __future__ import annotations

import copy
import importlib.util
import json
import re

import pytest
from korean import (
    CHECKER_NOTE,
    EXERCISES_HEADING,
    KO_BOOK,
    KO_NOTEBOOKS,
    PAGES,
    audit,
    caption_of,
    chapters,
    digest,
    dumps,
    english_units,
    has_checkers,
    korean_notebook,
    load_english,
    load_store,
    page_header,
    source,
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
        "update book/ko/translations (python tools/korean.py pending CHAPTER):\n"
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
        "run: make book (or python tools/korean.py build)"
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
    """(English, this book's form, rejected forms) for every row of the style sheet's tables."""
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


def prose_only(text: str) -> str:
    text = ROLE.sub("", FENCE.sub("", text))
    return MATH_SPAN.sub("", CODE_SPAN.sub("", text))


def rejected_pattern(form: str) -> re.Pattern:
    """A rejected form where it starts a word: after no Hangul syllable (nor, for a form that starts
    with a Latin letter, after a letter, digit, `_` or `-`: `all-reduce` is not `reduce`).
    A form of several words also matches across a line break."""
    before = HANGUL + (
        "A-Za-z0-9_\\-" if form[0].isascii() and form[0].isalpha() else ""
    )
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
]
ENGLISH_VERB = re.compile(
    rf"(?:(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9_\-]*|`[^`\n]+`)(?:{ENDINGS})"
)
# an English gloss in parentheses right after the Korean term: *영속 버퍼*(persistent buffer)
GLOSS = re.compile(rf"(?<=[{HANGUL}*])\([A-Za-z][^()]*\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$", re.MULTILINE)
HEADING_SENTENCE = re.compile(r"(?:다|는가|인가|까)[.?!]?$")


def style_problems(text: str) -> list[str]:
    """Everything in one Korean text that the style sheet (book/ko/glossary.md) rejects."""
    prose = prose_only(text)
    unglossed = GLOSS.sub("", prose)
    found = []
    for english, ours, others in glossary():
        for other in others:
            if rejected_pattern(other).search(unglossed if other.isascii() else prose):
                found.append(f"{other!r} (this book writes {ours!r} for {english})")
    for name, pattern in STYLE_RULES:
        found += [f"{m.group()!r}: {name}" for m in pattern.finditer(prose)]
    no_roles = MATH_SPAN.sub("", ROLE.sub("", FENCE.sub("", text)))
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
        texts += [
            (f"{chapter}:{e['cell']}", e["ko"])
            for e in load_store(chapter)
            if (e["cell"], e["kind"]) in current
        ]
    texts += [
        (f"book/ko/{p}.md", (KO_BOOK / f"{p}.md").read_text(encoding="utf-8"))
        for p in PAGES
    ]
    return texts


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
    clash = [
        form for form in rejected if any(rejected_pattern(form).match(f) for f in forms)
    ]
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
    ],
)
def test_the_style_sheet_accepts(text):
    assert style_problems(text) == [], text


def test_a_planted_variant_in_chapter_5_is_rejected():
    """The style test can fail: 에폭 put into a copy of chapter 5's text is named; the original passes.
    (Chapter 5 first; any chapter that writes 에포크 if chapter 5 is being rewritten.)"""
    order = [c for c in CHAPTERS if c.startswith("05_")] + CHAPTERS
    entries = [
        e for c in order for e in load_store(c) if "에포크" in prose_only(e["ko"])
    ]
    assert entries, (
        "no chapter writes 에포크; the plant needs a sentence to put 에폭 into"
    )
    entry = entries[0]
    assert style_problems(entry["ko"]) == []
    planted = entry["ko"].replace("에포크", "에폭", 1)
    assert any("'에폭'" in p and "에포크" in p for p in style_problems(planted))


def test_prose_follows_the_style_sheet():
    """Every current translation and translated page: glossary terms, -세요, no 해요체, no English verbs."""
    found = [
        f"{where}: {problem}"
        for where, text in korean_texts()
        for problem in style_problems(text)
    ]
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
        entry = {(e["cell"], e["kind"]): e for e in load_store(chapter)}.get(
            (first["cell"], "markdown")
        )
        if entry:
            ko_titles[chapter] = chapter_title(entry["ko"])
    wrong = []
    for chapter in CHAPTERS:
        english = {(u["cell"], u["kind"]): u["en"] for u in audit(chapter)["current"]}
        for entry in load_store(chapter):
            en = english.get((entry["cell"], entry["kind"]))
            if en is None:
                continue
            titled = {
                t for text, t in CHAPTER_LINK.findall(en) if text == en_titles.get(t)
            }
            wrong += [
                f"{chapter}:{entry['cell']}: [{text}]({target}) should read [{ko_titles[target]}]"
                for text, target in CHAPTER_LINK.findall(entry["ko"])
                if target in titled
                and target in ko_titles
                and " ".join(text.split()) != ko_titles[target]
            ]
    assert wrong == []


def test_the_checker_note_goes_right_under_the_exercises_heading():
    assert with_checker_note("## 연습 문제") == f"## 연습 문제\n\n{CHECKER_NOTE}"
    assert with_checker_note("## 연습 문제\n\n본문.") == (
        f"## 연습 문제\n\n{CHECKER_NOTE}\n\n본문."
    )
    assert with_checker_note("## 요약\n\n본문.") == "## 요약\n\n본문."
    assert style_problems(CHECKER_NOTE) == []


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_korean_exercises_say_what_the_checker_lines_mean(chapter):
    """Checker messages stay English (the code is the English code); each Korean chapter says what
    ✓ and ✗ mean, once, right under 연습 문제, generated by tools/korean.py for every chapter."""
    nb = korean_notebook(chapter)
    if not has_checkers(nb):
        pytest.skip(f"{chapter} has no exercise checkers")
    sources = [source(c) for c in nb["cells"] if c["cell_type"] == "markdown"]
    headed = [s for s in sources if EXERCISES_HEADING in s.split("\n")]
    if not headed:
        pytest.skip(f"{chapter}: the exercises heading is not translated yet")
    notes = sum(s.count(CHECKER_NOTE) for s in sources)
    assert notes == 1
    assert f"{EXERCISES_HEADING}\n\n{CHECKER_NOTE}" in headed[0]


def load_extension(name: str):
    spec = importlib.util.spec_from_file_location(
        f"book_ext_{name}", KO_BOOK.parent / "_ext" / f"{name}.py"
    )
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
    latin = {
        w for s in shown for w in re.findall(r"[A-Za-z]+", re.sub(r"\{\w+\}", "", s))
    }
    assert latin <= STATUS_LATIN_ALLOWED, sorted(latin - STATUS_LATIN_ALLOWED)
    assert set(text) >= set(verified.TEXT["en"]), "a status string has no Korean form"


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
