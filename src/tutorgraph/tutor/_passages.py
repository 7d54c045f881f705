"""Which retrieved passages answer a learner's question, best first: the on-topic test (how much
of the question a passage says, and what the search tool says no course contains) and the
ranking (search score, the open lesson, the lesson before its reference notes, specific sections
before summaries, headings that name what is asked)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, Field

from tutorgraph.text.markdown import sentences
from tutorgraph.text.meaning import default_lexicon
from tutorgraph.text.query import stem_set
from tutorgraph.tutor.blocks import strip_blocks
from tutorgraph.tutor.parameters import tutor_parameters

# The thresholds and weights below (`relevance`, `min_matched`...) are parameters:
# `passages` in tutor/parameters.yaml (hand-set, decision 0019).
GENERIC_HEADINGS = re.compile(
    r"^(faq|frequently asked|definitions?|key takeaways|summary|overview|common misconceptions|"
    r"canonical sources|reference)",
    re.IGNORECASE,
)


class Passage(BaseModel):
    """One `search_course` result."""

    course: str = ""
    lesson: str = ""
    lesson_title: str = ""
    source: str = "lesson"
    heading_path: list[str] = Field(default_factory=list)
    text: str = ""
    score: float = 0.0


def relevant(
    passages: list[Passage],
    question: str,
    *,
    prefer: str = "",
    course: str = "",
    unknown: Sequence[str] = (),
) -> list[Passage]:
    """Passages that answer the question, best first; none when the question is about something
    the course does not cover.

    On topic: a passage says at least `min_matched` of the question's content words (one, for a
    question of one or two) and at least `relevance` of them, or `short_share` of a short
    question's. A long, chatty question ("so i tried ... my messy jacobian") is judged by the
    words some course knows (`relevance` of those), not diluted by the rest; but a passage that
    says fewer than `short_share` of them must also be a strong search match
    (`weak_match_score`: "the best
    pizza topping" shares "best" and "top" with a passage on top-k sampling, both common words,
    so a low score).

    A lesson section must say nearly as many of the question's words as the best lesson section
    (`close_to_best`); reference notes, long and wordy, are measured against every passage.

    Ranking (`rank_key`): the search score, the current lesson first, lesson text before
    reference notes, specific sections before summaries ("Key takeaways", "FAQ"), and sections
    whose heading names what is asked, in the learner's words or the paraphrase lexicon's; then,
    among one lesson's sections, how many of the question's words each says against the one that
    says most (`coverage`: a rambling question is about what most of it is about, not about the
    section one rare word of it hits hardest)."""
    wanted = stem_set(question) or _bare_words(question)
    if not wanted or not passages:
        return []
    q = tutor_parameters().passages
    if len(unknown) >= q.min_matched and len(unknown) / len(wanted) >= q.unknown_share:
        # Mostly about things no course contains ("set up selenium for my react frontend"): only a
        # passage that says most of the question could still be the answer.
        needed_share = q.short_share
    else:
        needed_share = 0.0
    vocabularies = [_vocabulary(p) for p in passages]
    matched = [len(wanted & v) for v in vocabularies]
    needed = 1 if len(wanted) <= 2 else q.min_matched
    share = max(q.relevance, min(q.short_share, needed / len(wanted)))
    known = len(wanted - set(unknown)) or len(wanted)
    in_lessons = [m for p, m in zip(passages, matched, strict=True) if p.source == "lesson"]
    best = {"lesson": max(in_lessons, default=0), "other": max(matched)}
    kept = [
        p
        for p, m in zip(passages, matched, strict=True)
        if m >= needed
        and m / known >= min(share, q.short_share)
        and m >= q.close_to_best * best["lesson" if p.source == "lesson" else "other"]
        and (m / len(wanted) >= q.short_share or p.score >= q.weak_match_score)
        and m / len(wanted) >= needed_share
    ]
    said = {id(p): m for p, m in zip(passages, matched, strict=True)}
    most: dict[str, int] = {}
    for p, m in zip(passages, matched, strict=True):
        most[p.lesson] = max(most.get(p.lesson, 0), m)
    kept.sort(
        key=lambda p: (
            rank_key(p, wanted, prefer, course) * (said[id(p)] / most[p.lesson]) ** q.coverage
        ),
        reverse=True,
    )
    # One passage once, even when the lesson and its reference notes hold the same text (an
    # uploaded course's notes are often the lesson's own paragraphs): their openings compared
    # normalised.
    unique: dict[str, Passage] = {}
    for passage in kept:
        unique.setdefault(_key(passage.text)[:200], passage)
    return list(unique.values())


def _bare_words(question: str) -> set[str]:
    """A question made only of common words ("what does with do?"): its words but the few that
    never carry the topic."""
    return {w for w in re.findall(r"[a-z]+", question.lower()) if w not in _NEVER_TOPIC}


_NEVER_TOPIC = frozenset(
    [
        "what",
        "does",
        "do",
        "did",
        "how",
        "is",
        "are",
        "the",
        "a",
        "an",
        "it",
        "i",
        "you",
        "can",
        "why",
        "when",
    ]
)


def rank_key(passage: Passage, wanted: set[str], prefer: str, course: str = "") -> float:
    """How well a passage answers: its search score, weighted (see `relevant`)."""
    q = tutor_parameters().passages
    weight = q.lesson_bonus if prefer and passage.lesson == prefer else 1.0
    if course and passage.course != course:
        weight *= q.other_course  # scores of different courses' indexes do not compare well
    if passage.source != "lesson":
        weight *= q.reference_notes
    heading = headings(passage)[-1] if passage.heading_path else ""
    if GENERIC_HEADINGS.match(heading) or len(passage.heading_path) < 2:
        weight *= q.generic_section  # a summary, or the document's introduction
    # The lesson's own title words name every section of it: they do not pick one.
    title = same_words(stem_set(passage.lesson_title))
    named = (same_words(wanted) - title) & same_words(stem_set(" ".join(headings(passage))))
    weight *= 1.0 + q.heading_match * len(named) / len(wanted)
    return passage.score * weight


def same_words(stems: set[str]) -> set[str]:
    """Stems with the paraphrase lexicon's synonyms made one ("pick" and "choose")."""
    phrases = default_lexicon().phrases
    return {phrases.get((stem,), stem) for stem in stems}


