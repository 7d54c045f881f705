"""Lesson markdown to safe HTML: raw HTML escaped, code highlighted by Pygments on the server,
Mermaid fences left for the vendored Mermaid, `$...$` / `$$...$$` marked for the vendored KaTeX."""

from __future__ import annotations

from html import escape

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
    return md


_md = _build()


def render_markdown(text: str) -> str:
    return str(_md.render(text))
