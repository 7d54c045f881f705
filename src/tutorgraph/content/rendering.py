"""Lesson markdown to safe HTML: raw HTML escaped, code highlighted by Pygments on the server,
Mermaid fences left for the vendored Mermaid, `$...$` / `$$...$$` marked for the vendored KaTeX.
With `anchors`, headings get ids (`h-` and their words: `## Why divide by $d_k$` is
`h-why-divide-by-d-k`, a repeat `h-..._2`) that the tutor's citations link to."""

from __future__ import annotations

import re
from html import escape
from itertools import pairwise
from typing import Any

from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

_formatter = HtmlFormatter(nowrap=True)


def _highlight(code: str, lang: str, _attrs: str) -> str:
    if lang == "mermaid":
        return ""  # handled by the fence renderer below
    try:
        lexer = get_lexer_by_name(lang) if lang else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        return ""
    return str(highlight(code, lexer, _formatter))


def _build() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "highlight": _highlight})
    md.enable(["table", "strikethrough"])
    md.use(
        dollarmath_plugin,
        allow_labels=False,
        double_inline=True,
        renderer=lambda content, options: escape(content),
    )
    default_fence = md.renderer.rules["fence"]  # type: ignore[attr-defined]

    def fence(self, tokens, idx, options, env):  # type: ignore[no-untyped-def]
        token = tokens[idx]
        if token.info.strip().split(" ")[0] == "mermaid":
            return f'<pre class="mermaid">{escape(token.content)}</pre>\n'
        return default_fence(tokens, idx, options, env)

    md.add_render_rule("fence", fence)
    md.core.ruler.push("heading_anchors", _heading_anchors)
    return md


def heading_anchor(text: str) -> str:
    """The id a heading's source text gets (before any `_2` that tells repeats apart)."""
    return "h-" + "-".join(re.findall(r"[a-z0-9]+", text.lower()))


def _heading_anchors(state: Any) -> None:
    if not state.env.get("anchors"):
        return
    seen: dict[str, int] = {}
    for opening, inline in pairwise(state.tokens):
        if opening.type != "heading_open" or inline.type != "inline":
            continue
        anchor = heading_anchor(inline.content)
        seen[anchor] = seen.get(anchor, 0) + 1
        opening.attrSet("id", anchor if seen[anchor] == 1 else f"{anchor}_{seen[anchor]}")


_md = _build()


# A Python dunder name written as prose (`__dict__` without backticks): Markdown would read its
# underscores as strong emphasis and print a bold "dict".
_DUNDER = re.compile(r"(?<![\w\\`])__([A-Za-z_][A-Za-z0-9_]*?)__(?![\w`])")
_CODE = re.compile(r"(^(```|~~~)[^\n]*\n.*?^\2[ \t]*$|`+[^`\n]*`+)", re.MULTILINE | re.DOTALL)


def keep_identifiers(text: str) -> str:
    """Escape the underscores of dunder names outside code, so `__slots__` stays `__slots__`
    (code spans and fenced blocks are left as they are; `a_b_c` needs nothing)."""
    parts: list[str] = []
    position = 0
    for match in _CODE.finditer(text):
        parts.append(_DUNDER.sub(r"\\_\\_\1\\_\\_", text[position : match.start()]))
        parts.append(match.group(0))
        position = match.end()
    parts.append(_DUNDER.sub(r"\\_\\_\1\\_\\_", text[position:]))
    return "".join(parts)


def render_markdown(text: str, *, anchors: bool = False) -> str:
    return str(_md.render(keep_identifiers(text), {"anchors": anchors}))
