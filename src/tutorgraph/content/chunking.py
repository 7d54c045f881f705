"""Heading-aware markdown chunking with overlap: every chunk knows its heading path."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")

TARGET_WORDS = 220
OVERLAP_WORDS = 50


@dataclass(frozen=True)
class Section:
    heading_path: tuple[str, ...]
    blocks: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Chunk:
    heading_path: tuple[str, ...]
    text: str

    @property
    def heading(self) -> str:
        return self.heading_path[-1] if self.heading_path else ""


def split_sections(markdown: str) -> list[Section]:
    """Split at headings (outside code fences); blocks are paragraphs or whole code fences."""
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    current = Section(heading_path=())
    block: list[str] = []
    in_fence = False

    def flush_block() -> None:
        text = "\n".join(block).strip()
        if text:
            current.blocks.append(text)
        block.clear()

    for line in markdown.splitlines():
        if FENCE.match(line):
            if not in_fence:
                flush_block()
            block.append(line)
            in_fence = not in_fence
            if not in_fence:
                flush_block()
            continue
        if in_fence:
            block.append(line)
            continue
        match = HEADING.match(line)
        if match:
            flush_block()
            if current.blocks:
                sections.append(current)
            level, title = len(match.group(1)), _plain(match.group(2))
            path = [(lvl, t) for lvl, t in path if lvl < level] + [(level, title)]
            current = Section(heading_path=tuple(t for _, t in path))
        elif not line.strip():
            flush_block()
        else:
            block.append(line)
    flush_block()
    if current.blocks:
        sections.append(current)
    return sections


def _plain(title: str) -> str:
    """A heading without markdown emphasis or code marks; code stays as written (`d_k`,
    `tmp_path`, `__init__`)."""
    parts = re.split(r"(`[^`]*`)", title)
    plain = [
        part.strip("`") if part.startswith("`") else re.sub(r"\*+|(?<!\w)_+|_+(?!\w)", "", part)
        for part in parts
    ]
    return "".join(plain).strip()


def chunk_markdown(
    markdown: str, *, target_words: int = TARGET_WORDS, overlap_words: int = OVERLAP_WORDS
) -> list[Chunk]:
    """Chunks of about `target_words` that never cross a heading; consecutive chunks of one
    section share about `overlap_words` of trailing context."""
    chunks: list[Chunk] = []
    for section in split_sections(markdown):
        current: list[str] = []
        words = 0
        for block in section.blocks:
            size = len(block.split())
            if current and words + size > target_words:
                chunks.append(Chunk(section.heading_path, "\n\n".join(current)))
                current, words = _overlap(current, overlap_words)
            current.append(block)
            words += size
        if current:
            chunks.append(Chunk(section.heading_path, "\n\n".join(current)))
    return chunks


def _overlap(blocks: list[str], overlap_words: int) -> tuple[list[str], int]:
    """The tail of the previous chunk carried into the next one."""
    tail = " ".join(blocks).split()[-overlap_words:] if overlap_words else []
    if not tail:
        return [], 0
    return ["… " + " ".join(tail)], len(tail)
