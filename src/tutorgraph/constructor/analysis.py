"""The offline structure engine: sections from the file's outline, topics from its headings,
units from files, prerequisites from where a concept is defined and first used, and key points
from the sentences that carry a topic's salient terms.

What it can do: read the outline the author wrote (`outline.py`: a Markdown parser, so a `#`
line in a code fence is code), give each section a role (taught text, or the unit's exercises or
reading list: "Exercises", "Homework", "Further reading", "References"... and everything under
them), make each topic exactly one heading's text with its subsections (a lone top heading is
the file's title and names no topic, and so is a `#` part with subheadings; a `##` section among
several is one topic with its `###` parts; a very long heading with two or more subheadings
gives a topic per subheading), leave the text before a unit's first topic as the unit's
introduction, fold a tiny section and a "Summary"/"Overview"/"Key points" section (the author's
own words about the other topics, kept as taught text but never a topic of its own) into the
topic before it, cut heading-less text into topics by length, keep the author's file order, and
order prerequisites so the graph is acyclic. What it cannot do: understand prose. A topic is
what the author headed;
a prerequisite is lexical (a term an earlier topic defines or introduces, used later; a term most
of a large course uses is too common to count), or an explicit reference ("see Lecture 3", "as
covered in <title>"), the only kind that may point forward; it does not invent misconceptions.
Section roles come from heading words, so an exercise list under a heading such as "Try this"
that is not in the lists below stays taught text. Its sizes,
caps and weights are parameters: `topics`, `key_points` and `prerequisites` in
constructor/parameters.yaml."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Protocol

from tutorgraph.constructor.outline import read_outline
from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import (
    CourseStructure,
    SectionRole,
    SourceFile,
    SourceSection,
    Suggestion,
    Topic,
    Unit,
)
from tutorgraph.constructor.text import (
    code_blocks,
    definition_of,
    salient_terms,
    sentences,
    slugify,
    stems_of,
)
from tutorgraph.text.tokens import normalise


def _headings(words: str) -> frozenset[str]:
    return frozenset(normalise(h) for h in " ".join(words.split()).split("|"))


# Sections that are the unit's exercises: never a topic, never mined for questions.
EXERCISE_HEADINGS = _headings(
    """exercise|exercises|homework|assignment|assignments|problem set|problems|practice|
    practice problems|questions|review questions|self-check|self check|check your understanding|
    try it|try it yourself|quiz|answers|answer key|solution|solutions|hints|hint|challenge|
    challenges|lab|labs|activities|activity|tasks|drills"""
)
# A keyword heading that may go on ("Exercise 3: loops", "Solutions to lecture 2") when what
# follows is a label; "Assignment operators" or "Problems with floats" are topics.
_LABEL = r"(\s*$|\s*[\d:.()\u2013\u2014-]|\s+[a-z]?\d|\s+(for|to|on|from)\b)"
_EXERCISE_PREFIX = re.compile(
    r"^(exercises?|homework)\b|^(problem sets?|assignments?|solutions?|challenges?|problems?|"
    r"questions?|practice|quiz(zes)?|labs?|tasks?|activit(y|ies)|drills?)" + _LABEL
)
# Sections that are the unit's reading list (or about the material, not in it): kept, not taught.
READING_HEADINGS = _headings(
    """further reading|references|reference|resources|see also|bibliography|reading|readings|
    recommended reading|suggested reading|additional resources|more resources|links|
    useful links|external links|sources|citations|credits|acknowledgements|acknowledgments|
    license|licence|attribution|footnotes|table of contents|contents|index"""
)
_READING_PREFIX = re.compile(
    r"^(further reading|see also|bibliography|reading list|(suggested|recommended|additional|"
    r"more) (reading|resources))\b|^(references?|resources|readings?|sources|links)" + _LABEL
)
# The author's words about the unit rather than a topic of it: taught text, never a topic.
UNIT_TEXT_HEADINGS = _headings(
    """summary|key points|keypoints|takeaways|key takeaways|overview|objectives|
    learning objectives|learning outcomes|outcomes|goals|recap|conclusion|conclusions|
    next steps|what's next|introduction|intro|discussion|setup|preface|about|glossary|notes"""
)
_UNIT_TEXT_PREFIX = re.compile(r"^(summary|key points|overview|learning objectives)\b")
_DEPENDENCY_CUE = re.compile(
    r"\b(recall|as we saw|as seen|previous(ly)?|earlier|builds? on|introduced in|"
    r"we (have )?(learned|seen|discussed)|remember that|from the last)\b",
    re.I,
)


