"""The reference outline of a source, read independently of the course builder, and how far a
built course's topic boundaries match it ("sections matched").

What it reads:
- Markdown: markdown-it (with the container plugin for `::: name` divs), after the YAML front
  matter; a `#` inside a fenced block is never a heading. Headings inside exercise-like divs
  (challenge, solution, objectives, questions, keypoints, instructor...) are not sections: each
  challenge/exercise div is recorded as an exercise, and the lines of all such divs are left out
  of the section text.
- HTML: the standard library's HTML parser; `h1`-`h6` are headings, `script`, `style`, `head`
  and `nav` are skipped.
- PDF: the outline (bookmarks): top entries are units, the entries under them sections; a
  section's text runs from its title on its page to the next entry's title. A PDF without
  bookmarks has no automatic reference outline (reported as "manual").

A file's main sections are its headings of the highest level in use outside divs, ignoring a
single leading H1 that titles the file; text before the first main heading is the file's
introduction, and a file without such headings is one section (titled by the file).

How matching works: texts are compared as bags of words (lower-case letters and digits, link
targets and URLs removed, heading lines left out on both sides), and two texts match when their
Dice overlap is at least `MATCH_DICE`. A topic matches when its lesson text matches one source
section; a source section is covered when a topic, its unit's introduction or one of its unit's
exercise or reading sections matches it (an introduction: when a unit's introduction holds at
least that share of its words). It cannot tell a good boundary from a bad one when two
sections say nearly the same words, and a builder that reformats text heavily (a PDF's
hyphenation, tables) loses a little overlap: the threshold leaves room for that.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Literal

from markdown_it import MarkdownIt
from mdit_py_plugins.container import container_plugin

from tutorgraph.constructor.state import ConstructorState

MATCH_DICE = 0.8
INTRO_MIN_WORDS = 15
# Carpentries-style divs that are not the taught text: their headings are not sections and
# their lines are not section text. The first group are the exercises a unit keeps.
EXERCISE_DIVS = frozenset({"challenge", "exercise", "exercises", "homework"})
SKIPPED_DIVS = EXERCISE_DIVS | frozenset(
    {"solution", "objectives", "questions", "keypoints", "instructor", "prereq", "hint", "spoiler"}
)
SKIPPED_HTML = frozenset({"script", "style", "head", "title", "nav"})
_LINK_TARGET = re.compile(r"\]\([^)]*\)|https?://\S+|<[^>]+>")
_WORD = re.compile(r"[a-z0-9]+")
_FRONT_MATTER = re.compile(r"\A---\s*\n.*?\n---\s*\n", re.DOTALL)

Kind = Literal["section", "intro", "exercise"]


@dataclass
class RefSection:
    """One section of the source's own outline."""

    file: str
    unit: str  # the file's title, or the PDF's top bookmark
    title: str
    kind: Kind
    words: list[str]
    first_line: str = ""


@dataclass
class Outline:
    source: str
    method: str  # "markdown-it", "html.parser", "pdf outline", or "manual" (none found)
    sections: list[RefSection] = field(default_factory=list)

    def of_kind(self, kind: Kind) -> list[RefSection]:
        return [s for s in self.sections if s.kind == kind]


def words_of(text: str) -> list[str]:
    return _WORD.findall(_LINK_TARGET.sub(" ", text.lower()))


def dice(left: Sequence[str], right: Sequence[str]) -> float:
    """The Dice overlap of two bags of words (1.0: the same words, as often)."""
    if not left or not right:
        return 0.0
    shared = sum((Counter(left) & Counter(right)).values())
    return 2 * shared / (len(left) + len(right))


def _first_line(lines: Iterable[str]) -> str:
    return next((line.strip() for line in lines if line.strip()), "")


# ---------------------------------------------------------------------------------- Markdown


def _markdown_parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark")
    return parser.use(container_plugin, name="div", validate=lambda _params, *_a: True)


def _div_name(info: str) -> str:
    return (info.strip().split() or [""])[0].lower()


