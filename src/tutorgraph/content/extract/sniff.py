"""What a file is, from its bytes (never from its name)."""

from __future__ import annotations

import codecs
import io
import re
import zipfile
from pathlib import PurePath

from tutorgraph.content.extract.base import UNSUPPORTED, Kind, _fail

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
