"""The extractors' shared types: limits, the extracted document and its images, errors,
and the drafts each format's reader returns."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict

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
    # PDF lines stay lines instead of being merged into paragraphs (a resume's structure is
    # its lines: a job title, then its dates, then bullets).
    keep_lines: bool = False


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
    # What the file says about itself, as plain strings: a Markdown file's YAML front matter
    # (title, description, order...), a PDF's document information (title, subject, author),
    # a Word file's core properties, an HTML page's <title> (as `page_title`) and description.
    metadata: dict[str, str] = {}


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
    metadata: dict[str, str] = field(default_factory=dict)
