"""Small fixes to the Jupyter Book 1 HTML output, and what keeps its pages light: math rendered as
MathML at build time, and the theme's CSS and icon fonts cut down to what the site uses. Also: a
chapter's sub-page numbered 5.1 (not after the chapter page's own sections, 5.11), and the copy
button's messages in Korean.

sphinx-thebe registers its inline configuration script twice under Jupyter Book 1.0.4
(``const THEBE_JS_URL`` then throws "has already been declared" in every browser console).
Dropping exact duplicates of inline scripts keeps the live-code button and a clean console.

docutils gives the bibliography's container ``role="list"`` around entries that are not list
items, which accessibility checkers rightly flag; the role is removed.
myst-nb gives every hidden-cell toggle an ``aria-label`` that differs from its visible text
(axe: label-content-name-mismatch); the label is dropped so the visible text names it.
A figure's image gets its caption for alt text instead of its file path.
"""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

import latex2mathml.converter
import tinycss2
from docutils import nodes
from sphinx.util.math import get_node_equation_number


def _drop_duplicate_scripts(app, pagename, templatename, context, doctree):
    seen = set()
    unique = []
    for script in context.get("script_files", []):
        key = (
            getattr(script, "filename", None) or "",
            repr(getattr(script, "attributes", {})),
        )
        if key in seen:
            continue
        seen.add(key)
        unique.append(script)
    context["script_files"] = unique


def _fix_citation_list_role(app, pagename, templatename, context, doctree):
    # docutils marks the bibliography as role="list" but its entries as role="doc-biblioentry";
    # a list must contain list items (axe: aria-required-children), so drop the list role.
    body = context.get("body")
    if body:
        context["body"] = body.replace('<div role="list" class="citation-list">', '<div class="citation-list">')
        # myst-nb names every hidden-cell toggle "Toggle hidden content" while it shows "Show code
        # cell source" (axe: label-content-name-mismatch); the visible text is the better name.
        context["body"] = context["body"].replace('<summary aria-label="Toggle hidden content">', "<summary>")


# The sidebar's expand toggle of a chapter with sections is an empty <summary> (a chevron marked
# presentational), so a screen reader announces a nameless control (axe: summary-name). Name it
# after its chapter, in the edition's language.
_TOGGLE_NAMES = {"en": "Sections of {}", "ko": "{}의 절"}


def _name_sidebar_toggles(app, pagename, templatename, context, doctree):
    generate = context.get("generate_toctree_html")
    if generate is None:
        return
    name = _TOGGLE_NAMES.get(app.config.language or "en", _TOGGLE_NAMES["en"])

    def named(*args, **kwargs):
        toc = generate(*args, **kwargs)
        for summary in getattr(toc, "select", lambda _: [])("li > details > summary"):
            link = summary.parent.find_previous_sibling("a")
            if summary.get_text(strip=True) or link is None:
                continue
            summary["aria-label"] = name.format(link.get_text(strip=True))
        return toc

    context["generate_toctree_html"] = named


# A figure's image had its file path for alt text (docutils' default when none is given, and myst-nb
# gives none to a cell output's image): a screen reader read out "../_images/91ace5f5....png".
# The figure's caption says what it shows, in the edition's language; it becomes the alt text.


def _figure_alt_text(app, doctree, docname):
    for figure in doctree.findall(nodes.figure):
        caption = next((c for c in figure.children if isinstance(c, nodes.caption)), None)
        if caption is None:
            continue
        text = " ".join(caption.astext().split())
        for image in figure.findall(nodes.image):
            if not image.get("alt"):
                image["alt"] = text


# --- Math: TeX becomes MathML at build time ------------------------------------------------------
# Every current browser lays out MathML itself, so a page with math needs no JavaScript and no web
# font for it (MathJax was about 0.8 MB on every page). The TeX source stays in `alttext`.


def _mathml(tex: str, display: bool) -> str:
    markup = latex2mathml.converter.convert(tex.strip(), display="block" if display else "inline")
    # latex2mathml writes \operatorname{Var} as an operator and \sim as a plain tilde.
    markup = re.sub(r"<mo>([A-Za-z]{2,})</mo>", r"<mi>\1</mi>", markup)
    markup = markup.replace("<mi>&#x0007E;</mi>", "<mo>&#x0223C;</mo>")
    alt = html.escape(" ".join(tex.split()), quote=True)
    return markup.replace("<math ", f'<math alttext="{alt}" ', 1)


def _visit_math(self, node):
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate nohighlight"))
    self.body.append(_mathml(node.astext(), display=False))
    self.body.append("</span>")
    raise nodes.SkipNode


