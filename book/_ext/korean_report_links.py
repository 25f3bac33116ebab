"""Korean links under code outputs that link to the English edition (the Korean build only).

Chapter 8's `inspect_module` prints a report whose findings end in "see https://.../notebooks/
07_buffers_and_ddp.html#ddp-timeline": the English edition, since the output is the English code's
output, byte for byte. Under every such output the Korean page gets a short note in Korean that
says so and lists the same sections of the Korean edition, by their Korean titles.

An anchor is either a label both editions share (``(ddp-timeline)=``), or the id docutils made from
an English heading, which the Korean section carries too (korean_anchors.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from docutils import nodes

ROOT = Path(__file__).resolve().parents[2]
ENGLISH_LINK = re.compile(r"https?://\S+?/notebooks/(\d\d_[a-z0-9_]+)\.html#([\w-]+)")
FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
NOTE = "위 출력의 링크는 영어판의 절을 가리킵니다. 한국어판의 같은 절은 다음과 같습니다."


def heading_ids(text: str) -> list[str]:
    """The ids docutils gives the Markdown headings of ``text``, in reading order."""
    ids = []
    for title in HEADING.findall(FENCE.sub("", text)):
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # a link: its text
        ids.append(nodes.make_id(re.sub(r"[`*]", "", title)))
    return ids


def english_heading_ids(chapter: str) -> list[str]:
    """The ids docutils gives the headings of an English notebook, in reading order."""
    nb = json.loads((ROOT / "notebooks" / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    ids = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            ids += heading_ids(cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"]))
    return ids


def korean_target(env, chapter: str, anchor: str):
    """(document, anchor, page title, section title) of the Korean section, or None; the titles are
    title nodes, so that code in them stays code."""
    docname = f"notebooks/ko/{chapter}"
    if docname not in env.found_docs:
        return None
    doctree = env.get_doctree(docname)
    sections = list(doctree.findall(nodes.section))
    if not sections:
        return None
    page = sections[0][0]
    for section in sections:
        if anchor in section["ids"]:
            return docname, anchor, page, section[0]
    for node in doctree.findall(nodes.target):
        if anchor in node["ids"] or anchor in node.get("names", []):
            section = node.next_node(nodes.section, ascend=True)
            if section is not None:
                return docname, anchor, page, section[0]
    return None


def _add_notes(app, doctree, docname):
    if app.config.language != "ko" or not docname.startswith("notebooks/ko/"):
        return
    for output in list(doctree.findall(nodes.literal_block)):
        if not output.astext().count("/notebooks/"):
            continue
        links = list(dict.fromkeys(ENGLISH_LINK.findall(output.astext())))
        if not links:
            continue
        items = nodes.bullet_list()
        for chapter, anchor in links:
            target = korean_target(app.env, chapter, anchor)
            if target is None:
                continue
            target_doc, target_anchor, page, section = target
            uri = app.builder.get_relative_uri(docname, target_doc) + "#" + target_anchor
            link = nodes.reference("", "", refuri=uri, internal=True)
            if section is not page:
                link += [child.deepcopy() for child in page.children]
                link += nodes.Text(" › ")
            link += [child.deepcopy() for child in section.children]
            item = nodes.list_item()
            para = nodes.paragraph()
            para += link
            item += para
            items += item
        if not len(items):
            continue
        note = nodes.container(classes=["korean-report-links"])
        note += nodes.paragraph(NOTE, NOTE)
        note += items
        # after the cell's output area, inside the cell (code itself is left alone)
        area = output
        while area.parent is not None and "cell_output" not in area.get("classes", []):
            area = area.parent
        if "cell_output" in area.get("classes", []):
            area.parent.insert(area.parent.index(area) + 1, note)


def setup(app):
    app.connect("doctree-resolved", _add_notes)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
