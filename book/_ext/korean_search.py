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

# What Korean attaches to a noun, longest first so that 에서는 wins over 는. Stems are stripped
# again until nothing more comes off, so stacked particles need no entry of their own: 가속기에서나
# -> 가속기에서 -> 가속기, 텐서들의 -> 텐서들 -> 텐서. The bare copula after a vowel (버퍼다,
# 버퍼면, 버퍼라) is one syllable that ends too many nouns (이미지, 생성기, 스칼라) to strip.
ENDINGS = """
    은 는 이 가 을 를 의 에 와 과 도 로 만 나 란 든 들 뿐 씩 쯤
    에서 에게 한테 으로 까지 부터 처럼 보다 마다 조차 마저 만큼 대로 밖에 께서 이나 이란 이든
    라는 라고 에서부터 으로부터 에게서 으로서 으로써 로서 로써 이랑 든지 이든지

    이다 이면 이고 이며 이라 이라면 이라서 이라도 이라는 이라고 이지만 이므로 이기 이기에
    이어서 이어야 이었다 이었고 이던 인데 인지 인가 이자 이거나 이니까 입니다 이에요 이죠
    인 일 라면 라서 라도 여야 였다 였고 거나 지만 므로

    하다 한다 합니다 했다 했습니다 하고 하면 하며 하는 하는지 하지 하기 하여 하려면 하므로
    하거나 하세요 하던 해 해서 해야 해도 한 할 할지 함
    되다 된다 됩니다 됐다 되었다 되었습니다 되고 되면 되며 되는 되는지 되지 되기 되어 되어야
    되므로 되거나 되던 돼 된 될 됨 시키다 시킨다 시킵니다 시키고 시키면 시킨
"""
# Three groups above: particles; the copula after a noun (런타임이면, 값이며, 파일이라서, 버퍼인,
# 모델일, 객체여야, 함수라면); 하다, 되다 and 시키다 after a noun (초기화하면, 동기화합니다,
# 등록된, 저장되어야), whose noun is the word a reader searches for.
PARTICLES = sorted(set(ENDINGS.split()), key=lambda ending: (-len(ending), ending))
MIN_STEM = 2  # never cut a word below two syllables (정의 stays 정의, 하나 stays 하나)
HANGUL = re.compile(r"[\uac00-\ud7a3]")


def strip_particle(word: str) -> str:
    """The noun a Hangul word starts with: endings stripped until none is left to strip."""
    stripped = True
    while stripped:
        stripped = False
        for particle in PARTICLES:
            if word.endswith(particle) and len(word) - len(particle) >= MIN_STEM:
                word = word[: -len(particle)]
                stripped = True
                break
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
    var stripped = true;
    while (stripped) {
      stripped = false;
      for (var i = 0; i < KOREAN_PARTICLES.length; i++) {
        var p = KOREAN_PARTICLES[i];
        if (word.endsWith(p) && word.length - p.length >= {min_stem}) {
          word = word.slice(0, word.length - p.length);
          stripped = true;
          break;
        }
      }
    }
    return word;
  };
};
""".replace("{particles}", json.dumps(PARTICLES, ensure_ascii=False)).replace("{min_stem}", str(MIN_STEM))
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