def markdown_sections(name: str, text: str) -> list[RefSection]:
    """A Markdown file's main sections, introduction and exercise divs."""
    match = _FRONT_MATTER.match(text)
    body = text[match.end() :] if match else text
    title_match = (
        re.search(r"^title:\s*['\"]?(.*?)['\"]?\s*$", match.group(0), re.M) if match else None
    )
    lines = body.splitlines()
    skipped: set[int] = set()
    heading_lines: set[int] = set()
    headings: list[tuple[int, int, str]] = []  # (line, level, title)
    exercises: list[tuple[int, int]] = []
    open_divs: list[bool] = []  # for each open div: is it a skipped one
    nested: set[int] = set()  # lines of skipped divs inside another (an exercise's solution)
    tokens = _markdown_parser().parse(body)
    for index, token in enumerate(tokens):
        if token.type == "container_div_open" and token.map:
            kind = _div_name(token.info)
            if kind in SKIPPED_DIVS:
                skipped.update(range(token.map[0], token.map[1]))
                if any(open_divs):
                    nested.update(range(token.map[0], token.map[1]))
                if kind in EXERCISE_DIVS and not any(open_divs):
                    exercises.append((token.map[0], token.map[1]))
            open_divs.append(kind in SKIPPED_DIVS)
        elif token.type == "container_div_close" and open_divs:
            open_divs.pop()
        elif token.type == "heading_open" and token.map:
            heading_lines.update(range(token.map[0], token.map[1]))
            if not open_divs:  # a heading inside a div titles the div (a side note, an exercise)
                headings.append((token.map[0], int(token.tag[1:]), tokens[index + 1].content))
    unit = title_match.group(1) if title_match else Path(name).stem
    own = [
        (start, end, [i for i in range(start + 1, end - 1) if i not in nested | heading_lines])
        for start, end in exercises
    ]
    return _split_lines(name, unit, lines, headings, skipped | heading_lines, own)


def _main_level(levels: list[int]) -> int | None:
    if not levels:
        return None
    top = min(levels)
    if levels.count(top) == 1 and levels[0] == top and len(levels) > 1:
        return min(level for level in levels[1:])  # a single leading title heading
    return top


def _split_lines(
    name: str,
    unit: str,
    lines: list[str],
    headings: list[tuple[int, int, str]],
    left_out: set[int],
    exercises: list[tuple[int, int, list[int]]],
) -> list[RefSection]:
    level = _main_level([h[1] for h in headings])
    main = [h for h in headings if h[1] == level]
    if len(headings) == 1 and headings[0][1] == 1:
        main = []  # a lone H1 titles the file
    starts = [h[0] for h in main] + [len(lines)]

    def text(start: int, end: int) -> list[str]:
        return [lines[i] for i in range(start, end) if i not in left_out]

    found: list[RefSection] = []
    intro = text(0, starts[0])
    # A file without section headings is one section; otherwise its opening text is the intro.
    kind: Kind = "intro" if main else "section"
    if len(words_of("\n".join(intro))) >= INTRO_MIN_WORDS or not main:
        title = "(introduction)" if main else unit
        found.append(
            RefSection(name, unit, title, kind, words_of("\n".join(intro)), _first_line(intro))
        )
    for (line, _level, title), end in zip(main, starts[1:], strict=True):
        body = text(line + 1, end)
        found.append(
            RefSection(name, unit, title, "section", words_of("\n".join(body)), _first_line(body))
        )
    for start, _end, own_lines in exercises:
        body = [lines[i] for i in own_lines if not lines[i].lstrip().startswith(":::")]
        title = _first_line(lines[start + 1 : start + 4]).lstrip("# ")
        found.append(
            RefSection(name, unit, title, "exercise", words_of("\n".join(body)), _first_line(body))
        )
    return found


# -------------------------------------------------------------------------------------- HTML


