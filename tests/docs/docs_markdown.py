"""A Markdown file read the way the doc checks need it: fenced blocks (language, first line,
lines), inline code spans, relative link targets and the anchors its headings give (GitHub's
slugs, duplicates numbered, explicit ``{#id}`` and ``<a id>``), each with its line."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_EXPLICIT_ID = re.compile(r"\{#([\w-]+)\}")
_HTML_ID = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\".*\")?\s*$")
_HTML_LINK = re.compile(r"<(?:a|img)\s[^>]*?(?:href|src)=\"([^\"]+)\"")


@dataclass
class Doc:
    """A Markdown file cut into what the checks read."""

    path: Path
    blocks: list[tuple[str, int, list[str]]] = field(default_factory=list)  # lang, line, lines
    spans: list[tuple[int, str]] = field(default_factory=list)  # inline code: line, text
    links: list[tuple[int, str]] = field(default_factory=list)  # line, target
    anchors: set[str] = field(default_factory=set)


def parse(path: Path) -> Doc:
    """Fenced blocks, inline code, links and heading anchors of one Markdown file."""
    doc = Doc(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    paragraph: list[tuple[int, str]] = []
    fence: tuple[str, str, int, list[str]] | None = None  # marker, lang, start, lines
    for number, line in enumerate(lines, start=1):
        if fence is not None:
            if line.strip().startswith(fence[0]) and not line.strip().strip(fence[0][0]):
                doc.blocks.append((fence[1], fence[2], fence[3]))
                fence = None
            else:
                fence[3].append(line)
            continue
        opened = _FENCE.match(line)
        if opened:
            _read_paragraph(doc, paragraph)
            paragraph = []
            fence = (opened.group(2), opened.group(3).lower(), number + 1, [])
        elif not line.strip():
            _read_paragraph(doc, paragraph)
            paragraph = []
        else:
            paragraph.append((number, line))
    _read_paragraph(doc, paragraph)
    _read_anchors(doc, lines)
    return doc


def _read_paragraph(doc: Doc, paragraph: list[tuple[int, str]]) -> None:
    if not paragraph:
        return
    first = paragraph[0][0]
    text = "\n".join(line for _, line in paragraph)
    for span in _CODE_SPAN.finditer(text):
        line = first + text.count("\n", 0, span.start())
        doc.spans.append((line, " ".join(span.group(2).split())))
    # links are read with the code spans blanked out (newlines kept, so lines still count)
    prose = _CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    for pattern in (_LINK, _HTML_LINK):
        for link in pattern.finditer(prose):
            doc.links.append((first + prose.count("\n", 0, link.start()), link.group(1)))
    for offset, prose_line in enumerate(prose.split("\n")):
        ref = _REF_DEF.match(prose_line)
        if ref:
            doc.links.append((first + offset, ref.group(1)))


def _read_anchors(doc: Doc, lines: list[str]) -> None:
    counts: dict[str, int] = {}
    in_fence: str | None = None
    for line in lines:
        opened = _FENCE.match(line)
        if in_fence is not None:
            if line.strip().startswith(in_fence) and not line.strip().strip(in_fence[0]):
                in_fence = None
            continue
        if opened:
            in_fence = opened.group(2)
            continue
        doc.anchors.update(_HTML_ID.findall(line))
        heading = _HEADING.match(line)
        if not heading:
            continue
        text = heading.group(2)
        doc.anchors.update(_EXPLICIT_ID.findall(text))
        for variant in {text, _EXPLICIT_ID.sub("", text).strip()}:
            slug = github_slug(variant)
            seen = counts.get(slug, 0)
            counts[slug] = seen + 1
            doc.anchors.add(slug if seen == 0 else f"{slug}-{seen}")


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its rendered text in lower case, punctuation other than
    ``-`` and ``_`` dropped, each space a ``-``."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # HTML tags
    text = text.replace("`", "").replace("*", "")
    kept = "".join(ch for ch in text.lower() if ch.isalnum() or ch in " -_")
    return kept.replace(" ", "-")