def _visit_displaymath(self, node):
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"))
    if node.get("number"):
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, "Link to this equation")
        self.body.append("</span>")
    text = node.astext()
    for part in [text] if node.get("nowrap") else [p for p in text.split("\n\n") if p.strip()]:
        self.body.append(_mathml(part, display=True))
    self.body.append("</div>\n")
    raise nodes.SkipNode


# --- Page weight: only the CSS, JavaScript and icon glyphs a page uses ---------------------------
# pydata-sphinx-theme's stylesheet carries Font Awesome's 1,900 icon rules and @font-face rules for
# three webfonts (0.27 MB that every page loads). After the build, the theme CSS is rewritten to
# _static/styles/book-theme.css with only the icon rules the site's HTML and JavaScript name, and
# the two fonts it needs are cut down to those glyphs (templates/static/webpack-macros.html links
# the result instead of the original).

THEME_CSS = "_static/styles/pydata-sphinx-theme.css"
TRIMMED_CSS = "_static/styles/book-theme.css"
FONTS = "_static/vendor/fontawesome/webfonts"
TRIMMED_FONTS = "_static/styles/fonts"
_ICON_RULE = re.compile(r"^\.(fa-[a-z0-9-]+)::?(before|after)$")
_FONT_FILES = {"fa-solid-900": "fa-solid-900", "fa-brands-400": "fa-brands-400"}


def _used_icon_names(outdir: Path) -> set[str]:
    names = set()
    for path in [*outdir.rglob("*.html"), *outdir.glob("_static/**/*.js")]:
        if "_sources" in path.parts:
            continue
        names.update(re.findall(r"\bfa-[a-z0-9-]+", path.read_text(encoding="utf-8", errors="ignore")))
    return names


def _trim_theme_css(css: str, used: set[str]) -> str:
    rules = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    kept = []
    for rule in rules:
        if rule.type == "qualified-rule":
            selectors = [s.strip() for s in tinycss2.serialize(rule.prelude).split(",")]
            icons = [_ICON_RULE.match(s) for s in selectors]
            if all(icons) and not any(m.group(1) in used for m in icons):
                continue
        if rule.type == "at-rule" and rule.lower_at_keyword == "font-face":
            block = tinycss2.serialize(rule.content)
            if "fa-regular-400" in block:
                continue  # no icon of the book uses the regular (outline) style
            for name in _FONT_FILES:
                if name in block:
                    rule = tinycss2.parse_one_rule(
                        "@font-face{"
                        + re.sub(
                            r"src:[^;]*",
                            f'src:url(fonts/{name}.woff2) format("woff2")',
                            block,
                        )
                        + "}"
                    )
        kept.append(rule)
    return tinycss2.serialize(kept)


def _glyphs(css: str) -> set[int]:
    """Every private-use code point (where Font Awesome keeps its icons) that the CSS names,
    written as a character or as an escape."""
    points = {int(h, 16) for h in re.findall(r"\\([0-9a-fA-F]{4,5})", css)}
    points |= {ord(c) for c in css if 0xE000 <= ord(c) <= 0xF8FF}
    return {p for p in points if 0xE000 <= p <= 0xF8FF}


def _subset_font(source: Path, target: Path, codepoints: set[int]) -> None:
    from fontTools import subset

    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    font = subset.load_font(str(source), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(codepoints))
    subsetter.subset(font)
    target.parent.mkdir(parents=True, exist_ok=True)
    subset.save_font(font, str(target), options)


