"""The Korean edition: generated from the English notebooks plus a per-cell translation store.

Only prose is translated. Code cells and their stored outputs are copied from the English
notebooks unchanged, so the Korean edition runs and prints exactly what CI verified.

The store is one YAML file per chapter, ``book/ko/translations/<chapter>.yml``: a list of
entries, each naming the English cell it translates (by its nbformat cell id), what is
translated (``markdown`` for a prose cell, ``caption`` for a figure caption in a code cell's
metadata), the SHA-256 of the English text it was made from, and the Korean text. When an
English cell changes, its hash no longer matches and the translation counts as stale until it is
updated (``tests/test_korean.py`` names the chapter and cell).

Commands (run with the venv's Python, from the repository root):

* ``build``   write ``notebooks/ko/*.ipynb`` and the Korean book's config and toc under ``_build/ko``;
* ``publish`` copy the built Korean site into ``_build/html/ko``;
* ``status``  per chapter: prose cells and captions, how many are translated and current;
* ``pending CHAPTER`` print, as YAML, the entries a translator has to write or update.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import shutil
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
EN_NOTEBOOKS = ROOT / "notebooks"
KO_NOTEBOOKS = EN_NOTEBOOKS / "ko"
KO_BOOK = ROOT / "book" / "ko"
STORE = KO_BOOK / "translations"
KO_BUILD = ROOT / "_build" / "ko"
# English pages translated as whole files: book/ko/<name>.md records the hash of book/<name>.md.
PAGES = ["intro", "bibliography", "status"]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def source(cell: dict) -> str:
    text = cell["source"]
    return text if isinstance(text, str) else "".join(text)


def caption_of(cell: dict) -> str | None:
    return cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("caption")


def english_units(nb: dict) -> list[dict]:
    """Everything in an English notebook that needs a translation, in reading order."""
    units = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "markdown" and source(cell).strip():
            units.append(
                {
                    "cell": cell["id"],
                    "kind": "markdown",
                    "index": index,
                    "en": source(cell),
                }
            )
        elif cell["cell_type"] == "code" and caption_of(cell):
            units.append(
                {
                    "cell": cell["id"],
                    "kind": "caption",
                    "index": index,
                    "en": caption_of(cell),
                }
            )
    return units


def chapters() -> list[str]:
    return sorted(p.stem for p in EN_NOTEBOOKS.glob("*.ipynb"))


def load_store(chapter: str) -> list[dict]:
    path = STORE / f"{chapter}.yml"
    if not path.exists():
        return []
    return yaml.safe_load(path.read_text(encoding="utf-8")) or []


def load_english(chapter: str) -> dict:
    return json.loads((EN_NOTEBOOKS / f"{chapter}.ipynb").read_text(encoding="utf-8"))


def audit(
    chapter: str, nb: dict | None = None, store: list[dict] | None = None
) -> dict:
    """Which units of a chapter are current, stale or missing, and which entries are orphans."""
    nb = load_english(chapter) if nb is None else nb
    store = load_store(chapter) if store is None else store
    entries = {(e["cell"], e["kind"]): e for e in store}
    report = {"units": [], "current": [], "stale": [], "missing": [], "orphans": []}
    for unit in english_units(nb):
        report["units"].append(unit)
        entry = entries.pop((unit["cell"], unit["kind"]), None)
        if entry is None:
            report["missing"].append(unit)
        elif entry["en_sha256"] != digest(unit["en"]):
            report["stale"].append(unit)
        else:
            report["current"].append(unit)
    report["orphans"] = list(entries.values())
    return report


# The exercise checkers print English (their code is the English code, byte for byte). One line under
# every Korean exercises heading, in a chapter that has checkers, says what their lines mean.
EXERCISES_HEADING = "## 연습 문제"
CHECKER_NOTE = (
    "확인 셀의 출력은 코드와 함께 영어판 그대로입니다. `✓ correct`는 답이 맞았다는 뜻이고, `✗`는 아직 "
    "풀지 않았거나(`not solved yet`) 답이 틀렸다는 뜻이며, 뒤따르는 영어 설명이 처음 어긋난 경우를 "
    "알려 줍니다."
)


def with_checker_note(text: str) -> str:
    """A translated cell with the checker note put right under its exercises heading, if it has one."""
    lines = text.split("\n")
    if EXERCISES_HEADING not in lines:
        return text
    at = lines.index(EXERCISES_HEADING) + 1
    rest = lines[at:]
    return "\n".join(
        lines[:at] + ["", CHECKER_NOTE] + ([""] if rest and rest[0] else []) + rest
    )


def has_checkers(nb: dict) -> bool:
    return any(
        "exercise-check" in c.get("metadata", {}).get("tags", []) for c in nb["cells"]
    )


def korean_notebook(chapter: str) -> dict:
    """The Korean notebook: the English one with current translations put in place.

    A unit without a current translation keeps its English text, so the Korean site still
    builds while a translation is pending; the tests fail until it is done.
    """
    nb = copy.deepcopy(load_english(chapter))
    entries = {(e["cell"], e["kind"]): e for e in load_store(chapter)}
    checkers = has_checkers(nb)
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            entry = entries.get((cell["id"], "markdown"))
            if entry and entry["en_sha256"] == digest(source(cell)):
                text = entry["ko"].rstrip("\n")
                cell["source"] = with_checker_note(text) if checkers else text
        elif caption_of(cell):
            entry = entries.get((cell["id"], "caption"))
            if entry and entry["en_sha256"] == digest(caption_of(cell)):
                cell["metadata"]["mystnb"]["figure"]["caption"] = entry["ko"].strip()
    nb["metadata"].setdefault("book", {})["translation_of"] = (
        f"notebooks/{chapter}.ipynb"
    )
    nb["metadata"]["book"]["language"] = "ko"
    return nb


def dumps(nb: dict) -> str:
    """The exact bytes nbformat writes, so generated notebooks diff like the English ones."""
    import nbformat

    return nbformat.writes(nbformat.from_dict(nb)) + "\n"


def page_header(name: str) -> str:
    """The first line a translated page carries: the hash of the English page it translates."""
    english = (ROOT / "book" / f"{name}.md").read_text(encoding="utf-8")
    return f"<!-- translation of book/{name}.md, sha256 {digest(english)} -->"


def korean_config() -> tuple[dict, dict]:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    overrides = yaml.safe_load((KO_BOOK / "overrides.yml").read_text(encoding="utf-8"))
    config["title"] = overrides["title"]
    sphinx = config["sphinx"]
    # local extension folders are found relative to the config file, which lives in _build/ko
    sphinx["local_extensions"] = {
        name: str(Path("..", "..", path))
        for name, path in sphinx["local_extensions"].items()
    } | {
        name: str(Path("..", "..", path))
        for name, path in overrides["local_extensions"].items()
    }
    sphinx["config"] |= overrides["sphinx_config"]
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    toc["root"] = "book/ko/intro"
    for part, caption in zip(toc["parts"], overrides["part_captions"], strict=True):
        part["caption"] = caption
        entries = list(part["chapters"])
        while entries:  # sub-pages (`sections:`) are translated pages too
            entry = entries.pop()
            folder, name = entry["file"].rsplit("/", 1)
            entry["file"] = f"{folder}/ko/{name}"
            entries += entry.get("sections", [])
    toc["parts"][-1]["chapters"] += [{"file": f} for f in overrides["extra_pages"]]
    return config, toc


def build() -> None:
    KO_NOTEBOOKS.mkdir(exist_ok=True)
    wanted = set()
    for chapter in chapters():
        path = KO_NOTEBOOKS / f"{chapter}.ipynb"
        wanted.add(path)
        text = dumps(korean_notebook(chapter))
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    for stray in set(KO_NOTEBOOKS.glob("*.ipynb")) - wanted:
        stray.unlink()
    config, toc = korean_config()
    KO_BUILD.mkdir(parents=True, exist_ok=True)
    for name, data in (("_config.yml", config), ("_toc.yml", toc)):
        text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
        target = KO_BUILD / name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")


def publish() -> None:
    built = KO_BUILD / "_build" / "html"
    target = ROOT / "_build" / "html" / "ko"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(built, target)


def status() -> list[tuple[str, int, int, int, int]]:
    rows = []
    for chapter in chapters():
        report = audit(chapter)
        rows.append(
            (
                chapter,
                len(report["units"]),
                len(report["current"]),
                len(report["stale"]),
                len(report["missing"]),
            )
        )
    return rows


def print_status() -> None:
    print(f"{'chapter':32} {'units':>5} {'current':>7} {'stale':>5} {'missing':>7}")
    for chapter, units, current, stale, missing in status():
        print(f"{chapter:32} {units:5d} {current:7d} {stale:5d} {missing:7d}")


def pending(chapter: str) -> None:
    report = audit(chapter)
    todo = [
        {
            "cell": u["cell"],
            "kind": u["kind"],
            "en_sha256": digest(u["en"]),
            "en": u["en"],
            "ko": "",
        }
        for u in report["stale"] + report["missing"]
    ]
    print(yaml.safe_dump(todo, allow_unicode=True, sort_keys=False, width=1000))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["build", "publish", "status", "pending"])
    parser.add_argument("chapter", nargs="?")
    args = parser.parse_args()
    if args.command == "build":
        build()
    elif args.command == "publish":
        publish()
    elif args.command == "status":
        print_status()
    else:
        pending(args.chapter)
    return 0


if __name__ == "__main__":
    sys.exit(main())
