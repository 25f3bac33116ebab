/* The book's search ranking (Sphinx's html_search_scorer: Sphinx copies this file into
   _static/language_data.js, so the site serves it itself).

   Sphinx 7.4 scores a word in any heading of a page as much as a word in the page's own title, and
   orders equal scores alphabetically, so "buffer" listed chapter 7 ("Buffers, ...") fifth. Here a
   result ranks by where each query word stands on its page:
     the page's title  >  a section title of the page  >  the body text;
   a whole word (after stemming) before a word that only contains it; then Sphinx's own score
   (a whole word in the text before a part of one); then the book's reading order, which the search
   page carries as JSON in #book-order (book/_ext/book_search.py). The Korean edition's title words
   go through its own stemmer (book/_ext/korean_search.py), as the query does.

   Scorer.score gets a result, not the query; the query's stemmed words are taken from
   Search._parseQuery, which runs before any result is scored. */
var Scorer = {
  // Sphinx's defaults, which this object replaces as a whole.
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,

  // For each query word: 6 a word of the page title, 5 part of one, 4 a word of a section
  // title, 3 part of one, 0 only in the text. A result's rank is the sum over the query's words.
  PAGE_TITLE: 6,
  SECTION_TITLE: 4,
  queryTerms: null,
  _pages: null,
  _order: null,

  _words: (html) => {
    const stemmer = new Stemmer();
    const text = html.replace(/<[^>]*>/g, " ").toLowerCase();
    return new Set(splitQuery(text).map((word) => stemmer.stemWord(word)));
  },

  // Per page of the index: the stemmed words of its title, and those of its section titles.
  _titleWords: () => {
    if (Scorer._pages) return Scorer._pages;
    const index = Search._index;
    const sections = index.titles.map(() => []);
    for (const [title, places] of Object.entries(index.alltitles)) {
      for (const [file, id] of places) if (id !== null) sections[file].push(title);
    }
    Scorer._pages = new Map(
      index.docnames.map((docname, file) => [
        docname,
        {
          page: Scorer._words(index.titles[file]),
          sections: Scorer._words(sections[file].join(" ")),
        },
      ])
    );
    return Scorer._pages;
  },

  _level: (words, term, whole) => {
    if (words.has(term)) return whole;
    for (const word of words) if (word.includes(term)) return whole - 1;
    return 0;
  },

  // 1 for the book's first page down to nearly 0 for its last; 0 for a page outside it.
  _bookOrder: (docname) => {
    if (Scorer._order === null) {
      const data = document.getElementById("book-order");
      Scorer._order = data ? JSON.parse(data.textContent) : [];
    }
    const at = Scorer._order.indexOf(docname);
    return at < 0 ? 0 : (Scorer._order.length - at) / Scorer._order.length;
  },

  // The query's stemmed words: from Search._parseQuery (wrapped below), or, where this file ran
  // before searchtools.js defined Search, from the search page's address as Search.init reads it.
  _terms: () => {
    if (Scorer.queryTerms === null) {
      const query = new URLSearchParams(window.location.search).get("q") || "";
      Scorer.queryTerms = [...Search._parseQuery(query)[1]];
    }
    return Scorer.queryTerms;
  },

  rank: (docname) => {
    const titles = Scorer._titleWords().get(docname);
    if (!titles) return 0;
    let rank = 0;
    for (const term of Scorer._terms()) {
      rank += Math.max(
        Scorer._level(titles.page, term, Scorer.PAGE_TITLE),
        Scorer._level(titles.sections, term, Scorer.SECTION_TITLE)
      );
    }
    return rank;
  },

  score: (result) => {
    const [docname, _title, _anchor, _descr, score] = result;
    // Sphinx's own scores stay below 100 for a query of a few words (15 a title word, 5 a text
    // word, up to 15 + 1 a short title holding the whole query).
    return 100 * Scorer.rank(docname) + Math.min(score, 99) + Scorer._bookOrder(docname);
  },
};

if (typeof Search !== "undefined" && Search._parseQuery) {
  const parseQuery = Search._parseQuery;
  Search._parseQuery = (query) => {
    const parsed = parseQuery(query);
    Scorer.queryTerms = [...parsed[1]]; // the stemmed search terms
    return parsed;
  };
}
