"""An author's upload to markdown the constructor can chunk: `#` headings, ``` fences, lists.

The kind is sniffed from the bytes, never trusted from the extension. What each format keeps:

- Markdown: everything, as written; setext headings become `#` headings (the chunker only reads
  `#`), YAML front matter is dropped (its `title:` is kept as the title), and `data:` images become
  image entries referenced by name. Linked images stay links: nothing is downloaded.
- Plain text: paragraphs and lists as written; underlined (`===`/`---`) lines and short ALL-CAPS
  lines become headings, indented blocks become code fences. Emphasis cannot be recovered.
- HTML: headings, paragraphs, lists, tables, links and `<pre>` code (with its `language-x`);
  scripts, styles, navigation, page headers and footers are dropped; `data:` images become image
  entries. Linked images stay links. CSS layout and forms are lost.
- PDF: text in drawing order, which is reading order for most single-column documents but not
  all. Headings are guessed from font sizes (a line clearly larger than the document's body
  text), so they are only as good as the typography; bold body-size headings stay paragraphs.
  Lines set (almost) wholly in a monospace font become code fences (inline code in prose is not
  marked); wrapped lines are merged, hyphenated breaks joined (a real hyphen at a line end is lost
  too), and • bullets become list items. Bare page numbers, and header/footer lines repeated on
  most pages, are dropped. Tables come out as lines of text. Scanned pages have no text (no OCR):
  each is a warning. Images need Pillow to decode; their caption is the "Figure ..."/"Table ..."
  line right below them. Links, annotations and form fields are dropped.
- DOCX: Title/Heading styles, bullet and numbered lists (nesting from the style's level), bold,
  italic, links, code (monospace or Code-styled paragraphs), tables (as pipe tables, merged cells
  repeated) and pictures with the Caption paragraph below them. Equations and text boxes are
  dropped (with a warning); headers, footers, footnotes, comments, content controls and tracked
  insertions are dropped silently.

Every kept image is an `ExtractedImage` and the markdown refers to it by name,
`![caption](page3-img1.png)`, at the place it appeared (PDF and DOCX) or where the `data:` URI was.

Uploads are hostile until read: sizes, page counts and image counts are capped
(`ExtractionLimits`), DOCX archives are checked for ZIP bombs before they are opened, and
`extract_isolated` reads a file in a separate process it kills after a deadline.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import io
import itertools
import logging
import math
import mimetypes
import multiprocessing
import re
import statistics
import textwrap
import traceback
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import PurePath
from typing import Any, Literal, assert_never
from urllib.parse import unquote_to_bytes

import docx
from bs4 import BeautifulSoup, Tag
from docx.document import Document as DocxDocument
from docx.table import Table
from docx.text.hyperlink import Hyperlink
from docx.text.paragraph import Paragraph
from markdownify import ATX, MarkdownConverter
from pydantic import BaseModel, ConfigDict
from pypdf import PageObject, PasswordType, PdfReader

from tutorgraph.content.chunking import FENCE, HEADING
from tutorgraph.errors import InputError

log = logging.getLogger(__name__)

Kind = Literal["markdown", "text", "html", "pdf", "docx"]

MB = 1024 * 1024
WORDS_PER_PAGE = 500
UNSUPPORTED = "is not a supported file: upload Markdown, plain text, HTML, PDF or DOCX"


class ExtractionLimits(BaseModel):
    """Caps on what one upload may cost to read."""

    model_config = ConfigDict(frozen=True)

    max_bytes: int = 20 * MB  # per upload
    max_pages: int = 500  # PDF pages
    max_uncompressed_bytes: int = 100 * MB  # DOCX zip members summed
    max_compression_ratio: float = 100.0  # any single DOCX member: uncompressed / compressed
    max_images: int = 200
    max_image_bytes: int = 5 * MB  # larger images are skipped with a warning
    timeout_seconds: float = 60.0  # used by extract_isolated


class ExtractedImage(BaseModel):
    """An image found in an upload; the markdown refers to it as `![caption](name)`."""

    name: str
    media_type: str
    caption: str  # "" when the format has none
    data: bytes
    location: str  # "page 3" / "paragraph 12" / the src attribute


class ExtractedDocument(BaseModel):
    """One upload as markdown, with its images and what was lost on the way."""

    filename: str
    kind: Kind
    title: str  # first H1, else the file's metadata title, else the file stem
    markdown: str
    pages: int  # PDF page count; for other kinds ceil(words / 500), at least 1
    words: int
    images: list[ExtractedImage]
    warnings: list[str]


class ExtractionError(InputError):
    """An upload that cannot be read; the message starts with the filename."""


def _fail(filename: str, problem: str) -> ExtractionError:
    """The error for `filename`, its message starting with the filename as callers expect."""
    return ExtractionError(f"{filename}: {problem}")


def _reason(exc: Exception) -> str:
    """A parser's exception as a short clause for a message (its first line, or its type)."""
    return (str(exc).strip("\"' \n").split("\n")[0][:160] or type(exc).__name__).rstrip(".")