_REFERENCE_CUE = re.compile(
    r"\b(see|covered in|discussed in|introduced in|explained in|described in|defined in|"
    r"refer to|as in|the (lecture|chapter|section|unit|lesson) on)\b",
    re.I,
)
_NUMBERED_PART = re.compile(
    r"\b(lecture|chapter|unit|week|part|session|module)\s+(?P<n>\d+)\b", re.I
)


class FileRef(Protocol):
    """What topic drafting needs of a file."""

    @property
    def file_id(self) -> str: ...

    @property
    def title(self) -> str: ...


def heading_role(title: str) -> SectionRole | None:
    """The role ("exercises" or "reading") a heading names, else None."""
    plain, lower = normalise(title), " ".join(title.lower().split())
    if plain in EXERCISE_HEADINGS or _EXERCISE_PREFIX.match(lower):
        return "exercises"
    if plain in READING_HEADINGS or _READING_PREFIX.match(lower):
        return "reading"
    return None


def section_role(heading_path: Sequence[str]) -> SectionRole:
    """A section's role from its headings: under an Exercises heading is exercises, and so on."""
    for title in heading_path:
        if role := heading_role(title):
            return role
    return "lesson"


def is_unit_text(title: str) -> bool:
    """A Summary / Overview / Key points heading: the author's words about the unit."""
    plain = normalise(title)
    return plain in UNIT_TEXT_HEADINGS or bool(_UNIT_TEXT_PREFIX.match(title.lower().strip()))


def is_boilerplate(title: str) -> bool:
    """A heading that names no topic: exercises, a reading list, or words about the unit."""
    return heading_role(title) is not None or is_unit_text(title)


def file_sections(file: SourceFile) -> list[SourceSection]:
    """The file's sections from its outline: each heading's own text, with its heading path
    and role."""
    found = []
    for index, section in enumerate(read_outline(file.markdown).sections):
        found.append(
            SourceSection(
                section_id=f"{file.file_id}-s{index}",
                file_id=file.file_id,
                level=section.level,
                heading_path=section.heading_path,
                text=section.text,
                words=len(section.text.split()),
                has_code=bool(code_blocks(section.text)),
                role=section_role(section.heading_path),
            )
        )
    if any(s.level and s.role == "lesson" for s in found):
        return found
    # Heading-less taught text: its pieces of about `topics.segment_words` are the sections.
    taught = [s for s in found if s.role == "lesson"]
    pieces = [s for draft in _segment(file, taught) for s in draft.sections]
    return pieces + [s for s in found if s.role != "lesson"]


@dataclass
class _Node:
    """A heading and the headings under it (lesson sections only)."""

    section: SourceSection
    children: list[_Node] = field(default_factory=list)

    @property
    def title(self) -> str:
        return self.section.heading_path[-1]

    def subtree(self) -> list[SourceSection]:
        return [self.section, *(s for child in self.children for s in child.subtree())]

    @property
    def words(self) -> int:
        return sum(s.words for s in self.subtree())

    def topic_children(self) -> list[_Node]:
        return [c for c in self.children if not is_unit_text(c.title)]


def _tree(sections: Sequence[SourceSection]) -> list[_Node]:
    """The lesson headings as a forest, nesting by level."""
    roots: list[_Node] = []
    stack: list[_Node] = []
    for section in sections:
        if section.level == 0 or section.role != "lesson":
            continue
        node = _Node(section)
        while stack and stack[-1].section.level >= section.level:
            stack.pop()
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)
    return roots


def _topic_level(node: _Node, *, lone: bool = False) -> int:
    """The heading level that names the topics under a heading: the level below it when it
    has two or more subheadings, or any when it is the file's lone top heading (its title);
    else its own."""
    children = len(node.topic_children())
    if children >= 2 or (lone and children):
        return node.section.level + 1
    return node.section.level


class TopicDraft:
    """A topic under construction: a title and the sections it covers."""

    def __init__(self, title: str, file_id: str, unit_title: str) -> None:
        self.title = title
        self.file_id = file_id
        self.unit_title = unit_title
        self.sections: list[SourceSection] = []

    @property
    def words(self) -> int:
        return sum(s.words for s in self.sections)

    @property
    def text(self) -> str:
        return "\n\n".join(s.text for s in self.sections)


