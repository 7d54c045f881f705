"""HTML to markdown (markdownify), with navigation, scripts and page chrome dropped."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Tag
from markdownify import ATX, MarkdownConverter

from tutorgraph.content.extract.base import _Draft, _Images
from tutorgraph.content.extract.plain import _data_uri_image

# --- HTML -----------------------------------------------------------------------------------

_DROPPED_TAGS = ["head", "script", "style", "noscript", "template", "nav", "footer", "header"]


def _read_html(text: str, images: _Images) -> _Draft:
    """The page's content through markdownify, its chrome removed and `data:` images kept."""
    # An XHTML declaration would make BeautifulSoup warn that this may be XML.
    soup = BeautifulSoup(re.sub(r"\A\s*<\?xml[^>]*>", "", text), "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    # A page's <title> often carries the site's name too ("Generators - Dive Into Python 3"):
    # kept apart from the author's title, which is the page's first heading.
    metadata = {"page_title": title or ""}
    for meta in soup.find_all("meta"):
        key = str(meta.get("name") or meta.get("property") or "").lower()
        if key in ("description", "og:description") and not metadata.get("description"):
            metadata["description"] = " ".join(str(meta.get("content") or "").split())
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
    return _Draft(markdown, metadata_title=title, metadata=metadata)


def _code_language(pre: Tag) -> str:
    """`python` from `<pre class="language-python">` or its `<code class="lang-python">`."""
    code = pre.find("code")
    for element in (pre, code):
        if isinstance(element, Tag):
            for cls in element.get_attribute_list("class"):
                if cls and (match := re.match(r"(?:language|lang)-([\w+#.-]+)$", cls)):
                    return match.group(1)
    return ""
