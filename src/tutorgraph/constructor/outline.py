"""A Markdown file's outline as its author wrote it, read with a real parser (markdown-it).

What it reads: YAML front matter (a leading `---` block; its values kept as strings), ATX and
setext headings from the parser's heading tokens only (a `#` line inside a fenced or indented
code block is code, never a heading; the front matter's `---` lines are never a setext
underline), headings nesting by level into heading paths, and each heading's own text (up to the
next heading of any level) copied from the source lines of its block tokens, so code fences stay
verbatim. Jekyll/Liquid lines (`{% include ... %}`, `{% highlight bash %}` which becomes a fence)
and kramdown attribute lines (`{: .note}`, `{:toc}`) are dropped before parsing, and a heading's
`{#anchor}` / `{: .class}` tail is not part of its title. Pandoc / Carpentries fenced divs are
placed by `place_divs` before the file is read: exercise divs (challenge, solution, hint,
discussion...) go to an `## Exercises` section at the end of the file, box divs (objectives,
questions, keypoints, prerequisites) to the top of its body; other divs (callout, note...) stay.

What it cannot do: it does not render Liquid (an `{% include %}` is simply dropped), read HTML
blocks' own headings (`<h2>` inside raw HTML stays text), or follow links between files. HTML,
PDF and Word reach it as the markdown `content.extract` made of them, so their outline is as good
as that conversion (heading styles, `<h1>`-`<h6>`, PDF bookmarks or font sizes). Moved exercise
divs all go to the file's end, so in a single file split into several units by its top-level
parts they are the last unit's exercises."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from tutorgraph.content.extract.plain import front_matter_values

_LIQUID_LINE = re.compile(r"^[ \t]*\{%-?\s*(?!highlight\b|endhighlight\b)[^%]*%\}[ \t]*$")
_HIGHLIGHT_OPEN = re.compile(r"^[ \t]*\{%-?\s*highlight\s+([\w+#.-]+)[^%]*%\}[ \t]*$")
_HIGHLIGHT_CLOSE = re.compile(r"^[ \t]*\{%-?\s*endhighlight\s*-?%\}[ \t]*$")
_ATTRIBUTE_LINE = re.compile(r"^[ \t]*\{:[^}]*\}[ \t]*$")
_HEADING_ATTRIBUTES = re.compile(r"\s*\{(?::|#)[^}]*\}\s*$")
_FENCE_LINE = re.compile(r"^[ \t]{0,3}(```|~~~)")
# Keys that give a file's place in a course, in the order they are tried.
ORDER_KEYS = ("order", "nav_order", "weight", "lecture", "chapter", "week", "lesson", "part")


@dataclass
class OutlineSection:
    """One heading and its own text (up to the next heading), or the text before any heading."""

    level: int  # 0 for the text before the first heading
    heading_path: list[str]
    text: str
    line: int  # the heading's line in the body (0-based), or the text's first line


@dataclass
class Outline:
    front_matter: dict[str, str] = field(default_factory=dict)
    sections: list[OutlineSection] = field(default_factory=list)

    @property
    def title(self) -> str:
        return self.front_matter.get("title", "")

    @property
    def description(self) -> str:
        return self.front_matter.get("description", "") or self.front_matter.get("summary", "")

    def first_heading(self, level: int = 1) -> str:
        return next((s.heading_path[-1] for s in self.sections if s.level == level), "")


@cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").use(front_matter_plugin).enable("table")


def read_outline(markdown: str) -> Outline:
    """The file's front matter and its sections, in source order."""
    lines = _without_template_lines(markdown.replace("\r\n", "\n").split("\n"))
    tokens = _parser().parse("\n".join(lines))
    front: dict[str, str] = {}
    headings: list[tuple[int, int, int, str]] = []  # (start line, end line, level, title)
    body_start = 0
    for index, token in enumerate(tokens):
        if token.type == "front_matter" and token.map:
            front = front_matter_values(token.content)
            body_start = token.map[1]
        elif token.type == "heading_open" and token.map and token.level == 0:
            title = _heading_title(tokens[index + 1])
            if title:
                headings.append((token.map[0], token.map[1], int(token.tag[1]), title))
    return Outline(front_matter=front, sections=_sections(lines, body_start, headings))


def _sections(
    lines: list[str], body_start: int, headings: list[tuple[int, int, int, str]]
) -> list[OutlineSection]:
    """Each heading's own text is the source lines between its heading and the next one."""
    found: list[OutlineSection] = []
    before = _text(lines[body_start : headings[0][0] if headings else len(lines)])
    if before:
        found.append(OutlineSection(0, [], before, body_start))
    path: list[tuple[int, str]] = []
    for number, (start, end, level, title) in enumerate(headings):
        stop = headings[number + 1][0] if number + 1 < len(headings) else len(lines)
        path = [(lvl, t) for lvl, t in path if lvl < level] + [(level, title)]
        found.append(OutlineSection(level, [t for _, t in path], _text(lines[end:stop]), start))
    return found


def _text(lines: list[str]) -> str:
    return "\n".join(lines).strip("\n").rstrip()


