"""DOCX to markdown (python-docx), after a ZIP-bomb check."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import PurePath
from typing import Any

import docx
from docx.document import Document as DocxDocument
from docx.table import Table
from docx.text.hyperlink import Hyperlink
from docx.text.paragraph import Paragraph

from tutorgraph.content.extract.base import (
    MB,
    ExtractionLimits,
    _Draft,
    _fail,
    _Images,
    _reason,
    _size,
)
from tutorgraph.content.extract.pdf import _MONOSPACE

# --- DOCX -----------------------------------------------------------------------------------

_CODE_STYLE = re.compile(r"code|source|preformatted|macro", re.I)
_FIGURE_CAPTION = re.compile(r"^(?:Figure|Fig\.)\s*\d*")


def _check_zip(filename: str, data: bytes, limits: ExtractionLimits) -> None:
    """Refuse archives that would expand beyond the limits, before anything decompresses."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise _fail(filename, "is a damaged ZIP archive (not a readable Word document)") from exc
    total = sum(member.file_size for member in members)
    if total > limits.max_uncompressed_bytes:
        limit = _size(limits.max_uncompressed_bytes)
        raise _fail(filename, f"looks like a ZIP bomb: it expands to {_size(total)} ({limit} max)")
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > MB and ratio > limits.max_compression_ratio:
            raise _fail(
                filename, f"looks like a ZIP bomb: {member.filename} expands {ratio:.0f} times"
            )


def _read_docx(filename: str, data: bytes, images: _Images) -> _Draft:
    """The archive checked for a ZIP bomb, then read with python-docx."""
    _check_zip(filename, data, images.limits)
    try:
        document = docx.Document(io.BytesIO(data))
        markdown = _docx_markdown(document, images)
        properties = document.core_properties
        metadata_title = properties.title
        metadata = {
            "title": properties.title or "",
            "description": properties.subject or properties.comments or "",
            "author": properties.author or "",
        }
        body = document.element.body
        dropped = {
            "equations": len(body.xpath(".//m:oMath")),
            "text boxes": len(body.xpath(".//w:txbxContent")),
        }
    except Exception as exc:  # python-docx and lxml raise many types on malformed parts
        raise _fail(filename, f"could not be read as a Word document: {_reason(exc)}") from exc
    for what, count in dropped.items():
        if count:
            images.warnings.append(f"{what} dropped (not converted to text): {count}")
    return _Draft(markdown, metadata_title=metadata_title, metadata=metadata)


def _docx_markdown(document: DocxDocument, images: _Images) -> str:
    """The body's paragraphs and tables in order, with pictures where they are anchored."""
    blocks = list(document.iter_inner_content())
    has_title = any(isinstance(b, Paragraph) and _style(b) == "title" for b in blocks)
    out: list[tuple[bool, str]] = []  # (is a list item, markdown)
    code: list[str] = []
    seen: set[str] = set()

    def add_pictures(element: Any, location: str, caption: str) -> None:
        for rid in element.xpath(".//a:blip/@r:embed"):
            part = document.part.related_parts.get(rid)
            if part is None or not part.content_type.startswith("image/"):
                continue
            seen.add(rid)
            name = PurePath(str(part.partname)).name
            if images.add(name, part.content_type, caption, part.blob, location):
                out.append((False, f"![{caption}]({name})"))

    for index, block in enumerate(blocks, 1):
        if isinstance(block, Table):
            _end_code(code, out)
            if table := _pipe_table(block):
                out.append((False, table))
            add_pictures(block._tbl, f"table after paragraph {index}", "")
            continue
        style = _style(block)
        blank = not block.text.strip() and not block._p.xpath(".//a:blip")
        if _is_code(block, style) or (code and blank):  # a blank line inside code stays in it
            code.append(block.text)
            continue
        _end_code(code, out)
        caption = _caption(blocks[index]) if index < len(blocks) else ""
        add_pictures(block._p, f"paragraph {index}", caption)
        if not block.text.strip():
            continue
        if level := _heading_level(style, has_title=has_title):
            out.append((False, "#" * level + " " + " ".join(block.text.split())))
        elif prefix := _list_prefix(block, style):
            out.append((True, prefix + _inline(block)))
        else:
            out.append((False, _inline(block)))
    _end_code(code, out)
    for rid, part in document.part.related_parts.items():
        if rid not in seen and part.content_type.startswith("image/"):
            name = PurePath(str(part.partname)).name
            images.add(name, part.content_type, "", part.blob, "document")
    text = ""
    for n, (is_item, markdown) in enumerate(out):
        separator = "\n" if is_item and n and out[n - 1][0] else "\n\n"
        text += (separator if n else "") + markdown
    return text