def draft_topics(file: FileRef, sections: Sequence[SourceSection]) -> list[TopicDraft]:
    """Topics of one file from its headings (each topic exactly one heading's text with its
    subsections); heading-less files are cut by length. Sections no topic covers are the
    unit's introduction, exercises or reading list (`unit_sections`)."""
    roots = _tree(sections)
    if not roots:
        return _segment(file, [s for s in sections if s.role == "lesson"])
    drafts: list[TopicDraft] = []
    for root in roots:
        lone = len(roots) == 1
        # A `#` part with subheadings, or the file's lone top heading, is split into its
        # subheadings; a lower heading among several (a lesson's `##` sections) is the topic.
        splits = lone or root.section.level == 1
        titled = splits and _topic_level(root, lone=lone) > root.section.level
        nodes = root.children if titled else [root]
        for node in nodes:
            _add_topics(file, node, drafts)
    if not drafts:  # only tiny or summary headings: the file is one topic
        draft = TopicDraft(roots[0].title, file.file_id, file.title)
        draft.sections = [s for root in roots for s in root.subtree()]
        drafts.append(draft)
    return drafts


def _add_topics(file: FileRef, node: _Node, drafts: list[TopicDraft]) -> None:
    """`node` as a topic; a very long one with subheadings as a topic per subheading (its own
    lead-in text then stays with the unit); a tiny one or a Summary joins the topic before (or,
    before any topic, stays the unit's introduction)."""
    q = constructor_parameters().topics
    if is_unit_text(node.title) or node.words < q.min_topic_words:
        if drafts:
            drafts[-1].sections.extend(node.subtree())
        return  # before any topic: the unit's introduction
    draft = TopicDraft(node.title, file.file_id, file.title)
    if node.words > q.long_topic_words and _topic_level(node) > node.section.level:
        if node.section.words >= q.min_topic_words:  # its lead-in is a lesson of its own
            draft.sections = [node.section]
            drafts.append(draft)
        for child in node.children:
            _add_topics(file, child, drafts)
        return
    draft.sections = node.subtree()
    drafts.append(draft)


def _segment(file: FileRef, sections: Sequence[SourceSection]) -> list[TopicDraft]:
    """Heading-less text: consecutive paragraphs cut into topics of about
    `topics.segment_words`."""
    q = constructor_parameters().topics
    paragraphs = [p for s in sections for p in re.split(r"\n\s*\n", s.text) if p.strip()]
    if sum(s.words for s in sections) <= q.one_topic_words:
        draft = TopicDraft(file.title, file.file_id, file.title)
        draft.sections = list(sections)
        return [draft] if sections else []
    groups: list[list[str]] = [[]]
    for paragraph in paragraphs:
        if sum(len(p.split()) for p in groups[-1]) >= q.segment_words:
            groups.append([])
        groups[-1].append(paragraph)
    short_tail = q.segment_words // q.short_tail_divisor
    if len(groups) > 1 and sum(len(p.split()) for p in groups[-1]) < short_tail:
        groups[-2].extend(groups.pop())
    texts = ["\n\n".join(g) for g in groups if g]
    terms = salient_terms(texts, top=3) if len(texts) > 1 else [[file.title]]
    drafts = []
    for index, text in enumerate(texts):
        title = (terms[index][0] if terms[index] else f"{file.title} {index + 1}").capitalize()
        draft = TopicDraft(title, file.file_id, file.title)
        draft.sections = [
            SourceSection(
                section_id=f"{file.file_id}-p{index}",
                file_id=file.file_id,
                level=0,
                heading_path=[],
                text=text,
                words=len(text.split()),
                has_code=bool(code_blocks(text)),
            )
        ]
        drafts.append(draft)
    return drafts


def topic_ids(titles: Sequence[str], prefix: str) -> list[str]:
    """Stable, unique ids for topic titles (a counter breaks ties)."""
    ids: list[str] = []
    for title in titles:
        base = f"{prefix}-{slugify(title, limit=40)}" if prefix else slugify(title, limit=40)
        candidate, n = base, 2
        while candidate in ids:
            candidate, n = f"{base}-{n}", n + 1
        ids.append(candidate)
    return ids