def _trim_assets(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    source = outdir / THEME_CSS
    if not source.exists():
        return
    used = _used_icon_names(outdir)
    css = source.read_text(encoding="utf-8")
    key = hashlib.sha256((css + " ".join(sorted(used))).encode()).hexdigest()
    stamp = outdir / TRIMMED_FONTS / "key.txt"
    if stamp.exists() and stamp.read_text() == key and (outdir / TRIMMED_CSS).exists():
        return  # nothing changed since the last build
    trimmed = _trim_theme_css(css, used)
    (outdir / TRIMMED_CSS).write_text(trimmed, encoding="utf-8")
    others = "".join(p.read_text(encoding="utf-8") for p in outdir.glob("_static/**/*.css") if p.name != source.name)
    codepoints = _glyphs(trimmed) | _glyphs(others)
    for name in _FONT_FILES:
        _subset_font(
            outdir / FONTS / f"{name}.woff2",
            outdir / TRIMMED_FONTS / f"{name}.woff2",
            codepoints,
        )
    stamp.write_text(key)


# Scripts and stylesheets that only some pages use (searchtools: see templates/layout.html).
_DESIGN = ("_static/sphinx-design.min.css", "_static/design-tabs.js")


def _drop_unused_assets(app, pagename, templatename, context, doctree):
    body = context.get("body", "")
    if 'class="sd-' not in body and " sd-" not in body:
        for key in ("css_files", "script_files"):
            context[key] = [a for a in context.get(key, []) if not str(getattr(a, "filename", a)).endswith(_DESIGN)]


# --- Section numbers of a chapter's sub-pages ------------------------------------------------------
# A chapter page with a `sections:` sub-page in _toc.yml (chapter 5 and its second page) is numbered
# by Sphinx as one document: the chapter's own headings take 5.1 ... 5.10 and the sub-page comes after
# them, as 5.11 (its headings 5.11.1 ...). The book numbers pages: the sub-page is 5.1, its headings
# 5.1.1 ..., and the chapter page's own headings go unnumbered (5.1 would otherwise name two things).


def _renumber(env, docname: str, old: tuple, new: tuple, seen: set) -> None:
    """Give `docname` (and the pages under it) the prefix `new` where it had `old`."""
    if docname in seen:
        return
    seen.add(docname)
    numbers = env.toc_secnumbers.get(docname, {})
    for anchor, number in list(numbers.items()):
        if number and tuple(number[: len(old)]) == old:
            numbers[anchor] = new + tuple(number[len(old) :])
    for ref in env.tocs[docname].findall(nodes.reference):
        number = ref.get("secnumber")
        if number and tuple(number[: len(old)]) == old:
            ref["secnumber"] = list(new + tuple(number[len(old) :]))
    title = env.titles.get(docname)
    if title is not None and title.get("secnumber"):
        title["secnumber"] = list(numbers.get("", title["secnumber"]))
    for sub in env.toctree_includes.get(docname, []):
        _renumber(env, sub, old, new, seen)


def _number_sub_pages_after_their_chapter(env) -> None:
    for docname, includes in env.toctree_includes.items():
        numbers = env.toc_secnumbers.get(docname, {})
        prefix = tuple(numbers.get("") or ())
        subs = [d for d in includes if (env.toc_secnumbers.get(d) or {}).get("")]
        if not prefix or not subs:
            continue
        own = [anchor for anchor, number in numbers.items() if anchor and number and len(number) > len(prefix)]
        for anchor in own:
            numbers[anchor] = ()
        for ref in env.tocs[docname].findall(nodes.reference):
            if ref.get("anchorname") in own:
                ref["secnumber"] = None
        for index, sub in enumerate(subs, 1):
            old = tuple(env.toc_secnumbers[sub][""])
            if old != prefix + (index,):
                _renumber(env, sub, old, prefix + (index,), set())


def _wrap_section_numbering(app) -> None:
    """Renumber right after Sphinx's numbering (sphinx-multitoc-numbering replaces it at setup), so
    that the pages whose numbers changed are compared with the renumbered ones: a build that
    changes nothing rewrites nothing."""
    from sphinx.environment.collectors.toctree import TocTreeCollector

    assign = TocTreeCollector.assign_section_numbers
    if getattr(assign, "book_renumbers", False):
        return

    def assign_then_renumber(self, env):
        before = env.toc_secnumbers
        assign(self, env)
        _number_sub_pages_after_their_chapter(env)
        return [d for d, numbers in env.toc_secnumbers.items() if numbers != before.get(d)]

    assign_then_renumber.book_renumbers = True
    TocTreeCollector.assign_section_numbers = assign_then_renumber


# --- The copy button in Korean ---------------------------------------------------------------------
# sphinx-copybutton picks its messages by <html lang> and has none for Korean ("Copy", "Copied!").

_COPY_KO = """  'ko': {
    'copy': '복사',
    'copy_to_clipboard': '클립보드에 복사',
    'copy_success': '복사했습니다!',
    'copy_failure': '복사하지 못했습니다',
  },
"""


def _copybutton_in_korean(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    script = Path(app.outdir) / "_static" / "copybutton.js"
    if not script.exists():
        return
    text = script.read_text(encoding="utf-8")
    if "'ko': {" in text or "const messages = {\n" not in text:
        return
    script.write_text(
        text.replace("const messages = {\n", "const messages = {\n" + _COPY_KO, 1),
        encoding="utf-8",
    )


def setup(app):
    app.connect("html-page-context", _drop_duplicate_scripts, priority=900)
    app.connect("html-page-context", _fix_citation_list_role, priority=900)
    app.connect("html-page-context", _name_sidebar_toggles, priority=900)
    app.connect("doctree-resolved", _figure_alt_text)
    app.add_html_math_renderer("mathml", (_visit_math, None), (_visit_displaymath, None))
    app.connect("html-page-context", _drop_unused_assets)
    app.connect("build-finished", _trim_assets)
    app.connect("build-finished", _copybutton_in_korean)
    app.connect("builder-inited", _wrap_section_numbering)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