class _HtmlOutline(HTMLParser):
    """Text lines and headings of an HTML page, in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = [""]
        self.headings: list[tuple[int, int, str]] = []
        self._skip = 0
        self._heading: int | None = None
        self._heading_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIPPED_HTML:
            self._skip += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self._heading, self._heading_text = int(tag[1]), []
            self.lines.append("")
        elif tag in {"p", "pre", "li", "div", "br", "tr", "table", "ol", "ul", "dt", "dd"}:
            self.lines.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIPPED_HTML:
            self._skip = max(0, self._skip - 1)
        elif re.fullmatch(r"h[1-6]", tag) and self._heading is not None:
            title = " ".join("".join(self._heading_text).split())
            self.headings.append((len(self.lines) - 1, self._heading, title))
            self._heading = None
            self.lines.append("")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._heading is not None:
            self._heading_text.append(data)
        parts = data.split("\n")
        self.lines[-1] += parts[0]
        self.lines.extend(parts[1:])


def html_sections(name: str, text: str) -> list[RefSection]:
    parser = _HtmlOutline()
    parser.feed(text)
    parser.close()
    heading_lines = {line for line, _level, _title in parser.headings}
    unit = parser.headings[0][2] if parser.headings else Path(name).stem
    return _split_lines(name, unit, parser.lines, parser.headings, heading_lines, [])


# --------------------------------------------------------------------------------------- PDF


def pdf_sections(path: Path) -> list[RefSection] | None:
    """Sections from the PDF's bookmarks (None when it has none)."""
    from pypdf import PdfReader

    reader = PdfReader(path)
    entries: list[tuple[int, str, int]] = []  # (depth, title, page)

    def walk(items: list[object], depth: int) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                page = reader.get_destination_page_number(item)  # type: ignore[arg-type]
                entries.append((depth, str(getattr(item, "title", "")), page or 0))

    walk(list(reader.outline), 0)
    if not entries:
        return None
    page_words = [words_of(page.extract_text() or "") for page in reader.pages]
    offsets = [0]
    for words in page_words:
        offsets.append(offsets[-1] + len(words))
    flat = [w for words in page_words for w in words]
    has_children = any(depth > 0 for depth, _t, _p in entries)
    main_depth = 1 if has_children else 0
    kept = [(d, t, p) for d, t, p in entries if d <= main_depth]
    starts = [_locate(flat, offsets[p], words_of(t)) for _d, t, p in kept] + [len(flat)]
    found: list[RefSection] = []
    unit = path.stem
    for position, (depth, title, _page) in enumerate(kept):
        begin = starts[position] + len(words_of(title))
        body = flat[begin : max(begin, starts[position + 1])]
        if depth == 0 and has_children:
            unit = title
            if len(body) >= INTRO_MIN_WORDS:
                found.append(
                    RefSection(
                        path.name, unit, "(introduction)", "intro", body, " ".join(body[:12])
                    )
                )
            continue
        found.append(RefSection(path.name, unit, title, "section", body, " ".join(body[:12])))
    return found


def _unligatured(word: str) -> str:
    """A word as PDF text extraction may give it when a ligature glyph (fi, fl, ff) is lost."""
    for ligature in ("ffi", "ffl", "fi", "fl", "ff"):
        word = word.replace(ligature, "")
    return word


def _locate(flat: list[str], start: int, title: list[str]) -> int:
    """Where the title's words first occur at or after `start` (`start` when not found)."""
    if not title:
        return start
    wanted = [_unligatured(w) for w in title]
    for index in range(start, min(len(flat), start + 4000)):
        window = flat[index : index + len(title)]
        if [_unligatured(w) for w in window] == wanted:
            return index
    return start


# ----------------------------------------------------------------------------------- outline


def read_outline(source: str, shape: str, files: Sequence[Path]) -> Outline:
    """The reference outline of a source's files, in the order given."""
    sections: list[RefSection] = []
    method = {"markdown": "markdown-it", "html": "html.parser", "pdf": "pdf outline"}[shape]
    for path in files:
        if shape == "pdf":
            found = pdf_sections(path)
            if found is None:
                return Outline(source, "manual")
            sections += found
        elif shape == "html":
            sections += html_sections(path.name, path.read_text(encoding="utf-8", errors="replace"))
        else:
            sections += markdown_sections(path.name, path.read_text(encoding="utf-8"))
    return Outline(source, method, sections)


# ---------------------------------------------------------------------------------- matching


@dataclass
class TopicMatch:
    topic_id: str
    title: str
    text: str
    best: RefSection | None
    score: float

    @property
    def matched(self) -> bool:
        return self.best is not None and self.best.kind == "section" and self.score >= MATCH_DICE


