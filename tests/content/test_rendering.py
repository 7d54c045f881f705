"""Lesson headings carry the anchors the tutor's citations link to."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

from tutorgraph.content.chunking import split_sections
from tutorgraph.content.rendering import render_markdown

LESSON = (
    "# Attention\n\nA.\n\n## Why divide by $d_k$\n\nB.\n\n"
    "## Step 2\n\nC.\n\n## Step 2\n\n### `q @ k`\n\nD.\n"
)


def test_headings_get_ids_a_citation_can_find() -> None:
    page = BeautifulSoup(render_markdown(LESSON, anchors=True), "html.parser")
    ids = [h.get("id") for h in page.find_all(["h1", "h2", "h3"])]
    assert ids == ["h-attention", "h-why-divide-by-d-k", "h-step-2", "h-step-2_2", "h-q-k"]
    # A citation names a heading as the chunker saw it; the chat matches its letters and
    # digits (tutor-chat.js `words`) with those of an id: the same, whatever the markup.
    cited = [section.heading_path[-1] for section in split_sections(LESSON)]
    anchors = {_words(re.sub(r"_\d+$", "", str(i)[2:])) for i in ids}
    assert [_words(c) for c in cited] == ["attention", "whydividebydk", "step2", "qk"]
    assert {_words(c) for c in cited} <= anchors


def _words(text: str) -> str:
    return "".join(re.findall(r"[a-z0-9]+", text.lower()))


def test_other_markdown_keeps_plain_headings() -> None:
    page = BeautifulSoup(render_markdown("## Hints"), "html.parser")
    assert page.h2 is not None and page.h2.get("id") is None


def test_python_identifiers_keep_their_underscores() -> None:
    """Issue 35: `__dict__` and `__slots__` written as prose rendered as bold "dict", "slots"."""
    html = render_markdown("Without __slots__, attributes live in __dict__; a_b_c stays.")
    page = BeautifulSoup(html, "html.parser")
    assert page.find("strong") is None
    assert page.get_text().strip() == "Without __slots__, attributes live in __dict__; a_b_c stays."
    assert "<strong>bold</strong>" in render_markdown("**bold** and __bold__ words")
    fenced = render_markdown("```python\nclass A:\n    __slots__ = ()\n```")
    assert "\\_" not in fenced  # code is left as it is