def _size(n: float) -> str:
    """A byte count for people: MB, or KB/bytes when it would show as 0.0 MB."""
    if n >= MB / 10:
        return f"{n / MB:.1f} MB"
    return f"{n / 1024:.0f} KB" if n >= 1024 else f"{n:.0f} bytes"


# --- sniffing -------------------------------------------------------------------------------

_MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".mkd", ".mkdn"})
_HTML_DOCUMENT = re.compile(r"<!doctype\s+html|<html[\s>]", re.I)
_HTML_BLOCK = re.compile(r"<(?:p|h[1-6]|div|body)[\s>]", re.I)
# An ATX heading, a code fence, or a [link](target): what plain text does not contain.
_MARKDOWN_SIGNAL = re.compile(
    r"^#{1,6}[ \t]+\S|^[ \t]{0,3}(?:```|~~~)|\[[^\]\n]+\]\([^)\s]+\)", re.M
)


def sniff_kind(filename: str, data: bytes) -> Kind:
    """The upload's kind from its content; the extension only tells markdown from plain text."""
    if not data:
        raise _fail(filename, "is empty")
    head = data[:1024]
    start = head.find(b"%PDF-")
    if start >= 0 and not head[:start].strip(b"\xef\xbb\xbf\xfe\xff \t\r\n\x00\x0c"):
        return "pdf"
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        if "word/document.xml" in _zip_names(filename, data):
            return "docx"
        raise _fail(filename, "is a ZIP archive but not a Word document")
    text = _decode(filename, data)
    start_text = text[:4096].lstrip().lower()
    if start_text.startswith("<") and (
        _HTML_DOCUMENT.search(start_text[:1024]) or len(_HTML_BLOCK.findall(start_text)) >= 2
    ):
        return "html"
    if _MARKDOWN_SIGNAL.search(text):
        return "markdown"
    return "markdown" if PurePath(filename).suffix.lower() in _MARKDOWN_SUFFIXES else "text"


