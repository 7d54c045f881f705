"""PDF to markdown (pypdf): headings from the document outline (bookmarks) when it has one,
else from font sizes; monospace lines as code, images with their captions; the document
information (title, subject, author) as metadata.

With bookmarks, a line on a bookmark's page whose text is the bookmark's title becomes a heading
at the bookmark's depth (a title line set larger than everything, above the first bookmark, is
`#` and the bookmarks go one level down); a bookmark whose title is not a line of its page is
put at the top of that page. Bookmarks that point nowhere are skipped. A heading line's own
number ("2.1 Modules", "Chapter 2 ...") is not part of the title it must spell, and is dropped
from the heading; ligature glyphs (U+FB00-FB06, "ﬁ") are read as their letters everywhere.
A page is parsed for images only when its content stream draws one (one parse per page)."""

from __future__ import annotations

import io
import itertools
import math
import mimetypes
import re
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import Any

from pypdf import PageObject, PasswordType, PdfReader

from tutorgraph.content.extract.base import ExtractionError, _Draft, _fail, _Images, _reason

# --- PDF ------------------------------------------------------------------------------------

_MONOSPACE = re.compile(r"courier|mono|code|consol|menlo|monaco|cmtt", re.I)
_CAPTION = re.compile(r"^(?:Figure|Fig\.|Table)\s*\d*[.:]?(?:\s|$)")
_LEADER = re.compile(r"(?:\s?\.){4,}\s*")  # a table of contents' dot leaders
_BULLET = re.compile(r"^[•◦▪●■]\s*")
_PAGE_NUMBER = re.compile(r"^(?:page\s*)?\d+(?:\s*(?:of|/)\s*\d+)?$", re.I)
_MAX_HEADING_WORDS = 15
# A heading's own number ("2.1", "2.1.3.", "Chapter 2"): the bookmark names the section without it.
_SECTION_NUMBER = re.compile(r"^(?:(?:chapter|section|part)\s+)?\d+(?:\.\d+)*\.?\s+", re.I)
# Ligature glyphs (U+FB00-FB06) as the letters they stand for: "ﬁle" is "file".
_LIGATURES = str.maketrans(
    {
        "\ufb00": "ff",
        "\ufb01": "fi",
        "\ufb02": "fl",
        "\ufb03": "ffi",
        "\ufb04": "ffl",
        "\ufb05": "st",
        "\ufb06": "st",
    }
)


@dataclass
class _Line:
    text: str
    size: float  # the font size as drawn, in points
    monospace: bool
    x: float
    y: float


@dataclass
class _Bookmark:
    title: str
    depth: int  # 1 for a top-level bookmark
    page: int  # 0-based


@dataclass
class _Drawn:
    """An image XObject drawn here; `bottom` is its lower edge on the page."""

    xobject: str
    bottom: float


def _read_pdf(filename: str, data: bytes, images: _Images) -> _Draft:
    """Text, headings, code and images of each page; one unreadable page is a warning, an
    unreadable file an ExtractionError."""
    pages: list[list[_Line | _Drawn]] = []
    pictures: list[dict[str, str]] = []
    broken: dict[int, str] = {}  # page number -> why its text could not be read
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            raise _fail(filename, "is password-protected: upload a copy without a password")
        if len(reader.pages) > images.limits.max_pages:
            limit = images.limits.max_pages
            raise _fail(filename, f"has {len(reader.pages)} pages; the limit is {limit}")
        metadata_title = reader.metadata.title if reader.metadata else None
        metadata = _document_information(reader)
        bookmarks = _bookmarks(reader)
        for number, page in enumerate(reader.pages, 1):
            try:
                pages.append(_pdf_page_items(page))
            except Exception as exc:  # pypdf raises anything from PdfReadError to KeyError
                broken[number] = _reason(exc)
                pages.append([])
            # A page that draws no image is not parsed a second time for its images.
            draws = number in broken or any(isinstance(i, _Drawn) for i in pages[-1])
            pictures.append(_pdf_page_images(page, number, images) if draws else {})
        if pages and len(broken) == len(pages):
            raise ValueError(broken[1])
    except ExtractionError:
        raise
    except Exception as exc:
        raise _fail(filename, f"could not be read as a PDF: {_reason(exc)}") from exc
    _drop_running_lines(pages)
    levels = _heading_levels(pages, _body_size(pages))
    level_of, unplaced = (
        _bookmark_levels(pages, bookmarks, levels) if bookmarks else (_size_levels(levels), {})
    )
    blocks: list[str] = []
    for number, (items, page_images) in enumerate(zip(pages, pictures, strict=True), 1):
        if number in broken:
            images.warnings.append(f"page {number} could not be read: {broken[number]}")
        elif not any(isinstance(item, _Line) for item in items):
            images.warnings.append(f"page {number} has no extractable text (scanned?)")
        page_blocks = unplaced.get(number - 1, []) + _pdf_page_blocks(
            items, page_images, level_of, images
        )
        if blocks and page_blocks and _continues(blocks[-1], page_blocks[0]):
            blocks[-1] = _join_lines([blocks[-1], page_blocks.pop(0)])  # across a page break
        blocks += page_blocks
    joiner = "\n" if images.limits.keep_lines else "\n\n"
    return _Draft(
        joiner.join(blocks), metadata_title=metadata_title, pages=len(pages), metadata=metadata
    )


