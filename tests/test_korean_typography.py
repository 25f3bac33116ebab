"""Korean typography in every Korean source: no line break before an attached parenthesis, and particles
that follow what the reader sees (a figure's number, a code name's reading)."""

from __future__ import annotations

import json
import re

import pytest
from test_korean import CHAPTERS, CODE_FENCE, HANGUL, KO_BOOK, ROLE, caption_of, load_store


def korean_sources() -> list[tuple[str, str]]:
    """(where, text) for every Korean source: every entry of the translation stores, every page."""
    texts = [(f"{chapter}:{e['cell']}", e["ko"]) for chapter in CHAPTERS for e in load_store(chapter)]
    return texts + [(f"book/ko/{p.name}", p.read_text(encoding="utf-8")) for p in sorted(KO_BOOK.glob("*.md"))]


# In Korean a parenthesis attaches to the word before it: "더하세요(autocast)", "`nn.Linear`(`bias=False`)",
# "[분산 체크포인트](…)(`torch.distributed.checkpoint`)". A line break there is rendered as a space, so a
# line that ends in Hangul, in a code span's or role's closing backtick, in a link's "](…)" or in "]"
# must not be followed by one that starts with "(". Nor may a line end or start at "·": the break
# renders "제품· 라이브러리". A "(" after a sentence's full stop opens a sentence of its own and is
# spaced in Korean ("저장합니다. (등록할 때 …)"), and a "(label)=" target stands after a blank line: both
# pass, as they should.
BREAK_BEFORE_PAREN = re.compile(
    rf"(?:[{HANGUL}]|`|\]\([^()\s]*\)|\])[ \t]*\n[ \t]*(?=\()"
    r"|·[ \t]*\n|\S[ \t]*\n[ \t]*(?=·)"
)


def breaks_before_paren(text: str) -> list[str]:
    return [
        " ".join(text[max(m.start() - 20, 0) : m.end() + 20].split())
        for m in BREAK_BEFORE_PAREN.finditer(CODE_FENCE.sub("", text))
    ]


@pytest.mark.parametrize(
    "broken",
    [
        "버퍼의 dtype으로 바꾼 뒤 더하세요\n  ({ref}`autocast <x>`).",
        "기다리는 복사는 `memcpy_and_sync`\n(`c10/cuda/CUDAFunctions.h`)에서 끝나고",
        "`nn.Linear`\n(`bias=False`)",
        "{ref}`멈춤 <ddp-hang>`\n(아래)",
        "샤딩된 모델을 위한 [분산 체크포인트](https://pytorch.org/docs/x.html)\n  (`torch.distributed.checkpoint`).",
        "[GHSA-53q9-r3pm-6pq6](https://github.com/x/GHSA-53q9-r3pm-6pq6)\n  (CVE-2025-32434, 2.6에서 수정)",
        "[각주]\n(설명)",
        "NCCL, Adam 같은 제품·라이브러리·\n  알고리즘 이름",
        "NCCL, Adam 같은 제품\n  ·라이브러리·알고리즘 이름",
    ],
)
def test_breaks_before_paren_finds_a_planted_break(broken):
    assert breaks_before_paren(broken)
    joined = re.sub(r"[ \t]*\n[ \t]*(?=[(·])|(?<=·)[ \t]*\n[ \t]*", "", broken)
    assert breaks_before_paren(joined) == [], joined


@pytest.mark.parametrize(
    "spaced",
    [
        "더하세요({ref}`autocast <x>`).\n다음 줄",
        "`right_inverse(start)`를 저장합니다.\n(등록할 때 이미 현재 가중치가 `right_inverse`를 거칩니다.)",
        "첫 문단입니다.\n\n(ddp-hang)=\n## 멈춤",
        "공유 텐서 설명.\n- 제품·라이브러리·알고리즘 이름",
        "```python\nx = f()\n(y)\n```",
    ],
)
def test_breaks_before_paren_passes_what_korean_spaces(spaced):
    assert breaks_before_paren(spaced) == []


def test_no_line_break_between_a_word_and_an_attached_paren():
    found = [f"{where}: {snippet}" for where, text in korean_sources() for snippet in breaks_before_paren(text)]
    assert found == [], "join the lines (break elsewhere):\n" + "\n".join(found)