def key_points(text: str, terms: Sequence[str], *, limit: int | None = None) -> list[str]:
    """The topic's most informative sentences (at most `limit`, by default
    `key_points.per_topic`), in text order: definitions first, then sentences that carry its
    salient terms; no questions, and between `key_points.min_words` and `max_words` words."""
    q = constructor_parameters().key_points
    if limit is None:
        limit = q.per_topic
    term_stems = [stems_of(t) for t in terms]
    scored: list[tuple[float, int, str]] = []
    for index, sentence in enumerate(sentences(text)):
        size = len(sentence.split())
        if not q.min_words <= size <= q.max_words or sentence.endswith(("?", ":")):
            continue
        stems = stems_of(sentence)
        hits = sum(1 for t in term_stems if t and t <= stems)
        bonus = q.definition_bonus if definition_of(sentence) else 0.0
        score = hits + bonus - index * q.position_cost
        if hits or definition_of(sentence):
            scored.append((score, index, sentence))
    if not scored:  # no sentence carries the topic's terms: its opening sentences stand in
        opening = [
            s
            for s in sentences(text)
            if q.min_words <= len(s.split()) <= q.max_words and s[-1] not in "?:"
        ]
        return opening[: q.opening_sentences]
    best = sorted(scored, key=lambda s: (-s[0], s[1]))[:limit]
    return [sentence for _, _, sentence in sorted(best, key=lambda s: s[1])]


def summary_of(text: str) -> str:
    """The first prose sentences: `key_points.summary_sentences` of them, stopping once they
    pass `summary_max_words`."""
    q = constructor_parameters().key_points
    picked: list[str] = []
    for sentence in sentences(text):
        if sentence.endswith(("?", ":")):
            continue
        picked.append(sentence)
        if (
            len(picked) == q.summary_sentences
            or sum(len(s.split()) for s in picked) > q.summary_max_words
        ):
            break
    return " ".join(picked)


def prerequisites(topics: Sequence[Topic], texts: Sequence[str]) -> list[list[str]]:
    """For each topic, up to `prerequisites.max_prerequisites` earlier topics it builds on:
    ones that introduce a term it uses (a key term first used there; a term the earlier topic
    defines, or a phrase of two words or more, counts `1`, another word `plain_term_weight`; a
    term most topics of a large course use counts nothing), or whose whole title it names as a
    phrase; dependency cues ("recall", "as we saw") and the topic right before it weigh extra."""
    q = constructor_parameters().prerequisites
    term_stems = [[frozenset(stems_of(t)) for t in topic.key_terms] for topic in topics]
    text_stems = [stems_of(text) for text in texts]
    phrases = [_phrase(text) for text in texts]
    first_seen: dict[frozenset[str], int] = {}
    for terms in term_stems:
        for term in terms:
            if term and term not in first_seen:
                first_seen[term] = next(
                    (i for i, stems in enumerate(text_stems) if term <= stems), len(topics)
                )
    common = _common_terms(first_seen, text_stems)
    result: list[list[str]] = []
    for index, topic in enumerate(topics):
        cued = bool(_DEPENDENCY_CUE.search(texts[index]))
        scores: list[tuple[float, int]] = []
        for earlier in range(index):
            defined = _defined_terms(texts[earlier])
            score = sum(
                1.0 if (len(t) > 1 or t in defined) else q.plain_term_weight
                for t in dict.fromkeys(term_stems[earlier])
                if first_seen.get(t) == earlier and t not in common and t <= text_stems[index]
            )
            title = _phrase(topics[earlier].title)
            if title.strip() and title in phrases[index]:
                score += q.title_named
            if score and cued:
                score += q.cue_bonus
            if score and earlier == index - 1 and topic.unit_id == topics[earlier].unit_id:
                score += q.previous_topic_bonus
            if score >= q.min_score:
                scores.append((score, earlier))
        scores.sort(key=lambda s: (-s[0], -s[1]))
        result.append([topics[e].topic_id for _, e in scores[: q.max_prerequisites]])
    return result


def _phrase(text: str) -> str:
    """Lower-case words joined by single spaces, padded: for whole-phrase matching."""
    return " " + " ".join(re.findall(r"[\w']+", text.lower())) + " "


def _defined_terms(text: str) -> set[frozenset[str]]:
    """The terms a text defines ("X is a ..."), as stem sets."""
    return {
        frozenset(stems_of(found[0]))
        for sentence in sentences(text)
        if (found := definition_of(sentence))
    }


