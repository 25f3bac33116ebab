/* The search page: snippets from the chapter text, not from the page's buttons or folded code;
   each page listed once; and no fetches when the site is read from disk (file://), where a
   browser refuses them. The ranking is book/_ext/search_scorer.js. */
(() => {
  "use strict";
  if (typeof Search === "undefined") return;
  if (location.protocol === "file:") DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
  const htmlToText = Search.htmlToText;
  // The article header (download and launch buttons, ".ipynb .pdf"), the print-only table of
  // contents and the previous/next links are part of [role=main] but not of the text. Nor is
  // what myst-nb folds away (details.hide: a hide-input cell such as each chapter's setup cell,
  // with its "Show code cell source" label), which the index leaves out too (book/_ext/book_search.py).
  const notText =
    ".bd-header-article, #jb-print-docs-body, .prev-next-area, .bd-footer-article, .verified-record, .edition-switch, details.hide";
  Search.htmlToText = (htmlString, anchor) => {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    doc.querySelectorAll(notText).forEach((el) => el.remove());
    return htmlToText(doc.documentElement.outerHTML, anchor);
  };
  // A numbered page's title matched as a title ("2. Parameter initialization > Parameter
  // initialization", no anchor) is the page itself a second time: list each link once, at its
  // best rank (the results come lowest first; the page shows them from the end).
  const performSearch = Search._performSearch;
  Search._performSearch = (...args) => {
    const seen = new Set();
    return performSearch(...args)
      .reverse()
      .filter(([docname, , anchor]) => {
        const link = docname + anchor;
        if (seen.has(link)) return false;
        seen.add(link);
        return true;
      })
      .reverse();
  };
})();