# The Korean reading of a number's last digit, by its final consonant: none, ㄹ, or another.
LAST_DIGIT = {"0": "other", "1": "ㄹ", "2": "", "3": "other", "4": "", "5": "", "6": "other",
              "7": "ㄹ", "8": "ㄹ", "9": ""}  # fmt: skip
# (particle after a final consonant, after none); 으로/로 takes 로 after ㄹ too (일로, 칠로, 팔로)
PARTICLES = [("으로", "로"), ("이", "가"), ("은", "는"), ("을", "를"), ("과", "와")]
NUMBERED_REFERENCE = re.compile(
    r"\{numref\}`(?P<role>[^`]*)`"
    r"|(?P<text>(?:그림|표|연습 문제|예제)\s+\d+(?:\.\d+)*)"
)
PARTICLE_AFTER = re.compile(rf"(?P<p>으로|로)(?=[는도서]?(?![{HANGUL}]))|(?P<q>[이가은는을를과와])(?![{HANGUL}])")
NUMFIG_FORMAT = "그림 %s"


def figure_numbers() -> dict[str, str]:
    """label -> the number the reader sees ("2.1"): the chapter's number in the numbered part of
    the toc (a section page counts with its chapter) and the figure's place in that chapter."""
    import yaml
    from korean import ROOT

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    numbers = {}
    chapter_number = 0
    for part in toc["parts"]:
        if not part.get("numbered"):
            continue
        for entry in part["chapters"]:
            chapter_number += 1
            files = [entry["file"]] + [s["file"] for s in entry.get("sections", [])]
            count = 0
            for file in files:
                nb = json.loads((ROOT / f"{file}.ipynb").read_text(encoding="utf-8"))
                for cell in nb["cells"]:
                    name = (caption_of(cell) or None) and cell["metadata"]["mystnb"]["figure"].get("name")
                    if name:
                        count += 1
                        numbers[name] = f"{chapter_number}.{count}"
    return numbers


def final_consonant(char: str) -> str:
    """ "" (none), "ㄹ" or "other" for the last sound of a digit or a Hangul syllable."""
    if char.isdigit():
        return LAST_DIGIT[char]
    tail = (ord(char) - 0xAC00) % 28
    return "" if tail == 0 else "ㄹ" if tail == 8 else "other"


def particle_problems(text: str, numbers: dict[str, str]) -> list[str]:
    problems = []
    plain = ROLE.sub(lambda m: m.group() if m.group(1) == "numref" else " ", text)
    plain = CODE_FENCE.sub("", plain)
    for m in NUMBERED_REFERENCE.finditer(plain):
        if m.group("role") is not None:
            content = m.group("role")
            target = re.search(r"<([^<>]+)>\s*$", content)
            label = (target.group(1) if target else content).strip()
            if label not in numbers:
                problems.append(f"{m.group()}: no numbered figure {label!r}")
                continue
            shown_format = content[: target.start()].strip() if target else NUMFIG_FORMAT
            seen = shown_format.replace("%s", numbers[label])
        else:
            seen = m.group("text")
        problems += _wrong_particle(plain, m, seen)
    return problems


def _wrong_particle(plain: str, m: re.Match, seen: str) -> list[str]:
    """The particle right after match m, if it does not follow the sound of ``seen``'s last letter."""
    after = PARTICLE_AFTER.match(plain, m.end())
    if not after or not seen:
        return []
    particle = after.group()
    sound = final_consonant(seen[-1])
    for with_final, without in PARTICLES:
        if particle not in (with_final, without):
            continue
        right = (
            (without if sound in ("", "ㄹ") else with_final)
            if with_final == "으로"
            else (without if sound == "" else with_final)
        )
        if particle != right:
            return [f"{m.group()}{particle} (the reader sees {seen!r}: write {right})"]
    return []


# A link whose text ends in Hangul or a digit: the particle after it follows the link text ("[CUDA 동작
# 방식](…)은"), which changes when the link text is reworded.
LINK_BEFORE_PARTICLE = re.compile(r"\[(?P<text>[^\[\]]*[0-9\uac00-\ud7a3])\]\([^)\s]*\)")