def _common_terms(
    terms: dict[frozenset[str], int], text_stems: Sequence[set[str]]
) -> set[frozenset[str]]:
    """Terms used by more than `prerequisites.max_term_share` of the topics, in a course of at
    least `share_min_topics` topics (fewer topics say nothing about how common a word is)."""
    q = constructor_parameters().prerequisites
    if len(text_stems) < q.share_min_topics:
        return set()
    return {
        term
        for term in terms
        if sum(1 for stems in text_stems if term <= stems) > q.max_term_share * len(text_stems)
    }


def explicit_references(
    topics: Sequence[Topic], texts: Sequence[str], units: Sequence[Unit]
) -> dict[str, list[str]]:
    """Topics a topic's text sends the reader to in so many words: a cue ("see", "covered in",
    "as discussed in", "the lecture on"...) followed within `prerequisites.reference_window_chars`
    characters by another topic's whole title, a unit's title or "lecture/chapter/unit N" (that
    unit's first topic). These may point forward: the author said so."""
    window = constructor_parameters().prerequisites.reference_window_chars
    first_of_unit = [u.topic_ids[0] for u in units if u.topic_ids]
    titles = [(t.topic_id, _phrase(t.title)) for t in topics] + [
        (u.topic_ids[0], _phrase(u.title)) for u in units if u.topic_ids
    ]
    found: dict[str, list[str]] = {}
    for topic, text in zip(topics, texts, strict=True):
        named: list[str] = []
        for cue in _REFERENCE_CUE.finditer(text):
            after = text[cue.end() : cue.end() + window]
            near = _phrase(after)
            named += [i for i, title in titles if title.strip() and title in near]
            if (number := _NUMBERED_PART.search(after)) and 0 < int(number.group("n")) <= len(
                first_of_unit
            ):
                named.append(first_of_unit[int(number.group("n")) - 1])
        found[topic.topic_id] = [i for i in dict.fromkeys(named) if i != topic.topic_id]
    return found


def with_references(
    topics: Sequence[Topic], kept: dict[str, list[str]], references: dict[str, list[str]]
) -> dict[str, list[str]]:
    """`kept` (earlier topics only) with the explicit references added first, each only if it
    makes no cycle, at most `prerequisites.max_prerequisites` a topic."""
    most = constructor_parameters().prerequisites.max_prerequisites
    result = {t.topic_id: list(kept.get(t.topic_id, [])) for t in topics}
    for topic in topics:
        for target in references.get(topic.topic_id, []):
            if target in result[topic.topic_id] or target not in result:
                continue
            trial = [
                t.model_copy(update={"prerequisites": result[t.topic_id]})
                if t.topic_id != topic.topic_id
                else t.model_copy(update={"prerequisites": [target, *result[t.topic_id]]})
                for t in topics
            ]
            if find_cycle(trial) is None:
                result[topic.topic_id] = [target, *result[topic.topic_id]][:most]
    return result


def find_cycle(topics: Sequence[Topic]) -> list[str] | None:
    """A prerequisite cycle as a list of topic ids, or None."""
    graph = {t.topic_id: [p for p in t.prerequisites] for t in topics}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if nxt not in graph:
                continue
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in graph:
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def structure_issues(structure: CourseStructure) -> list[str]:
    """What is wrong with a structure: the problems validation reports and review must fix."""
    issues = []
    ids = [t.topic_id for t in structure.topics]
    if not structure.topics:
        issues.append("the course has no topics")
    for unit in structure.units:
        if not unit.topic_ids:
            issues.append(f"unit {unit.title!r} has no topics")
    placed = [t for unit in structure.units for t in unit.topic_ids]
    for topic in structure.topics:
        if topic.topic_id not in placed:
            issues.append(f"topic {topic.title!r} is in no unit")
        if not topic.key_points:
            issues.append(f"topic {topic.title!r} has no key points in its text")
        for prerequisite in topic.prerequisites:
            if prerequisite not in ids:
                issues.append(f"topic {topic.title!r} needs unknown topic {prerequisite!r}")
    titles = [normalise(t.title) for t in structure.topics]
    for title in sorted({t for t in titles if titles.count(t) > 1}):
        issues.append(f"two topics are called {title!r}")
    cycle = find_cycle(structure.topics)
    if cycle:
        issues.append("prerequisite cycle: " + " -> ".join(cycle))
    return issues


