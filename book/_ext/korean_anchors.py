"""Korean section anchors that are the English ones (the Korean build only).

docutils makes a section's id from its title and keeps only ASCII, so a Korean heading gets an
opaque ``id13`` that changes whenever a section is added above it. Here every section of a Korean
chapter takes the id of the English section at the same place: ``ko/.../01_parameter_management.html
#summary`` is the Korean "요약" as ``#summary`` is the English "Summary". A link shared between
readers, a link from the inspectors' reports, and the edition switch then all name the same
section in both editions.

The Korean page has the same headings in the same order as the English notebook
(``tests/test_korean.py`` holds every translated cell to its English cell's headings), so the n-th
titled section is the n-th English heading. A mismatch stops the build rather than guess.
"""

from __future__ import annotations

import re

from docutils import nodes
from korean_report_links import ROOT, english_heading_ids, heading_ids
from sphinx.errors import ExtensionError

AUTO_ID = re.compile(r"id\d+")


def titled_sections(doctree) -> list[nodes.section]:
    """Sections that open with a heading (the exercise directives' untitled sections are not)."""
    return [s for s in doctree.findall(nodes.section) if s.children and isinstance(s[0], nodes.title)]


def _implicit_ids(doctree, section: nodes.section) -> set[str]:
    """The ids docutils made from the Korean title (explicit labels, shared by both editions, are
    not among them)."""
    made = {nodes.make_id(name) for name in section["names"] if not doctree.nametypes.get(name)}
    labels = {doctree.nameids.get(name) for name in section["names"] if doctree.nametypes.get(name)}
    return {i for i in section["ids"] if (i in made or AUTO_ID.fullmatch(i)) and i not in labels}


def english_ids(docname: str) -> list[str] | None:
    """The section ids of the English page a Korean page translates, or None (a Korean-only page)."""
    if docname.startswith("notebooks/ko/"):
        return english_heading_ids(docname.rsplit("/", 1)[1])
    source = ROOT / (docname.replace("book/ko/", "book/", 1) + ".md")
    if docname.startswith("book/ko/") and source.exists():
        return heading_ids(source.read_text(encoding="utf-8"))
    return None


def _english_anchors(app, doctree) -> None:
    docname = app.env.docname
    english = english_ids(docname) if app.config.language == "ko" else None
    if english is None:
        return
    sections = titled_sections(doctree)
    if len(english) != len(sections):
        raise ExtensionError(
            f"{docname}: {len(sections)} headings, the English notebook has {len(english)}; "
            "the Korean translation must keep the English headings one for one"
        )
    renamed = {}
    for section in sections:
        old = _implicit_ids(doctree, section)
        for i in old:
            doctree.ids.pop(i, None)
            renamed[i] = section
        section["ids"] = [i for i in section["ids"] if i not in old]
    for section, new in zip(sections, english):
        if new in doctree.ids and doctree.ids[new] is not section:
            raise ExtensionError(f"{docname}: the English anchor #{new} is already an id on this page")
        section["ids"] = [new] + [i for i in section["ids"] if i != new]
        doctree.ids[new] = section
    for name, target in list(doctree.nameids.items()):
        if target in renamed:
            doctree.nameids[name] = renamed[target]["ids"][0]


def setup(app):
    # before Sphinx's own collectors (priority 500) read the section ids into the tables of contents
    app.connect("doctree-read", _english_anchors, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