def _heading_title(inline: Token) -> str:
    """The heading's plain words: emphasis and code marks and `{#anchor}` tails removed."""
    parts = [
        child.content
        for child in inline.children or []
        if child.type in ("text", "code_inline", "softbreak", "html_inline")
    ]
    title = " ".join("".join(parts).split()) if parts else inline.content
    return _HEADING_ATTRIBUTES.sub("", title).strip()


def _without_template_lines(lines: list[str]) -> list[str]:
    """Jekyll `{% highlight x %}` blocks as fences; other Liquid and kramdown attribute lines
    blanked (blank, not removed, so line numbers stay the source's). Code is left as written."""
    out: list[str] = []
    inside = ""  # the open fence's marker, "highlight", or "" outside code
    for line in lines:
        if inside == "highlight":
            ends = bool(_HIGHLIGHT_CLOSE.match(line))
            out.append("```" if ends else line)
            inside = "" if ends else inside
        elif inside:
            out.append(line)
            inside = "" if line.strip().startswith(inside) else inside
        elif match := _FENCE_LINE.match(line):
            out.append(line)
            inside = match.group(1)
        elif match := _HIGHLIGHT_OPEN.match(line):
            out.append("```" + match.group(1))
            inside = "highlight"
        elif _LIQUID_LINE.match(line) or _ATTRIBUTE_LINE.match(line):
            out.append("")
        else:
            out.append(line)
    return out


def order_key(front_matter: dict[str, str]) -> float | None:
    """The file's place in the course from its front matter (`order`, `nav_order`, `weight`,
    `lecture`...), when one of them is a number."""
    for key in ORDER_KEYS:
        value = front_matter.get(key, "")
        if match := re.search(r"-?\d+(?:\.\d+)?", value):
            return float(match.group())
    return None


# Pandoc / Carpentries fenced-div classes by what they hold for the unit.
EXERCISE_DIVS = frozenset(
    {"challenge", "exercise", "exercises", "solution", "hint", "discussion", "problem", "quiz"}
)
BOX_DIVS = frozenset(
    {"objectives", "questions", "keypoints", "key-points", "prereq", "prerequisite"}
    | {"prerequisites"}
)
EXERCISES_HEADING = "Exercises"
_DIV_MARK = re.compile(r"^[ \t]*:{3,}")
_DIV_CLASS = re.compile(r"^[ \t]*:{3,}[ \t]*\{?[ \t]*\.?([A-Za-z][\w-]*)")
_DIV_CLOSE_LINE = re.compile(r"^[ \t]*:{3,}[ \t]*$")


def place_divs(markdown: str) -> str:
    """Pandoc fenced divs (`::: challenge` ... `:::`) placed by what they hold: an exercise div
    (challenge, exercise, solution, hint, discussion), with everything nested in it, moves to an
    `## Exercises` section at the end of the file, so it is the unit's exercises and never a
    topic's text; a box div (objectives, questions, keypoints, prerequisites) moves to the top
    of the body, the unit's introduction. Other divs (callout, note, caution...) stay where the
    author put them. Div markers are kept (`text.flatten_divs` turns them into labels), fenced
    code is never read for markers, and a div left open at the end of the file is closed there."""
    lines = markdown.replace("\r\n", "\n").split("\n")
    head = _front_matter_end(lines)
    body: list[str] = []
    moved: dict[str, list[str]] = {"box": [], "exercise": []}
    block: list[str] = []
    block_kind, block_depth, depth, fence = "", 0, 0, ""
    for line in lines[head:]:
        target = block if block_kind else body
        if fence:
            target.append(line)
            fence = "" if line.strip().startswith(fence) else fence
            continue
        if match := _FENCE_LINE.match(line):
            fence = match.group(1)
        if match or not _DIV_MARK.match(line):
            target.append(line)
            continue
        if _DIV_CLOSE_LINE.match(line):
            depth = max(depth - 1, 0)
            target.append(line)
            if block_kind and depth < block_depth:
                moved[block_kind] += [*block, ""]
                block, block_kind = [], ""
            continue
        depth += 1
        kind = _div_kind(line)
        if not block_kind and kind:
            block_kind, block_depth, target = kind, depth, block
        target.append(line)
    if block_kind:
        moved[block_kind] += [*block, *[":::"] * (depth - block_depth + 1), ""]
    exercises = ["", f"## {EXERCISES_HEADING}", "", *moved["exercise"]] if moved["exercise"] else []
    return "\n".join([*lines[:head], *moved["box"], *body, *exercises]).rstrip("\n") + "\n"


def _div_kind(line: str) -> str:
    """A div opening line's kind: "exercise", "box" or "" (any other div)."""
    match = _DIV_CLASS.match(line)
    name = match.group(1).lower() if match else ""
    return "exercise" if name in EXERCISE_DIVS else "box" if name in BOX_DIVS else ""


def _front_matter_end(lines: list[str]) -> int:
    """The number of lines of a leading YAML front matter block (0 without one)."""
    if not lines or lines[0].strip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            return index + 1
    return 0