@dataclass
class SectionsMatched:
    topics: list[TopicMatch]
    covered: list[tuple[RefSection, bool]]
    exercises_in_topics: int
    exercises: int
    method: str

    @property
    def topic_share(self) -> float:
        return sum(t.matched for t in self.topics) / len(self.topics) if self.topics else 0.0

    @property
    def section_share(self) -> float:
        return sum(ok for _s, ok in self.covered) / len(self.covered) if self.covered else 0.0


def topic_texts(state: ConstructorState) -> list[tuple[str, str, str]]:
    """(topic id, title, lesson text) of each topic in course order, from the public state."""
    structure = state.get("structure")
    by_id = {s.section_id: s for s in state.get("sections", [])}
    if structure is None:
        return []
    return [
        (t.topic_id, t.title, "\n\n".join(by_id[s].text for s in t.section_ids if s in by_id))
        for t in structure.ordered_topics()
    ]


def unit_texts(state: ConstructorState) -> list[str]:
    """Each unit's introduction (joined), and each of its exercise and reading sections."""
    structure = state.get("structure")
    by_id = {s.section_id: s for s in state.get("sections", [])}
    texts: list[str] = []
    for unit in structure.units if structure else []:
        texts.append("\n\n".join(by_id[s].text for s in unit.intro_section_ids if s in by_id))
        extra = [*unit.exercise_section_ids, *unit.reading_section_ids]
        texts += [by_id[s].text for s in extra if s in by_id]
        texts.append("\n\n".join(by_id[s].text for s in extra if s in by_id))
    return [t for t in texts if t.strip()]


def unit_intros(state: ConstructorState) -> list[str]:
    structure = state.get("structure")
    by_id = {s.section_id: s for s in state.get("sections", [])}
    units = structure.units if structure else []
    return ["\n\n".join(by_id[s].text for s in u.intro_section_ids if s in by_id) for u in units]


def _covered(ref: RefSection, candidates: list[list[str]], intros: list[list[str]]) -> bool:
    """A section is covered when a topic or unit text matches it; an introduction when a unit's
    introduction holds its words (it may also hold the unit's objectives, which the reference
    leaves out with the other divs)."""
    if ref.kind == "intro":
        return any(_contained(ref.words, words) >= MATCH_DICE for words in intros)
    return any(dice(ref.words, words) >= MATCH_DICE for words in candidates)


def _contained(part: Sequence[str], whole: Sequence[str]) -> float:
    if not part:
        return 0.0
    return sum((Counter(part) & Counter(whole)).values()) / len(part)


LEAK_RUN = 8  # words of an exercise, in order, that a topic must hold for the exercise to be in it


def _verbatim(part: Sequence[str], whole: Sequence[str], run: int = LEAK_RUN) -> bool:
    """Whether `whole` holds a run of `part`'s words in order (its first `run` words): an
    exercise's text copied into a lesson, not a short exercise whose words a long lesson also
    happens to use."""
    return bool(part) and f" {' '.join(part[:run])} " in f" {' '.join(whole)} "


def match_sections(outline: Outline, state: ConstructorState) -> SectionsMatched:
    topics = topic_texts(state)
    reference = outline.of_kind("section") + outline.of_kind("intro")
    matches: list[TopicMatch] = []
    topic_words = [words_of(text) for _id, _title, text in topics]
    for (topic_id, title, text), words in zip(topics, topic_words, strict=True):
        scored = [(dice(words, ref.words), ref) for ref in reference]
        score, best = max(scored, key=lambda pair: pair[0], default=(0.0, None))
        matches.append(TopicMatch(topic_id, title, text, best, score))
    units = [words_of(t) for t in unit_texts(state)]
    intros = [words_of(t) for t in unit_intros(state)]
    covered = [(ref, _covered(ref, topic_words + units, intros)) for ref in reference]
    exercises = outline.of_kind("exercise")
    leaked = sum(1 for ex in exercises if any(_verbatim(ex.words, words) for words in topic_words))
    return SectionsMatched(matches, covered, leaked, len(exercises), outline.method)
