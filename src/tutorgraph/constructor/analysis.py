"""The offline structure engine: sections from headings, topics from headings and term
salience, units from files (or top-level headings), prerequisites from first mention and
dependency cues, and key points from the sentences that carry a topic's salient terms.

What it can do: follow the author's headings, recognise boilerplate sections (exercises,
summaries, solutions...) and fold them into the topic they belong to, segment heading-less text
into topics by length and name them by their salient terms, and order prerequisites so the graph
is acyclic (a topic only depends on topics before it). What it cannot do: understand prose. A
topic is what the author headed; a prerequisite is lexical (terms introduced earlier and used
later); it does not invent misconceptions. Its sizes, caps and weights are parameters: `topics`,
`key_points` and `prerequisites` in constructor/parameters.yaml."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import (
    CourseStructure,
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
from tutorgraph.content.chunking import split_sections
from tutorgraph.text.tokens import normalise

# Headings that organise a chapter rather than name a topic: their text joins the topic before.
BOILERPLATE_HEADINGS = frozenset(
    normalise(h)
    for h in """exercise|exercises|summary|key points|keypoints|solution|solutions|challenge|
    challenges|references|further reading|glossary|objectives|learning objectives|questions|
    overview|discussion|acknowledgements|acknowledgments|review questions|problems|
    recap|conclusion|conclusions|next steps|what's next|bibliography|notes|footnotes|
    self-check|try it|practice|quiz|answers|hints|hint|see also|resources|setup|
    table of contents|contents|index|preface|about|license|attribution""".replace("\n", "").split(
        "|"
    )
)
_BOILERPLATE_PREFIX = re.compile(
    r"^(exercise|challenge|solution|problem|question|key points|summary)\b", re.I
)
_DEPENDENCY_CUE = re.compile(
    r"\b(recall|as we saw|as seen|previous(ly)?|earlier|builds? on|introduced in|"
    r"we (have )?(learned|seen|discussed)|remember that|from the last)\b",
    re.I,
)


class FileRef(Protocol):
    """What topic drafting needs of a file."""

    @property
    def file_id(self) -> str: ...

    @property
    def title(self) -> str: ...


def file_sections(file: SourceFile) -> list[SourceSection]:
    """The file's sections: each heading's own text, with its heading path."""
    found = []
    for index, section in enumerate(split_sections(file.markdown)):
        text = "\n\n".join(section.blocks)
        found.append(
            SourceSection(
                section_id=f"{file.file_id}-s{index}",
                file_id=file.file_id,
                level=len(section.heading_path),
                heading_path=list(section.heading_path),
                text=text,
                words=len(text.split()),
                has_code=bool(code_blocks(text)),
            )
        )
    return found


def is_boilerplate(title: str) -> bool:
    plain = normalise(title)
    return plain in BOILERPLATE_HEADINGS or bool(_BOILERPLATE_PREFIX.match(plain))


def _topic_level(sections: Sequence[SourceSection]) -> int:
    """The heading level that names topics in one file: the shallowest level with two or more
    headings that are not boilerplate (a lone top heading is the file's title)."""
    levels: dict[int, int] = {}
    for section in sections:
        if section.level and not is_boilerplate(section.heading_path[-1]):
            levels[section.level] = levels.get(section.level, 0) + 1
    for level in sorted(levels):
        if levels[level] >= 2:
            return level
    return min(levels) if levels else 0


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
    """Topics of one file from its headings; heading-less files are cut by length."""
    level = _topic_level(sections)
    if level == 0:
        return _segment(file, sections)
    min_words = constructor_parameters().topics.min_topic_words
    unit_title = _unit_title(file, sections, level)
    drafts: list[TopicDraft] = []
    intro: list[SourceSection] = []
    for section in sections:
        heading = section.heading_path[level - 1] if len(section.heading_path) >= level else None
        starts = (
            heading is not None
            and section.level == level
            and not is_boilerplate(heading)
            and section.words + _sub_words(sections, section, level) >= min_words
        )
        if starts and heading is not None:
            drafts.append(TopicDraft(heading, file.file_id, unit_title))
        target = drafts[-1].sections if drafts else intro
        target.append(section)
    if not drafts:
        draft = TopicDraft(unit_title, file.file_id, unit_title)
        draft.sections = intro
        return [draft] if intro else []
    drafts[0].sections[:0] = intro  # the chapter's introduction opens its first topic
    return drafts


def _sub_words(sections: Sequence[SourceSection], head: SourceSection, level: int) -> int:
    """Words under `head`'s subheadings (until the next heading of its level or above)."""
    start = sections.index(head)
    total = 0
    for section in sections[start + 1 :]:
        if 0 < section.level <= level:
            break
        total += section.words
    return total


def _unit_title(file: FileRef, sections: Sequence[SourceSection], level: int) -> str:
    if level > 1:
        for section in sections:
            if section.level >= 1 and section.heading_path:
                return section.heading_path[0]
    return file.title


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
    """For each topic, up to `prerequisites.max_prerequisites` earlier topics it builds on: ones
    whose introduced terms (terms first used there) it uses, or whose title it names; dependency
    cues ("recall", "as we saw") and the topic right before it weigh extra."""
    q = constructor_parameters().prerequisites
    first_seen: dict[frozenset[str], int] = {}
    term_stems = [[frozenset(stems_of(t)) for t in topic.key_terms] for topic in topics]
    text_stems = [stems_of(text) for text in texts]
    for index, terms in enumerate(term_stems):
        for term in terms:
            if term and term not in first_seen and term <= text_stems[index]:
                first_seen[term] = index
    result: list[list[str]] = []
    for index, topic in enumerate(topics):
        cued = bool(_DEPENDENCY_CUE.search(texts[index]))
        scores: list[tuple[float, int]] = []
        for earlier in range(index):
            introduced = [t for t in term_stems[earlier] if first_seen.get(t) == earlier]
            used = sum(1 for t in introduced if t <= text_stems[index])
            named = stems_of(topics[earlier].title) <= text_stems[index]
            score = used + (q.title_named if named else 0.0)
            if score and cued:
                score += q.cue_bonus
            if score and earlier == index - 1 and topic.unit_id == topics[earlier].unit_id:
                score += q.previous_topic_bonus
            if score >= q.min_score:
                scores.append((score, earlier))
        scores.sort(key=lambda s: (-s[0], -s[1]))
        result.append([topics[e].topic_id for _, e in scores[: q.max_prerequisites]])
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
    and a file with several top headings gives one unit per heading."""
    units: list[Unit] = []
    last: tuple[str, str] | None = None
    for key, topic_id in zip(keys, ids, strict=True):
        if key != last:
            unit_id = f"u{len(units) + 1}-{slugify(key[0], limit=30)}"
            units.append(Unit(unit_id=unit_id, title=key[0], topic_ids=[]))
            last = key
        units[-1].topic_ids.append(topic_id)
    return units


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
    """Every section in exactly one topic, and each topic inside one file."""
    file_of = {s.section_id: s.file_id for s in sections}
    seen: list[str] = []
    for topic in proposal.topics:
        if not topic.section_ids or any(s not in file_of for s in topic.section_ids):
            return False
        if len({file_of[s] for s in topic.section_ids}) != 1:
            return False
        seen.extend(topic.section_ids)
    return sorted(seen) == sorted(file_of)