def _zip_names(filename: str, data: bytes) -> list[str]:
    """The member names from the central directory (nothing is decompressed)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return archive.namelist()
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise _fail(filename, "is a damaged ZIP archive (not a readable Word document)") from exc


def _decode(filename: str, data: bytes) -> str:
    """UTF-8 (with or without BOM), or UTF-16 with a BOM; newlines normalised."""
    utf16 = data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    try:
        text = data.decode("utf-16" if utf16 else "utf-8-sig")
    except UnicodeDecodeError:
        hint = "" if b"\x00" in data[:1024] else " (text must be UTF-8)"  # binary, or Latin-1?
        raise _fail(filename, UNSUPPORTED + hint) from None
    if "\x00" in text:
        raise _fail(filename, UNSUPPORTED)
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --- the pipeline ---------------------------------------------------------------------------


@dataclass
class _Images:
    """The images kept so far, within the limits; skipped ones become warnings."""

    limits: ExtractionLimits
    warnings: list[str]
    kept: list[ExtractedImage] = field(default_factory=list)
    _names: set[str] = field(default_factory=set)

    def full(self) -> bool:
        """Whether the count limit is reached; the first time it says so, a warning records it."""
        if len(self.kept) < self.limits.max_images:
            return False
        warning = f"more than {self.limits.max_images} images: the rest were skipped"
        if warning not in self.warnings:
            self.warnings.append(warning)
        return True

    def add(self, name: str, media_type: str, caption: str, data: bytes, location: str) -> bool:
        """Keep an image unless it is over the size or count limit; says whether it was kept."""
        if name in self._names:
            return True  # the same picture used twice
        if self.full():
            return False
        if len(data) > self.limits.max_image_bytes:
            limit = _size(self.limits.max_image_bytes)
            self.warnings.append(f"image {name} skipped: too large ({_size(len(data))} > {limit})")
            return False
        self._names.add(name)
        image = ExtractedImage(
            name=name, media_type=media_type, caption=caption, data=data, location=location
        )
        self.kept.append(image)
        return True


@dataclass
class _Draft:
    markdown: str
    metadata_title: str | None = None
    pages: int | None = None


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
    """The first `# Heading` outside code fences, without bold and code marks; "" if none."""
    in_fence = False
    for line in markdown.split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (match := HEADING.match(line)) and len(match.group(1)) == 1:
            return re.sub(r"\*\*|`", "", match.group(2)).strip()
    return ""


# --- markdown and plain text ----------------------------------------------------------------

_FRONT_MATTER = re.compile(r"\A---\n(?P<body>(?:[^\n]*\n){0,100}?)(?:---|\.\.\.)[ \t]*(?:\n|\Z)")
_FRONT_TITLE = re.compile(r"^title:\s*[\"']?(?P<title>.*?)[\"']?\s*$", re.M)
_DATA_IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<src>data:[^)\s]+)(?:\s+\"[^\"]*\")?\)")
_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_NOT_A_TITLE = re.compile(r"^(?:#{1,6}\s|[-*+]\s|\d+[.)]\s|=+$|-+$|```|~~~|\|)")


def _read_markdown(text: str, images: _Images) -> _Draft:
    """Markdown as written, minus front matter; underlined headings as `#`; data images kept."""
    title = None
    if (front := _FRONT_MATTER.match(text)) and ":" in front.group("body"):
        title_match = _FRONT_TITLE.search(front.group("body"))
        title = title_match.group("title") if title_match else None
        text = text[front.end() :]

    def keep_image(match: re.Match[str]) -> str:
        where = f"line {markdown.count(chr(10), 0, match.start()) + 1}"
        name = _data_uri_image(match.group("src"), match.group("alt"), where, images)
        return f"![{match.group('alt')}]({name})" if name else match.group("alt")

    markdown = "\n".join(_underlined_headings(text.split("\n")))
    return _Draft(_DATA_IMAGE.sub(keep_image, markdown), metadata_title=title)


def _data_uri_image(uri: str, caption: str, location: str, images: _Images) -> str | None:
    """Decode a `data:image/...` URI into an image entry; its name, or None if not kept."""
    header, _, payload = uri.removeprefix("data:").partition(",")
    media_type, *params = header.split(";")
    if not media_type.lower().startswith("image/"):
        return None
    try:
        if "base64" in params:
            data = base64.b64decode(re.sub(r"\s+", "", payload), validate=True)
        else:
            data = unquote_to_bytes(payload)
    except (binascii.Error, ValueError):
        images.warnings.append(f"the data: image at {location} could not be decoded")
        return None
    extension = mimetypes.guess_extension(media_type.lower()) or ".img"
    name = f"image{len(images.kept) + 1}{extension}"
    return name if images.add(name, media_type.lower(), caption, data, location) else None


def _underlined_headings(lines: list[str]) -> list[str]:
    """A one-line paragraph over `=====` becomes `# Title`, over `-----` `## Title` (outside
    code fences; list items and headings are never underlined titles)."""
    out: list[str] = []
    in_fence = False
    for line in lines:
        if FENCE.match(line):
            in_fence = not in_fence
        underline = None if in_fence else _UNDERLINE.match(line)
        title = out[-1].strip() if out else ""
        alone = len(out) < 2 or not out[-2].strip()
        if underline and title and alone and not _NOT_A_TITLE.match(title):
            out[-1] = ("# " if underline.group(1).startswith("=") else "## ") + title
            out.append("")
            continue
        out.append(line)
    return out


def _is_caps_title(line: str) -> bool:
    """A short ALL-CAPS line (INTRODUCTION, PART 2: TREES), which plain text uses as a title."""
    text = line.strip()
    letters = [c for c in text if c.isalpha()]
    return (
        len(letters) >= 3
        and len(text.split()) <= 8
        and text.upper() == text
        and not text.endswith((".", ","))
        and not text.startswith(("-", "*", "•"))
    )


def _text_to_markdown(text: str) -> str:
    """Plain text with its implicit structure made explicit: headings, code blocks, bullets."""
    lines = _underlined_headings(text.split("\n"))
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i].replace("\t", "    ", 1) if lines[i].startswith("\t") else lines[i]
        after_blank = not out or not out[-1].strip()
        if after_blank and line.startswith("    ") and line.strip():
            block: list[str] = []
            while i < len(lines) and (lines[i].startswith(("    ", "\t")) or not lines[i].strip()):
                block.append(lines[i].expandtabs(4))
                i += 1
            while block and not block[-1].strip():
                block.pop()
                i -= 1
            out += ["```", *textwrap.dedent("\n".join(block)).split("\n"), "```", ""]
            continue
        before_blank = i + 1 >= len(lines) or not lines[i + 1].strip()
        if after_blank and before_blank and not HEADING.match(line) and _is_caps_title(line):
            out.append(f"## {line.strip()}")
        else:
            out.append(re.sub(r"^(\s*)[•◦▪]\s*", r"\1- ", line))
        i += 1
    return "\n".join(out)


# --- HTML -----------------------------------------------------------------------------------

_DROPPED_TAGS = ["head", "script", "style", "noscript", "template", "nav", "footer", "header"]


def _read_html(text: str, images: _Images) -> _Draft:
    """The page's content through markdownify, its chrome removed and `data:` images kept."""
    # An XHTML declaration would make BeautifulSoup warn that this may be XML.
    soup = BeautifulSoup(re.sub(r"\A\s*<\?xml[^>]*>", "", text), "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    for tag in soup.find_all(_DROPPED_TAGS):
        # An article's own <header> holds its title; the page's header is site chrome.
        keep = tag.name == "header" and tag.find_parent(["article", "main"]) is not None
        if not keep and not tag.decomposed:
            tag.decompose()
    for number, img in enumerate(soup.find_all("img"), 1):
        src = img.get("src")
        if not isinstance(src, str) or not src.startswith("data:"):
            continue
        figure = img.find_parent("figure")
        figcaption = figure.find("figcaption") if figure else None
        alt = str(img.get("alt") or "")
        caption = figcaption.get_text(" ", strip=True) if figcaption else alt
        name = _data_uri_image(src, caption, f"<img> {number}", images)
        if name:
            img["src"] = name
        else:
            img.replace_with(alt)
    converter = MarkdownConverter(
        heading_style=ATX,
        bullets="-",
        escape_underscores=False,
        code_language_callback=_code_language,
    )
    markdown: str = converter.convert_soup(soup)
    return _Draft(markdown, metadata_title=title)


def _code_language(pre: Tag) -> str:
    """`python` from `<pre class="language-python">` or its `<code class="lang-python">`."""
    code = pre.find("code")
    for element in (pre, code):
        if isinstance(element, Tag):
            for cls in element.get_attribute_list("class"):
                if cls and (match := re.match(r"(?:language|lang)-([\w+#.-]+)$", cls)):
                    return match.group(1)
    return ""


# --- PDF ------------------------------------------------------------------------------------

_MONOSPACE = re.compile(r"courier|mono|code|consol|menlo|monaco|cmtt", re.I)
_CAPTION = re.compile(r"^(?:Figure|Fig\.|Table)\s*\d*[.:]?(?:\s|$)")
_LEADER = re.compile(r"(?:\s?\.){4,}\s*")  # a table of contents' dot leaders
_BULLET = re.compile(r"^[•◦▪●■]\s*")
_PAGE_NUMBER = re.compile(r"^(?:page\s*)?\d+(?:\s*(?:of|/)\s*\d+)?$", re.I)
_MAX_HEADING_WORDS = 15


@dataclass
class _Line:
    text: str
    size: float  # the font size as drawn, in points
    monospace: bool
    x: float
    y: float


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
        for number, page in enumerate(reader.pages, 1):
            try:
                pages.append(_pdf_page_items(page))
            except Exception as exc:  # pypdf raises anything from PdfReadError to KeyError
                broken[number] = _reason(exc)
                pages.append([])
            pictures.append(_pdf_page_images(page, number, images))
        if pages and len(broken) == len(pages):
            raise ValueError(broken[1])
    except ExtractionError:
        raise
    except Exception as exc:
        raise _fail(filename, f"could not be read as a PDF: {_reason(exc)}") from exc
    _drop_running_lines(pages)
    levels = _heading_levels(pages, _body_size(pages))
    blocks: list[str] = []
    for number, (items, page_images) in enumerate(zip(pages, pictures, strict=True), 1):
        if number in broken:
            images.warnings.append(f"page {number} could not be read: {broken[number]}")
        elif not any(isinstance(item, _Line) for item in items):
            images.warnings.append(f"page {number} has no extractable text (scanned?)")
        page_blocks = _pdf_page_blocks(items, page_images, levels, images)
        if blocks and page_blocks and _continues(blocks[-1], page_blocks[0]):
            blocks[-1] = _join_lines([blocks[-1], page_blocks.pop(0)])  # across a page break
        blocks += page_blocks
    return _Draft("\n\n".join(blocks), metadata_title=metadata_title, pages=len(pages))


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
                parts.append((piece, drawn, name, e, f))

    def on_operator(operator: bytes, operands: Any, cm: list[float], tm: list[float]) -> None:
        if operator == b"Do" and operands:
            end_line()
            items.append(_Drawn(str(operands[0]).lstrip("/"), min(cm[5], cm[5] + cm[3])))

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
    items: list[_Line | _Drawn], kept: dict[str, str], levels: dict[float, int], images: _Images
) -> list[str]:
    """One page as markdown blocks: headings, paragraphs of merged lines, lists, code, images."""
    lines = [item for item in items if isinstance(item, _Line)]
    break_after = _paragraph_gap(lines)
    blocks: list[str] = []
    paragraph: list[_Line] = []
    code: list[_Line] = []
    last_level = 0  # the heading level of the previous line, 0 if it was no heading

    def end_blocks() -> None:
        if paragraph:
            blocks.append(_join_lines([line.text for line in paragraph]))
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
        level = levels.get(item.size) if len(item.text.split()) <= _MAX_HEADING_WORDS else None
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
            if code or (paragraph and break_after(paragraph[-1], item)):
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
        metadata_title = document.core_properties.title
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
    return _Draft(markdown, metadata_title=metadata_title)


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