def vocabulary(passage: Passage) -> set[str]:
    """The content words of a passage, its lesson title and headings."""
    return _vocabulary(passage)


def _vocabulary(passage: Passage) -> set[str]:
    return stem_set(f"{passage.lesson_title} {' '.join(passage.heading_path)} {passage.text}")


def headings(passage: Passage) -> list[str]:
    """The heading path without the document title, unless that is all there is."""
    path = passage.heading_path
    return path[1:] if len(path) > 1 else path


# --- what a reply may quote ----------------------------------------------------------------------

_SENTENCE_END = re.compile(r"[.!?][)\]\"'’”*_`]*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+(?P<item>.+)$", re.MULTILINE)
_GERUND_START = re.compile(r"^[*_`]*[A-Z][a-z]+ing\b")


def quotable(text: str) -> list[str]:
    """The sentences of a passage a reply may quote: prose sentences (`text.markdown.sentences`)
    that end at a sentence boundary, without the pieces that only make sense in their place: a
    lead-in cut off by the formula or list it introduces ("The transformer defines"), and a list
    item that is a phrase, not a sentence ("Forgetting the 1/sqrt(d_k) factor.", one bullet of a
    list of pitfalls)."""
    phrases = {
        _key(match.group("item"))
        for match in _LIST_ITEM.finditer(text)
        if _GERUND_START.match(match.group("item"))
    }
    kept = []
    for sentence in sentences(text):
        if not _SENTENCE_END.search(sentence):
            continue
        if any(_key(sentence) and item.startswith(_key(sentence)) for item in phrases):
            continue
        kept.append(sentence)
    return kept


def sentence_key(sentence: str) -> str:
    """A sentence normalised for telling that two replies say the same thing: lower case, marks
    and spacing ignored."""
    return _key(sentence)


def _key(text: str) -> str:
    return " ".join(re.sub(r"[*_`>\"“”’']", " ", text.lower()).split())


def said_in(replies: Sequence[str]) -> set[str]:
    """The keys of every sentence the conversation's earlier replies quoted (their prose, quiz
    and resource blocks aside)."""
    return {
        _key(s) for reply in replies for s in sentences(_CITED.sub("\n\n", strip_blocks(reply)))
    }


# A reply's citation lines ("_(Source: ...)_", a code block's "From <section>:"): not sentences.
_CITED = re.compile(r"^(_\(Source: .*\)_|From .+:)\s*$", re.MULTILINE)