def _document_information(reader: PdfReader) -> dict[str, str]:
    """Title, subject (as the description) and author from the document information."""
    info = reader.metadata
    if info is None:
        return {}
    title = " ".join(str(info.title or "").split())
    if re.search(r"\.(docx?|pdf|tex|odt|pptx?)$|^microsoft word\b|^untitled$", title, re.I):
        title = ""  # a file name or a word processor's placeholder, not the author's title
    return {
        "title": title,
        "description": " ".join(str(info.subject or "").split()),
        "author": " ".join(str(info.author or "").split()),
    }


def _bookmarks(reader: PdfReader) -> list[_Bookmark]:
    """The document outline, flattened in reading order with each entry's depth."""
    found: list[_Bookmark] = []

    def walk(entries: list[Any], depth: int) -> None:
        for entry in entries:
            if isinstance(entry, list):
                walk(entry, depth + 1)  # the children of the entry before
                continue
            try:
                page = reader.get_destination_page_number(entry)
            except Exception:  # a bookmark to a missing page or a named destination
                continue
            title = " ".join(str(getattr(entry, "title", "") or "").split())
            if title and page is not None and page >= 0:
                found.append(_Bookmark(title, depth, page))

    try:
        walk(list(reader.outline), 1)
    except Exception:  # a damaged outline is read as no outline
        return []
    return found


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.translate(_LIGATURES).lower()).split())


def _unnumbered(text: str) -> str:
    """A heading line without its section number ("2.1 Modules" is "Modules")."""
    return _SECTION_NUMBER.sub("", text.strip(), count=1)


def _size_levels(levels: dict[float, int]) -> Callable[[_Line], int | None]:
    def level_of(line: _Line) -> int | None:
        short = len(line.text.split()) <= _MAX_HEADING_WORDS
        return levels.get(line.size) if short else None

    return level_of


def _bookmark_levels(
    pages: list[list[_Line | _Drawn]], bookmarks: list[_Bookmark], levels: dict[float, int]
) -> tuple[Callable[[_Line], int | None], dict[int, list[str]]]:
    """Heading levels from the bookmarks, and the headings of bookmarks whose title is no line
    of their page (page index -> markdown headings to put first)."""
    lines = [[item for item in items if isinstance(item, _Line)] for items in pages]
    title_line = next((line for page in lines for line in page if levels.get(line.size) == 1), None)
    shift = 0
    if title_line is not None and _plain(title_line.text) not in {
        _plain(b.title) for b in bookmarks
    }:
        first = bookmarks[0]
        before_first = any(line is title_line for page in lines[: first.page + 1] for line in page)
        shift = 1 if before_first else 0
    marked: dict[int, int] = {id(title_line): 1} if shift else {}
    unplaced: dict[int, list[str]] = {}
    for bookmark in bookmarks:
        level = min(bookmark.depth + shift, 6)
        page = lines[bookmark.page] if bookmark.page < len(lines) else []
        if not _mark_title(page, _plain(_unnumbered(bookmark.title)), level, marked):
            unplaced.setdefault(bookmark.page, []).append("#" * level + " " + bookmark.title)

    def level_of(line: _Line) -> int | None:
        return marked.get(id(line))

    return level_of, unplaced


def _mark_title(page: list[_Line], title: str, level: int, marked: dict[int, int]) -> bool:
    """Mark the line (or the run of wrapped lines) of `page` that spells `title`, its section
    number left out (the heading is then written without it)."""
    for start, line in enumerate(page):
        if id(line) in marked or not title.startswith(_plain(_unnumbered(line.text)) or "\0"):
            continue
        run, spelled = [line], _plain(_unnumbered(line.text))
        for following in page[start + 1 : start + 4]:
            if spelled == title:
                break
            spelled = (spelled + " " + _plain(following.text)).strip()
            run.append(following)
        if spelled == title or _plain(_unnumbered(line.text)) == title:
            for part in run if spelled == title else [line]:
                marked[id(part)] = level
            line.text = _unnumbered(line.text)
            return True
    return False


