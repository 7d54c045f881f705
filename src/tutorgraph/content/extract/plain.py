"""Markdown and plain text to markdown."""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re
import textwrap
from datetime import date, datetime
from urllib.parse import unquote_to_bytes

import yaml

from tutorgraph.content.chunking import FENCE, HEADING
from tutorgraph.content.extract.base import _Draft, _Images

# --- markdown and plain text ----------------------------------------------------------------

_FRONT_MATTER = re.compile(r"\A---\n(?P<body>(?:[^\n]*\n){0,100}?)(?:---|\.\.\.)[ \t]*(?:\n|\Z)")
_DATA_IMAGE = re.compile(r"!\[(?P<alt>[^\]]*)\]\((?P<src>data:[^)\s]+)(?:\s+\"[^\"]*\")?\)")
_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_NOT_A_TITLE = re.compile(r"^(?:#{1,6}\s|[-*+]\s|\d+[.)]\s|=+$|-+$|```|~~~|\|)")


def _read_markdown(text: str, images: _Images) -> _Draft:
    """Markdown as written, minus front matter (kept as metadata); underlined headings as `#`;
    data images kept."""
    metadata: dict[str, str] = {}
    if (front := _FRONT_MATTER.match(text)) and ":" in front.group("body"):
        metadata = front_matter_values(front.group("body"))
        text = text[front.end() :]

    def keep_image(match: re.Match[str]) -> str:
        where = f"line {markdown.count(chr(10), 0, match.start()) + 1}"
        name = _data_uri_image(match.group("src"), match.group("alt"), where, images)
        return f"![{match.group('alt')}]({name})" if name else match.group("alt")

    markdown = "\n".join(_underlined_headings(text.split("\n")))
    return _Draft(
        _DATA_IMAGE.sub(keep_image, markdown),
        metadata_title=metadata.get("title") or None,
        metadata=metadata,
    )


def front_matter_values(body: str) -> dict[str, str]:
    """A YAML front matter block's top-level scalar values as strings (lists joined by ", ",
    nested maps left out); {} when it is not YAML. Safe loading only: no tags are run."""
    try:
        loaded = yaml.safe_load(body)
    except yaml.YAMLError:
        return {}
    if not isinstance(loaded, dict):
        return {}
    values: dict[str, str] = {}
    for key, value in loaded.items():
        if isinstance(value, list) and all(_is_scalar(v) for v in value):
            values[str(key)] = ", ".join(_scalar_text(v) for v in value)
        elif _is_scalar(value) and value is not None:
            values[str(key)] = _scalar_text(value).strip()
    return values


def _is_scalar(value: object) -> bool:
    return value is None or isinstance(value, (str, int, float, bool, date, datetime))


def _scalar_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return " ".join(str(value).split()) if isinstance(value, str) else str(value)


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
