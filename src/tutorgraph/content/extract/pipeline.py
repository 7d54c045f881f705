"""`extract`: sniff, check limits, read with the format's reader, tidy, and title."""

from __future__ import annotations

import math
import re
from pathlib import PurePath
from typing import assert_never

from tutorgraph.content.chunking import FENCE, HEADING
from tutorgraph.content.extract.base import (
    WORDS_PER_PAGE,
    ExtractedDocument,
    ExtractionLimits,
    _Draft,
    _fail,
    _Images,
    _size,
)
from tutorgraph.content.extract.html import _read_html
from tutorgraph.content.extract.pdf import _read_pdf
from tutorgraph.content.extract.plain import _read_markdown, _text_to_markdown
from tutorgraph.content.extract.sniff import _decode, sniff_kind
from tutorgraph.content.extract.word import _read_docx


def extract(
    filename: str, data: bytes, *, limits: ExtractionLimits = ExtractionLimits()
) -> ExtractedDocument:
    """Read one upload into markdown with its images; raises ExtractionError, never a traceback
    from a parser, for a file that cannot be read."""
    if len(data) > limits.max_bytes:
        raise _fail(filename, f"is {_size(len(data))}; the limit is {_size(limits.max_bytes)}")
    kind = sniff_kind(filename, data)
    warnings: list[str] = []
    images = _Images(limits, warnings)
    if kind == "markdown":
        draft = _read_markdown(_decode(filename, data), images)
    elif kind == "text":
        draft = _Draft(_text_to_markdown(_decode(filename, data)))
    elif kind == "html":
        draft = _read_html(_decode(filename, data), images)
    elif kind == "pdf":
        draft = _read_pdf(filename, data, images)
    elif kind == "docx":
        draft = _read_docx(filename, data, images)
    else:
        assert_never(kind)
    markdown = _tidy(draft.markdown)
    words = len(markdown.split())
    if not words:
        warnings.append("no extractable text")
    return ExtractedDocument(
        filename=filename,
        kind=kind,
        title=_first_h1(markdown)
        or (draft.metadata_title or "").strip()
        or PurePath(filename).stem,
        markdown=markdown,
        pages=draft.pages or max(1, math.ceil(words / WORDS_PER_PAGE)),
        words=words,
        images=images.kept,
        warnings=warnings,
        metadata={k: v for k, v in draft.metadata.items() if v},
    )


def _tidy(markdown: str) -> str:
    """Trailing spaces and runs of blank lines removed outside code fences."""
    out: list[str] = []
    in_fence = False
    for line in markdown.split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence:
            line = line.rstrip()
            if not line and (not out or not out[-1]):
                continue
        out.append(line)
    return "\n".join(out).strip("\n") + "\n"


def _first_h1(markdown: str) -> str:
    """The first `# Heading` outside code fences, without emphasis and code marks; "" if none."""
    in_fence = False
    for line in markdown.split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (match := HEADING.match(line)) and len(match.group(1)) == 1:
            return " ".join(re.sub(r"\*+|`", "", match.group(2)).split())
    return ""
