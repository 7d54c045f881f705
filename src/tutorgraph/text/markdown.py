"""Markdown read as prose: its sentences, code blocks and first table (told as sentences), and
whether a sentence is plain enough for a plain-language explanation."""

from __future__ import annotations

import re
from dataclasses import dataclass

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z$`*(\"'])")
_FENCE = re.compile(r"```[^\n]*\n.*?```", re.DOTALL)
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.DOTALL)


@dataclass(frozen=True)
class CodeBlock:
    language: str
    code: str


def code_blocks(markdown: str) -> list[CodeBlock]:
    blocks = []
    for match in _FENCE.finditer(markdown):
        head, _, rest = match.group(0).partition("\n")
        blocks.append(CodeBlock(head.strip("`").strip(), rest.rsplit("```", 1)[0].rstrip()))
    return blocks


def sentences(markdown: str) -> list[str]:
    """Prose sentences of a markdown passage: no code, headings, tables, display maths or
    overlap markers."""
    text = _DISPLAY_MATH.sub(" ", _FENCE.sub(" ", markdown))
    kept: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        lines = [
            line.strip()
            for line in paragraph.splitlines()
            if line.strip() and not line.lstrip().startswith(("#", "|", "<", "```"))
        ]
        if not lines:
            continue
        prose = " ".join(re.sub(r"^([-*+]|\d+\.)\s+", "", line) for line in lines)
        fragments = _SENTENCE_END.split(prose.strip())
        if prose.startswith("… "):
            fragments = fragments[1:]  # the overlap carried from the previous chunk
        for sentence in fragments:
            sentence = sentence.strip()
            if sentence[:1].islower():
                continue
            lead_in = sentence.endswith(":")
            if len(sentence.split()) >= 4 and not sentence.startswith("…") and not lead_in:
                kept.append(sentence)
    return kept


_TABLE_RULE = re.compile(r"^\s*\|[\s:|-]+\|\s*$")


@dataclass(frozen=True)
class Table:
    """The first markdown table of a text: the line that introduces it (ending in ":", or ""),
    its header and rule lines, and its rows (lines)."""

    lead_in: str
    header: str
    rule: str
    rows: tuple[str, ...]


def first_table(markdown: str) -> Table | None:
    lines = markdown.splitlines()
    for i in range(len(lines) - 1):
        if lines[i].lstrip().startswith("|") and _TABLE_RULE.match(lines[i + 1]):
            rows = []
            for line in lines[i + 2 :]:
                if not line.lstrip().startswith("|"):
                    break
                rows.append(line)
            before = [line.strip() for line in lines[:i] if line.strip()]
            lead = before[-1] if before else ""
            lead_in = lead if lead.endswith(":") and not lead.startswith(("#", "|", "…")) else ""
            return Table(lead_in, lines[i], lines[i + 1], tuple(rows)) if rows else None
    return None


def row_sentences(markdown: str) -> list[str]:
    """A text's first table told as sentences, one per row ("`islice(it, stop)`: slicing for
    any iterator."): what a section that is only a table says, for replies built of sentences."""
    table = first_table(markdown)
    if table is None:
        return []
    told = []
    for row in table.rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|") if c.strip()]
        if cells:
            told.append(f"{cells[0]}: {'; '.join(cells[1:])}." if len(cells) > 1 else cells[0])
    return told


_KEYWORD = re.compile(r"`[A-Za-z]+`")  # `yield`, `with`: a word in code font, not code


def is_plain(sentence: str) -> bool:
    """No maths, code or symbols (a keyword in code font is a word): suitable for a
    plain-language explanation."""
    return not re.search(r"[$\\`^_{}=×√]", _KEYWORD.sub("w", sentence))


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"