def _style(paragraph: Paragraph) -> str:
    """The paragraph style's name in lower case ("heading 1", "list bullet 2")."""
    style = paragraph.style
    return (style.name or "").lower() if style is not None else ""


def _caption(block: Paragraph | Table) -> str:
    """The text of a Caption-styled or "Figure ..." paragraph, else ""."""
    if not isinstance(block, Paragraph):
        return ""
    text = block.text.strip()
    return text if _style(block) == "caption" or _FIGURE_CAPTION.match(text) else ""


def _heading_level(style: str, *, has_title: bool) -> int:
    """Title is `#`; Heading n is n, or n + 1 under a Title (capped at 6); 0 for no heading."""
    if style == "title":
        return 1
    if match := re.fullmatch(r"heading (\d)", style):
        return min(int(match.group(1)) + (1 if has_title else 0), 6)
    return 0


def _list_prefix(paragraph: Paragraph, style: str) -> str:
    """`- ` or `1. ` (indented by level) for list paragraphs, by style or Word numbering."""
    level = re.search(r"(\d)$", style)
    indent = "  " * (int(level.group(1)) - 1 if level else 0)
    if style.startswith("list bullet"):
        return indent + "- "
    if style.startswith("list number"):
        return indent + "1. "
    depth = paragraph._p.xpath("./w:pPr/w:numPr/w:ilvl/@w:val")
    if paragraph._p.xpath("./w:pPr/w:numPr"):
        return "  " * int(depth[0] if depth else 0) + "- "
    return ""


def _is_code(paragraph: Paragraph, style: str) -> bool:
    """Code-like style name, or every run with text set in a monospace font."""
    if _CODE_STYLE.search(style):
        return True
    style_font = paragraph.style.font.name if paragraph.style is not None else None
    fonts = [run.font.name or style_font or "" for run in paragraph.runs if run.text.strip()]
    return bool(fonts) and all(_MONOSPACE.search(font) for font in fonts)


def _end_code(code: list[str], out: list[tuple[bool, str]]) -> None:
    """Close the open run of code paragraphs as one fence."""
    while code and not code[-1].strip():
        code.pop()
    if code:
        out.append((False, "\n".join(["```", *code, "```"])))
        code.clear()


def _inline(paragraph: Paragraph) -> str:
    """The paragraph's text with bold, italic, inline code and links as markdown."""
    pieces: list[str] = []
    runs: list[tuple[str, tuple[bool, bool, bool]]] = []

    def end_runs() -> None:
        groups: list[tuple[str, tuple[bool, bool, bool]]] = []
        for text, marks in runs:
            if groups and groups[-1][1] == marks:
                groups[-1] = (groups[-1][0] + text, marks)
            else:
                groups.append((text, marks))
        for text, (bold, italic, mono) in groups:
            core = text.strip()
            if not core:
                pieces.append(text)
                continue
            mark = "`" if mono else ("**" if bold else "") + ("*" if italic else "")
            lead, trail = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]
            pieces.append(lead + mark + core + mark[::-1] + trail)
        runs.clear()

    for item in paragraph.iter_inner_content():
        if isinstance(item, Hyperlink):
            end_runs()
            pieces.append(f"[{item.text}]({item.url})" if item.url else item.text)
        else:
            mono = bool(item.font.name and _MONOSPACE.search(item.font.name))
            runs.append((item.text, (bool(item.bold), bool(item.italic), mono)))
    end_runs()
    return "".join(pieces).strip()


def _pipe_table(table: Table) -> str:
    """A Word table as a pipe table, the first row as its header; "" if it is empty."""
    rows = [
        [" ".join(cell.text.split()).replace("|", "\\|") for cell in row.cells]
        for row in table.rows
    ]
    rows = [row for row in rows if any(row)]
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    rows = [row + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(row) + " |" for row in rows]
    lines.insert(1, "|" + " --- |" * width)
    return "\n".join(lines)