# --- in a separate process ------------------------------------------------------------------


def extract_isolated(
    filename: str, data: bytes, *, limits: ExtractionLimits = ExtractionLimits()
) -> ExtractedDocument:
    """`extract` in a spawned process killed after `limits.timeout_seconds`, so a PDF that makes
    the parser spin (or crash) costs one process, not the server. Blocks: call it from a thread."""
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(
        target=_extract_in_child, args=(sender, filename, data, limits), daemon=True
    )
    process.start()
    sender.close()
    try:
        if not receiver.poll(limits.timeout_seconds):
            raise _fail(
                filename,
                f"took longer than {limits.timeout_seconds:g} s to read; "
                "it may be damaged or too complex",
            )
        try:
            outcome, payload = receiver.recv()
            process.join(5)  # it exits once its answer is sent
        except EOFError:
            process.join(5)
            raise _fail(
                filename, f"the reader stopped unexpectedly (exit code {process.exitcode})"
            ) from None
    finally:
        receiver.close()
        _stop(process)
    if outcome == "ok" and isinstance(payload, ExtractedDocument):
        return payload
    if outcome == "error":
        raise ExtractionError(str(payload))
    log.error("extracting %s failed in the child process:\n%s", filename, payload)
    raise _fail(filename, "could not be read (an internal error; it has been logged)")


def _extract_in_child(
    sender: Connection, filename: str, data: bytes, limits: ExtractionLimits
) -> None:
    """The child's side: send back the document or the error message (exceptions may not
    pickle; a message always does)."""
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # no handler here: it would go to stderr
    try:
        outcome: tuple[str, object] = ("ok", extract(filename, data, limits=limits))
    except ExtractionError as exc:
        outcome = ("error", exc.message)
    except Exception:
        outcome = ("crash", traceback.format_exc())
    sender.send(outcome)
    sender.close()


def _stop(process: BaseProcess) -> None:
    """Reap the child, terminating (then killing) it if it still runs, so no zombie is left."""
    if process.is_alive():
        process.terminate()
        process.join(2)
    if process.is_alive():
        process.kill()
    process.join()
    process.close()