def suggestions(structure: CourseStructure) -> list[Suggestion]:
    """Reorganisation the author may want: merge short topics, split long ones, and move a
    topic after a prerequisite that comes later in the course."""
    q = constructor_parameters().topics
    found: list[Suggestion] = []
    order = {t.topic_id: i for i, t in enumerate(structure.ordered_topics())}
    previous: Topic | None = None
    for topic in structure.ordered_topics():
        if topic.words < q.short_topic_words and previous is not None:
            found.append(
                Suggestion(
                    kind="merge",
                    topic_ids=[previous.topic_id, topic.topic_id],
                    reason=f"{topic.title!r} has only {topic.words} words",
                )
            )
        if topic.words > q.long_topic_words:
            found.append(
                Suggestion(
                    kind="split",
                    topic_ids=[topic.topic_id],
                    reason=f"{topic.title!r} has {topic.words} words: one lesson may be too long",
                )
            )
        for prerequisite in topic.prerequisites:
            if order.get(prerequisite, -1) > order[topic.topic_id]:
                found.append(
                    Suggestion(
                        kind="reorder",
                        topic_ids=[prerequisite, topic.topic_id],
                        reason=f"{topic.title!r} builds on a topic that comes after it",
                    )
                )
        previous = topic
    return found


def group_units(keys: Sequence[tuple[str, str]], ids: Sequence[str]) -> list[Unit]:
    """One unit per run of topics with the same (unit title, file): a chapter file is a unit,
    and a file with several top-level parts gives one unit per part."""
    units: list[Unit] = []
    last: tuple[str, str] | None = None
    for key, topic_id in zip(keys, ids, strict=True):
        if key != last:
            unit_id = f"u{len(units) + 1}-{slugify(key[0], limit=30)}"
            units.append(Unit(unit_id=unit_id, title=key[0], topic_ids=[], file_ids=[key[1]]))
            last = key
        units[-1].topic_ids.append(topic_id)
    return units


def unit_keys(
    files: Sequence[SourceFile], sections: Sequence[SourceSection], first_sections: Sequence[str]
) -> list[tuple[str, str]]:
    """Each topic's unit as (title, file id), from the section it starts with: the file is the
    unit, titled by the file; a course of one file with two or more top-level parts (several
    top headings, each with subheadings) has a unit per part, titled by its heading."""
    by_id = {s.section_id: s for s in sections}
    titles = {f.file_id: f.title for f in files}
    parts = len(files) == 1 and len(_parts(sections)) > 1
    keys = []
    for section_id in first_sections:
        section = by_id[section_id]
        title = titles.get(section.file_id, "")
        if parts and section.heading_path:
            title = section.heading_path[0]
        keys.append((title, section.file_id))
    return keys


def _parts(sections: Sequence[SourceSection]) -> list[str]:
    """A file's top-level headings that have headings under them."""
    roots = _tree(sections)
    top = min((r.section.level for r in roots), default=0)
    return [r.title for r in roots if r.section.level == top and r.children]


def unit_sections(
    units: Sequence[Unit], topics: Sequence[Topic], sections: Sequence[SourceSection]
) -> list[Unit]:
    """Each unit with the sections no topic covers: lesson text before a topic is the
    introduction of that topic's unit (after the last topic, of the last); exercises and reading
    lists belong to the unit of the topic before them (before any topic, of the next)."""
    unit_of_topic = {t: u.unit_id for u in units for t in u.topic_ids}
    unit_of_section = {s: unit_of_topic[t.topic_id] for t in topics for s in t.section_ids}
    extra: dict[str, dict[str, list[str]]] = {
        u.unit_id: {"lesson": [], "exercises": [], "reading": []} for u in units
    }
    for file_id in dict.fromkeys(s.file_id for s in sections):
        in_file = [s for s in sections if s.file_id == file_id]
        placed = [unit_of_section.get(s.section_id) for s in in_file]
        for index, section in enumerate(in_file):
            if placed[index] is not None:
                continue
            after = next((u for u in placed[index + 1 :] if u), None)
            before = next((u for u in reversed(placed[:index]) if u), None)
            unit = (after or before) if section.role == "lesson" else (before or after)
            if unit is not None:
                extra[unit][section.role].append(section.section_id)
    return [
        u.model_copy(
            update={
                "intro_section_ids": extra[u.unit_id]["lesson"],
                "exercise_section_ids": extra[u.unit_id]["exercises"],
                "reading_section_ids": extra[u.unit_id]["reading"],
            }
        )
        for u in units
    ]


