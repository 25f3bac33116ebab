/* The search page: snippets from the chapter text, not from the page's buttons; and no fetches
   when the site is read from disk (file://), where a browser refuses them. */
(() => {
  "use strict";
  if (typeof Search === "undefined") return;
  if (location.protocol === "file:") DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
  const htmlToText = Search.htmlToText;
  // The article header (download and launch buttons, ".ipynb .pdf"), the print-only table of
  // contents and the previous/next links are part of [role=main] but not of the text.
  const notText =
    ".bd-header-article, #jb-print-docs-body, .prev-next-area, .bd-footer-article, .verified-record, .edition-switch";
  Search.htmlToText = (htmlString, anchor) => {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    doc.querySelectorAll(notText).forEach((el) => el.remove());
    return htmlToText(doc.documentElement.outerHTML, anchor);
  };
})();