def _continues(before: str, after: str) -> bool:
    """Whether `after` is the rest of the paragraph `before` (a sentence cut by a page break)."""
    not_prose = ("#", "```", "![", "- ", "|")
    prose = not before.startswith(not_prose) and not after.startswith(not_prose)
    return prose and not before.endswith((".", "!", "?", ":")) and after[:1].islower()


def _pdf_page_items(page: PageObject) -> list[_Line | _Drawn]:
    """The page's lines (with drawn font size and position) and image draws, in stream order."""
    items: list[_Line | _Drawn] = []
    parts: list[tuple[str, float, str, float, float]] = []

    def end_line() -> None:
        inked = [part for part in parts if part[0].strip()]
        if inked:
            sizes: Counter[float] = Counter()
            monospace = 0
            for piece, size, font, _, _ in inked:
                sizes[round(size * 2) / 2] += len(piece)
                monospace += len(piece) if _MONOSPACE.search(font) else 0
            # A line is code when (nearly) all of it is monospace, not for an inline `name`.
            is_code = monospace >= 0.9 * sum(len(part[0]) for part in inked)
            text = _LEADER.sub(" … ", "".join(part[0] for part in parts)).strip()
            size, x, y = sizes.most_common(1)[0][0], inked[0][3], inked[0][4]
            items.append(_Line(text, size, is_code, x, y))
        parts.clear()

    def on_text(text: str, cm: list[float], tm: list[float], font: Any, size: float) -> None:
        # The text matrix times the CTM gives the position and scale on the page.
        _, _, c, d, e, f = _multiply(tm, cm)
        drawn = abs(size) * math.hypot(c, d)
        name = str(font.get("/BaseFont", "")) if font is not None else ""
        for n, piece in enumerate(text.split("\n")):
            if n:
                end_line()
            if piece:
                parts.append((piece.translate(_LIGATURES), drawn, name, e, f))

    def on_operator(operator: bytes, operands: Any, cm: list[float], tm: list[float]) -> None:
        if operator == b"Do" and operands:
            end_line()
            items.append(_Drawn(str(operands[0]).lstrip("/"), min(cm[5], cm[5] + cm[3])))
        elif operator == b"INLINE IMAGE":  # drawn in the content stream itself, no name
            end_line()
            items.append(_Drawn("", min(cm[5], cm[5] + cm[3])))

    page.extract_text(visitor_text=on_text, visitor_operand_before=on_operator)
    end_line()
    return items


def _multiply(m: list[float], n: list[float]) -> tuple[float, ...]:
    """The product of two PDF matrices `[a b c d e f]`."""
    return (
        m[0] * n[0] + m[1] * n[2],
        m[0] * n[1] + m[1] * n[3],
        m[2] * n[0] + m[3] * n[2],
        m[2] * n[1] + m[3] * n[3],
        m[4] * n[0] + m[5] * n[2] + n[4],
        m[4] * n[1] + m[5] * n[3] + n[5],
    )


def _pdf_page_images(page: PageObject, number: int, images: _Images) -> dict[str, str]:
    """Keep the page's images; their XObject names mapped to the kept names."""
    kept: dict[str, str] = {}
    try:
        page_images = page.images
        count = len(page_images)
    except Exception as exc:  # a damaged resource dictionary
        images.warnings.append(f"the images on page {number} could not be read: {_reason(exc)}")
        return kept
    for index in range(count):
        if images.full():
            break
        try:
            image = page_images[index]
            data = image.data
        except Exception as exc:  # an unsupported filter, or Pillow missing
            images.warnings.append(f"image {index + 1} on page {number} skipped: {_reason(exc)}")
            continue
        suffix = PurePath(image.name).suffix or ".png"
        name = f"page{number}-img{index + 1}{suffix}"
        media_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if images.add(name, media_type, "", data, f"page {number}"):
            kept[PurePath(image.name).stem] = name
    return kept


def _drop_running_lines(pages: list[list[_Line | _Drawn]]) -> None:
    """Remove page numbers and the running header/footer lines repeated at page edges."""

    def key(line: _Line) -> str:
        return re.sub(r"\d+", "#", line.text.lower())

    def edges(items: list[_Line | _Drawn]) -> list[_Line]:
        lines = [item for item in items if isinstance(item, _Line)]
        return lines[:2] + lines[-2:] if len(lines) > 4 else lines

    seen = Counter(k for items in pages for k in {key(line) for line in edges(items)})
    running = {k for k, n in seen.items() if n >= 3 and n >= len(pages) / 2}
    for items in pages:
        for line in edges(items):
            if key(line) in running or _PAGE_NUMBER.match(line.text):
                items.remove(line)