def link_particle_problems(text: str) -> list[str]:
    plain = CODE_FENCE.sub("", text)
    return [p for m in LINK_BEFORE_PARTICLE.finditer(plain) for p in _wrong_particle(plain, m, m.group("text"))]


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ("([CUDA 동작\n방식](https://pytorch.org/docs/stable/notes/cuda.html)는 A100에서", True),
        ("([CUDA 동작 방식](https://pytorch.org/docs/stable/notes/cuda.html)은 A100에서", False),
        ("[버퍼와 DDP](07_buffers_and_ddp.ipynb)를 보세요.", False),
        ("[7장](07_buffers_and_ddp.ipynb)를 보세요.", True),
        ("[파일 입출력](05_file_io.ipynb)에 이어집니다.", False),
    ],
)
def test_a_particle_after_a_link_follows_its_text(text, wrong):
    assert bool(link_particle_problems(text)) is wrong, text


def test_particles_after_links_follow_the_link_text():
    found = [f"{where}: {problem}" for where, text in korean_sources() for problem in link_particle_problems(text)]
    assert found == [], "\n".join(found)


def test_the_figure_numbers_are_the_built_pages_numbers():
    numbers = figure_numbers()
    assert numbers["fig-init-depth"] == "2.1"
    assert set(numbers) >= {"fig-gpu-small-ops"}


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ("{numref}`fig-init-depth`가 그 결과입니다.", True),
        ("{numref}`fig-init-depth`이 그 결과입니다.", False),
        ("{numref}`fig-init-depth`의 결과입니다.", False),
        ("그림 2.2를 보세요.", False),
        ("그림 2.3를 보세요.", True),
        ("연습 문제 1.1로 돌아가세요.", False),
        ("연습 문제 1.3로 돌아가세요.", True),
        ("연습 문제 1.3으로 돌아가세요.", False),
        ("연습 문제 1.2와 1.3을 푸세요.", False),
        ("연습 문제 1.6와 같습니다.", True),
    ],
)
def test_a_particle_after_a_numbered_reference_follows_the_number(text, wrong):
    assert bool(particle_problems(text, {"fig-init-depth": "2.1"})) is wrong, text


def test_particles_after_numbered_references_agree_with_the_number_the_reader_sees():
    numbers = figure_numbers()
    found = [f"{where}: {problem}" for where, text in korean_sources() for problem in particle_problems(text, numbers)]
    assert found == [], "\n".join(found)


# A particle after a code name follows how the name is read (glossary.md, "문체"): `nn.init` is read
# 이닛 (a final consonant: 을, 이, 은, 과, 으로), `__setattr__` 셋애터 (no final consonant: 를, 가, 는, 와, 로).
CODE_READINGS = [
    (re.compile(r"(?:.*\.)?init"), "other"),
    (re.compile(r"(?:.*\.)?__setattr__"), ""),
]


def code_particle_problems(text: str) -> list[str]:
    problems = []
    plain = CODE_FENCE.sub("", ROLE.sub(" ", text))
    for m in re.finditer(r"`([^`\n]+)`", plain):
        sound = next((s for pattern, s in CODE_READINGS if pattern.fullmatch(m.group(1))), None)
        if sound is None:
            continue
        after = PARTICLE_AFTER.match(plain, m.end())
        if not after:
            continue
        particle = after.group()
        for with_final, without in PARTICLES:
            if particle not in (with_final, without):
                continue
            if with_final == "으로":
                right = without if sound in ("", "ㄹ") else with_final
            else:
                right = without if sound == "" else with_final
            if particle != right:
                problems.append(f"{m.group()}{particle} (read as it sounds: write {right})")
    return problems


@pytest.mark.parametrize(
    ("text", "wrong"),
    [
        ("`nn.init`를 호출하는 함수입니다.", True),
        ("`nn.init`가 쓰는 팬인입니다.", True),
        ("`nn.init`는 팬을 읽습니다.", True),
        ("`nn.init`을 호출하고 `nn.init`이 쓰는 팬인을 `nn.init`으로 계산합니다.", False),
        ("`nn.Module.__setattr__`이 값의 타입을 봅니다.", True),
        ("`nn.Module.__setattr__`은 등록합니다.", True),
        ("`nn.Module.__setattr__`가 기록하고, `__setattr__`는 등록합니다.", False),
        ("`nn.init.calculate_gain`으로 고르세요.", False),
    ],
)
def test_a_particle_after_a_code_name_follows_its_reading(text, wrong):
    assert bool(code_particle_problems(text)) is wrong, text


def test_particles_after_code_names_follow_their_reading():
    found = [f"{where}: {problem}" for where, text in korean_sources() for problem in code_particle_problems(text)]
    assert found == [], "\n".join(found)
