"""The Korean edition's stemmer (book/_ext/korean_search.py), without a built site: a noun followed by
any particle, copula form or 하다/되다 ending, or several stacked, comes back as the noun."""

from __future__ import annotations

import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "book" / "_ext"))
from korean_search import PARTICLES, strip_particle

# Nouns of the book, with and without a final consonant (which picks 은/는, 이/가, 이면/라면 ...).
NOUNS = [
    "런타임",
    "버퍼",
    "텐서",
    "매개변수",
    "체크포인트",
    "가속기",
    "모델",
    "계층",
    "장치",
]
# What follows a noun in the book's prose; "{이}" is the copula's 이, dropped after a vowel.
AFTER_A_NOUN = """
    {은} {이} {을} {과} {으}로 {으}로는 {으}로도 {으}로부터 에 에서 에서는 에서의 에서나 에서도
    에게 까지 까지도 부터 부터는 처럼 보다 보다는 마다 만 만을 만큼 뿐 뿐입니다 씩 도 의 나 든
    들 들의 들을 들이 {이}면 {이}고 {이}다 {이}며 {이}라 {이}라면 {이}라서 {이}라도 {이}라는
    {이}라고 {이}지만 {이}므로 {이}든 {이}나 {이}거나 인 일 인지 인데 입니다 {이어}야 {이었}다
"""
VERB_NOUNS = ["초기화", "동기화", "등록", "저장"]
AFTER_A_VERB_NOUN = """
    하다 한다 합니다 했다 했습니다 하고 하면 하며 하는 하는지 하지 하기 하여 하려면 하므로
    하거나 하세요 해 해서 해야 한 할 할지 함 되다 된다 됩니다 되었다 되고 되면 되며 되는 되지
    되기 되어 되어야 되므로 된 될 됨
"""


def has_final_consonant(word: str) -> bool:
    return (ord(word[-1]) - 0xAC00) % 28 != 0


def attach(noun: str, ending: str) -> str:
    final = has_final_consonant(noun)
    ending = (
        ending.replace("{은}", "은" if final else "는")
        .replace("{이}", "이" if final else "")
        .replace("{을}", "을" if final else "를")
        .replace("{과}", "과" if final else "와")
        .replace("{으}", "으" if final else "")
        .replace("{이어}", "이어" if final else "여")
        .replace("{이었}", "이었" if final else "였")
    )
    if ending == "" or (not final and ending in {"다", "고", "며", "면", "라"}):
        # after a vowel the bare copula is one syllable (버퍼다), which ends too many nouns
        # (이미지, 생성기, 스칼라) to be stripped
        return ""
    return noun + ending


@pytest.mark.parametrize("noun", NOUNS)
def test_every_ending_after_a_noun_comes_off(noun):
    words = [w for w in (attach(noun, e) for e in AFTER_A_NOUN.split()) if w]
    assert strip_particle(noun) == noun
    assert {w: strip_particle(w) for w in words if strip_particle(w) != noun} == {}


@pytest.mark.parametrize("noun", VERB_NOUNS)
def test_a_noun_made_a_verb_with_hada_or_doeda_is_the_noun(noun):
    words = [noun + ending for ending in AFTER_A_VERB_NOUN.split()]
    assert {w: strip_particle(w) for w in words if strip_particle(w) != noun} == {}


def test_stems_are_stems():
    """Stripping is repeated until nothing comes off, so a stem strips to itself: the query side
    (a bare noun typed into the box) and the index side meet whatever was stacked."""
    for word in [
        "가속기에서나",
        "텐서들의",
        "체크포인트뿐입니다",
        "런타임이면",
        "매개변수화되거나",
    ]:
        stem = strip_particle(word)
        assert strip_particle(stem) == stem, word


@pytest.mark.parametrize("word", ["정의", "하나", "이미지", "생성기", "파이프", "값"])
def test_short_words_and_nouns_that_end_like_a_verb_are_kept(word):
    assert strip_particle(word) == word


def test_endings_are_tried_longest_first():
    assert PARTICLES == sorted(PARTICLES, key=lambda e: (-len(e), e))