def _body_size(pages: list[list[_Line | _Drawn]]) -> float:
    """The document's body text size: the size most characters are set in."""
    sizes: Counter[float] = Counter()
    for items in pages:
        for item in items:
            if isinstance(item, _Line) and not item.monospace:
                sizes[item.size] += len(item.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _heading_levels(pages: list[list[_Line | _Drawn]], body: float) -> dict[float, int]:
    """Font sizes clearly larger than the body text, largest first: `#`, `##`, then `###`."""
    sizes = {
        item.size
        for items in pages
        for item in items
        if isinstance(item, _Line)
        and not item.monospace
        and item.size >= max(body * 1.15, body + 1)
        and len(item.text.split()) <= _MAX_HEADING_WORDS
    }
    return {size: min(rank, 3) for rank, size in enumerate(sorted(sizes, reverse=True), 1)}


def _pdf_page_blocks(
    items: list[_Line | _Drawn],
    kept: dict[str, str],
    level_of: Callable[[_Line], int | None],
    images: _Images,
) -> list[str]:
    """One page as markdown blocks: headings, paragraphs of merged lines, lists, code, images."""
    lines = [item for item in items if isinstance(item, _Line)]
    break_after = _paragraph_gap(lines)
    keep_lines = images.limits.keep_lines
    blocks: list[str] = []
    paragraph: list[_Line] = []
    code: list[_Line] = []
    last_level = 0  # the heading level of the previous line, 0 if it was no heading

    def end_blocks() -> None:
        if paragraph:
            # A body line that starts with "#" (a code comment set in the body font) is text.
            text = _join_lines([line.text for line in paragraph])
            blocks.append(re.sub(r"^(#+)(?=\s)", r"\\\1", text))
        if code:
            blocks.append(_code_fence(code))
        paragraph.clear()
        code.clear()

    placed: set[str] = set()
    for item in items:
        if isinstance(item, _Drawn):
            end_blocks()
            if item.xobject in kept and item.xobject not in placed:
                placed.add(item.xobject)
                below = [line for line in lines if line.y < item.bottom]
                right_below = max(below, key=lambda line: line.y).text if below else ""
                caption = right_below if _CAPTION.match(right_below) else ""
                _set_caption(images, kept[item.xobject], caption)
                blocks.append(f"![{caption}]({kept[item.xobject]})")
            continue
        level = level_of(item)
        if item.monospace:
            if paragraph:
                end_blocks()
            code.append(item)
        elif level:
            end_blocks()
            if last_level == level and blocks[-1].startswith("#"):
                blocks[-1] += " " + item.text  # a heading wrapped over two lines
            else:
                blocks.append("#" * level + " " + item.text)
            last_level = level
            continue
        elif _CAPTION.match(item.text):
            end_blocks()
            blocks.append(item.text)
        elif bullet := _BULLET.match(item.text):
            end_blocks()
            paragraph.append(replace(item, text="- " + item.text[bullet.end() :]))
        else:
            if code or (paragraph and (keep_lines or break_after(paragraph[-1], item))):
                end_blocks()
            paragraph.append(item)
        last_level = 0
    end_blocks()
    blocks += [f"![]({name})" for xobject, name in kept.items() if xobject not in placed]
    return blocks


def _paragraph_gap(lines: list[_Line]) -> Callable[[_Line, _Line], bool]:
    """Whether the space between two lines is a paragraph break: more than the page's usual
    line spacing, or a jump back up the page (a new column)."""
    gaps = [a.y - b.y for a, b in itertools.pairwise(lines) if 0 < a.y - b.y < 3 * a.size]
    usual = statistics.median(gaps) if gaps else None

    def is_break(previous: _Line, line: _Line) -> bool:
        gap = previous.y - line.y
        spacing = min(usual, 1.5 * line.size) if usual else 1.2 * line.size
        return gap < -line.size or gap > 1.3 * spacing

    return is_break


def _join_lines(lines: list[str]) -> str:
    """Wrapped lines as one paragraph; `exam-` + `ple` is `example`."""
    text = lines[0]
    for line in lines[1:]:
        if re.search(r"\w-$", text) and line[:1].islower():
            text = text[:-1] + line
        else:
            text += " " + line
    return text


def _code_fence(lines: list[_Line]) -> str:
    """Monospace lines as a fence; indentation recovered from their x offsets."""
    left = min(line.x for line in lines)
    body = [" " * round((line.x - left) / (0.6 * line.size or 1)) + line.text for line in lines]
    return "\n".join(["```", *body, "```"])


def _set_caption(images: _Images, name: str, caption: str) -> None:
    """Give a kept image the caption found once its position on the page is known."""
    for index, image in enumerate(images.kept):
        if image.name == name:
            images.kept[index] = image.model_copy(update={"caption": caption})