def course_title(files: Sequence[SourceFile]) -> str:
    """The course's title from the material: a single file's title (front matter, first
    heading, document metadata); for several files a `course` field their front matter shares,
    else the words all their titles share before or after a separator ("Missing Semester: Git"
    and "Missing Semester: Shell"; web pages "Generators - Dive Into Python 3"). "" when nothing
    names the course (the author is asked)."""
    if len(files) == 1:
        file = files[0]
        named = file.front_matter.get("title") or file.title
        return "" if named == PurePath(file.filename).stem else named
    for key in ("course", "course_title", "collection", "book"):
        values = {f.front_matter.get(key, "") for f in files}
        if len(values) == 1 and (value := values.pop()):
            return value
    titles = [f.front_matter.get("page_title") or f.title for f in files]
    return _shared_title_part(titles)


_TITLE_SEPARATOR = re.compile(r"\s*(?::|\s[-\u2013\u2014|]\s)\s*")


def _shared_title_part(titles: Sequence[str]) -> str:
    """The words every title has before its first separator, or after its last one."""
    if not titles or not all(_TITLE_SEPARATOR.search(t) for t in titles):
        return ""
    heads = {_TITLE_SEPARATOR.split(t)[0].strip() for t in titles}
    tails = {_TITLE_SEPARATOR.split(t)[-1].strip() for t in titles}
    for shared in (heads, tails):
        if len(shared) == 1 and (value := shared.pop()):
            return value
    return ""


def course_description(files: Sequence[SourceFile], intro: str) -> str:
    """The course's description from the material: a description several files' front matter
    shares (`course_description`, else `description`), a single file's own description, else
    the first sentences of a single file's introduction. "" otherwise (the author is asked)."""
    for key in ("course_description", "description"):
        values = {f.front_matter.get(key, "") or f.description for f in files}
        if len(values) == 1 and (value := values.pop()):
            return value
    if len(files) == 1:
        return files[0].description or summary_of(intro)
    return ""


def earlier_only(topics: Sequence[Topic], proposed: dict[str, list[str]]) -> dict[str, list[str]]:
    """Proposed prerequisites kept only where they name an earlier topic: a structure built
    this way has no cycles, whatever a model proposed."""
    position = {t.topic_id: i for i, t in enumerate(topics)}
    most = constructor_parameters().prerequisites.max_prerequisites
    kept: dict[str, list[str]] = {}
    for topic in topics:
        wanted = proposed.get(topic.topic_id, [])
        kept[topic.topic_id] = [
            p
            for p in dict.fromkeys(wanted)
            if p in position and position[p] < position[topic.topic_id]
        ][:most]
    return kept


class ProposedTopicLike(Protocol):
    @property
    def section_ids(self) -> list[str]: ...


class ProposalLike(Protocol):
    @property
    def topics(self) -> Sequence[ProposedTopicLike]: ...


def covers(proposal: ProposalLike, sections: Sequence[SourceSection]) -> bool:
    """Each topic inside one file, no section in two topics, no exercises or reading list in
    any topic, and every taught heading's text in a topic, except the text before a file's
    first heading and a heading's lead-in before its subheadings (a unit's introduction,
    `unit_sections`)."""
    by_id = {s.section_id: s for s in sections}
    seen: list[str] = []
    for topic in proposal.topics:
        if not topic.section_ids or any(s not in by_id for s in topic.section_ids):
            return False
        if len({by_id[s].file_id for s in topic.section_ids}) != 1:
            return False
        if any(by_id[s].role != "lesson" for s in topic.section_ids):
            return False
        seen.extend(topic.section_ids)
    missing = [s for s in sections if s.section_id not in seen and not _may_be_intro(s, sections)]
    return bool(seen) and len(seen) == len(set(seen)) and not missing


def _may_be_intro(section: SourceSection, sections: Sequence[SourceSection]) -> bool:
    if section.role != "lesson" or section.level == 0 or not section.words:
        return True
    index = sections.index(section)
    following = sections[index + 1] if index + 1 < len(sections) else None
    return (
        following is not None
        and following.file_id == section.file_id
        and following.level > section.level
    )
