"""Korean full-text search for the Korean edition.

Sphinx ships no Korean search language, and Korean attaches particles to words (텐서를, 텐서의,
버퍼는), so an index built from whitespace tokens never matches a search for 텐서. This language
strips a trailing particle from each Hangul token, in Python when the index is built and in the
browser when a query is typed, with the same list, so both sides meet on the bare word.
ASCII words (API names in the Korean prose) keep Sphinx's English Porter stemmer.
"""

from __future__ import annotations

import json
import re

from sphinx.search import SearchLanguage, languages
from sphinx.search.en import SearchEnglish, english_stopwords, js_porter_stemmer

# Particles and endings that follow a noun, longest first so that 에서는 wins over 는.
PARTICLES = sorted(
    [
        "에서부터",
        "으로부터",
        "에서는",
        "에서도",
        "으로는",
        "으로도",
        "에게서",
        "이라는",
        "이라고",
        "이지만",
        "입니다",
        "이며",
        "이고",
        "에서",
        "에게",
        "한테",
        "으로",
        "까지",
        "부터",
        "처럼",
        "보다",
        "마다",
        "조차",
        "라는",
        "라고",
        "이나",
        "이란",
        "이든",
        "와는",
        "과는",
        "와도",
        "과도",
        "에는",
        "에도",
        "로는",
        "로도",
        "만을",
        "만이",
        "만의",
        "들을",
        "들이",
        "들은",
        "들의",
        "들과",
        "들로",
        "은",
        "는",
        "이",
        "가",
        "을",
        "를",
        "의",
        "에",
        "와",
        "과",
        "도",
        "로",
        "만",
        "나",
        "란",
    ],
    key=len,
    reverse=True,
)
MIN_STEM = 2  # never cut a word below two syllables (정의 stays 정의)
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def strip_particle(word: str) -> str:
    for particle in PARTICLES:
        if word.endswith(particle) and len(word) - len(particle) >= MIN_STEM:
            return word[: -len(particle)]
    return word


JS_STEMMER = (
    js_porter_stemmer
    + """
var PorterStemmer = Stemmer;
var KOREAN_PARTICLES = {particles};
var Stemmer = function() {
  var porter = new PorterStemmer();
  this.stemWord = function(word) {
    if (!/[\\uac00-\\ud7a3]/.test(word)) {
      return porter.stemWord(word);
    }
    for (var i = 0; i < KOREAN_PARTICLES.length; i++) {
      var p = KOREAN_PARTICLES[i];
      if (word.endsWith(p) && word.length - p.length >= {min_stem}) {
        return word.slice(0, word.length - p.length);
      }
    }
    return word;
  };
};
""".replace("{particles}", json.dumps(PARTICLES, ensure_ascii=False)).replace(
        "{min_stem}", str(MIN_STEM)
    )
)


class SearchKorean(SearchLanguage):
    lang = "ko"
    language_name = "Korean"
    js_stemmer_code = JS_STEMMER
    stopwords = english_stopwords

    def init(self, options: dict[str, str]) -> None:
        self.english = SearchEnglish(options)

    def stem(self, word: str) -> str:
        word = word.lower()
        if HANGUL.search(word):
            return strip_particle(word)
        return self.english.stem(word)


def setup(app):
    languages["ko"] = SearchKorean
    return {"parallel_read_safe": True, "parallel_write_safe": True}
