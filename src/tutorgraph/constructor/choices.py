"""The forms an offline quiz item takes, and the course's vocabulary its choices come from.

Multiple choice (`with_choices`): the right option among wrong ones the course itself offers,
in this order: the terms the text sets against the answer ("X is not Y", "unlike Y", "X,
whereas Y", `named confusions`), with that sentence as why_wrong; the topic's other defined
terms and the other topics' (`SiblingTerm`, from `topic_vocabulary` / `sibling_terms`), with
their definitions as why_wrong; then other key terms (why_wrong ""). A form
`item_checks.choice_problems` finds unfair (the right option longest by far, repeats, too few
options) is not given: the item stays free-answer.

Vocabulary: the terms a topic may ask about (`topic_terms`: its key terms, the terms the author
marked, its title and the parts of its title), which of them its text defines ("X is a ...",
"X means ...": `definition_match`), and the terms a topic lends the others as wrong options.

What it cannot do: it makes no wrong option up (no negated answers, no shuffled words), so a
course with few terms gives few choice items; which sentence defines a term is read from two
sentence shapes only. The number of options and of sibling terms are parameters: `quiz_writer`
in constructor/parameters.yaml."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel

from tutorgraph.constructor.item_checks import choice_problems
from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import ItemAsks, QuizItem, Topic
from tutorgraph.constructor.text import (
    POINTS_ELSEWHERE,
    definition_of,
    lesson_prose,
    marked_terms,
    sentences,
    stands_alone,
    stems_of,
)
from tutorgraph.knowledge.bloom import BloomLevel, QuestionType
from tutorgraph.text.tokens import normalise

CONTRAST = re.compile(r"\b(whereas|unlike|instead of|rather than|but not)\b", re.I)


class SiblingTerm(BaseModel):
    """A term another topic of the course defines or keys on: a plausible wrong choice."""

    term: str
    definition: str = ""  # the sentence of the text that defines it ("" when none does)
    topic: str = ""  # the title of the topic it belongs to


def new_item(
    topic: Topic,
    level: BloomLevel,
    kind: QuestionType,
    text: str,
    answer: str,
    points: Sequence[str],
    evidence: str,
    asks: ItemAsks,
) -> QuizItem:
    return QuizItem(
        item_id="",
        topic_id=topic.topic_id,
        bloom_level=level,
        type=kind,
        difficulty=min(5, level.rank + 1),
        text=text,
        reference_answer=answer,
        key_points=[p for p in points if p],
        evidence=evidence,
        asks=asks,
    )


# A heading that is a sentence or a call ("What about NULL?", "I know, let's use regular
# expressions!", "Diving in") cannot stand where a noun phrase goes ("In What about NULL?, what
# does ..."): such a title is quoted as the lesson's name.
_SENTENCE_TITLE = re.compile(
    r"[?!,;:]|^(?:what|why|how|when|where|which|who|i|we|you|let'?s|let’s)\b|"
    r"\b(?:in|on|up|out|off|over|away|back|down)$",
    re.I,
)


def topic_phrase(topic: Topic) -> str:
    """The topic as the question's opening names it: its title, or, when the title reads as a
    sentence rather than a name, "the lesson “<title>”"."""
    title = topic.title.strip().rstrip(".")
    if _SENTENCE_TITLE.search(title):
        return f"the lesson “{title}”"
    return title.rstrip(":")


def code_term(term: str) -> str:
    return f"`{term}`" if re.search(r"[_()\[\].]|^[a-z]+[A-Z]", term) else term


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


# ---- multiple choice ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Wrong:
    option: str
    why: str  # the text's sentence on why it is not the answer ("" when it says nothing)


def with_choices(
    item: QuizItem, right: str, wrong: Sequence[Wrong], *, verbatim: bool = False
) -> QuizItem:
    """The item with a multiple-choice form: `right` among up to `quiz_writer.choice_options -
    1` wrong options, those the text says are wrong first, then those closest to it in length
    (none the same term as the right one, none already in the question), at a position fixed
    by the question's text. The item unchanged when `item_checks.choice_problems` finds the
    form unfair (fewer than `item_checks.choice_min_options` options, the right one longest
    by far...). `verbatim` options (queries, commands) are the same only when written the same:
    `SELECT * FROM t;` is another query than `SELECT * FROM t WHERE x > 1;`."""
    q = constructor_parameters().quiz_writer
    right_stems = stems_of(right)
    asked = stems_of(item.text)
    seen: set[str] = set()
    fitting: list[Wrong] = []
    for candidate in wrong:
        stems = stems_of(candidate.option)
        key = normalise(candidate.option)
        same = stems <= right_stems or right_stems <= stems  # "list" / "lists"
        if verbatim:
            same = key == normalise(right)
        if not stems or same or stems <= asked or key in seen:
            continue
        seen.add(key)
        fitting.append(candidate)
    if not fitting:
        return item  # too few: choice_problems below refuses fewer than choice_min_options
    named = [w for w in fitting if w.why]  # the text says why these are wrong: keep them first
    rest = sorted((w for w in fitting if not w.why), key=lambda w: abs(len(w.option) - len(right)))
    picked = [*named, *rest][: q.choice_options - 1]
    position = zlib.crc32(item.text.encode()) % (len(picked) + 1)
    options = _one_form([w.option for w in picked], right)
    why = [w.why for w in picked]
    options.insert(position, _one_form([right], options[0] if options else right)[0])
    why.insert(position, "")
    chosen = item.model_copy(
        update={"options": options, "correct_index": position, "why_wrong": why}
    )
    return item if choice_problems(chosen) else chosen


def _as_code(option: str) -> bool:
    return option.startswith("`") and option.endswith("`") and option.count("`") == 2


def _one_form(options: list[str], like: str) -> list[str]:
    """Options written the way `like` is: all in code font or none (a lone `git add` among
    plain words gives the answer away by its font)."""
    if _as_code(like):
        return [o if _as_code(o) else f"`{o.strip('`')}`" for o in options]
    return [o.strip("`") if _as_code(o) else o for o in options]


def distractor_pool(
    siblings: Sequence[SiblingTerm], sents: Sequence[str], terms: set[str], defined: dict[str, str]
) -> dict[str, list[Wrong]]:
    """For each term the topic may ask a choice about, its plausible wrong options: first the
    terms the text sets against it ("X is not Y", "unlike Y", "X, whereas Y"), with that
    sentence as why; then the topic's other defined terms and the siblings' defined terms,
    with their definitions as why; then the siblings' other key terms."""
    confusions = _named_confusions(sents, terms)
    others = [Wrong(term, sentence) for term, sentence in defined.items()]
    lent = [Wrong(s.term, s.definition) for s in siblings]
    pool: dict[str, list[Wrong]] = {}
    for term in terms | set(defined):
        named = confusions.get(term, [])
        pool[term] = [*named, *(w for w in others if w.option != term), *lent]
    pool[""] = [*others, *lent]
    return pool


_IS_NOT = re.compile(
    r"^(?:an?\s+|the\s+)?(?P<x>[\w`' -]{2,40}?)\s+(?:is|are)\s+not\s+(?:an?\s+|the\s+)?"
    r"(?P<y>[\w`' -]{2,40}?)(?:\b|$)",
    re.I,
)


def _named_confusions(sents: Sequence[str], terms: set[str]) -> dict[str, list[Wrong]]:
    """term -> the terms the text sets it against, each with that sentence: "a tuple is not
    a list", "unlike a list, a tuple...", "a list ..., whereas a tuple ..."."""
    found: dict[str, list[Wrong]] = {}
    for sentence in sents:
        pair = contrast_pair(sentence, terms)
        match = _IS_NOT.match(sentence)
        if pair is None and match is not None:
            x, y = normalise(match.group("x")), normalise(match.group("y"))
            x_term, y_term = known_term(x, terms), known_term(y, terms)
            pair = (x_term, y_term) if x_term and y_term and x_term != y_term else None
        if pair is None:
            continue
        a, b = pair
        found.setdefault(a, []).append(Wrong(as_written(b, sentence), sentence))
        found.setdefault(b, []).append(Wrong(as_written(a, sentence), sentence))
    return found


def contrast_pair(sentence: str, terms: set[str]) -> tuple[str, str] | None:
    """The two terms a sentence contrasts, each the subject its clause opens with: "X ...,
    whereas Y ...", "X ... instead of Y", "Unlike Y, X ..."; None when either clause opens
    with no term of the topic (a walk-through, a variable's name) or both name one term."""
    cue = CONTRAST.search(sentence)
    if cue is None:
        return None
    if cue.start() == 0:  # "Unlike a list, a tuple cannot change": Y before the comma
        head, _, tail = sentence[cue.end() :].partition(",")
        before, after = tail, head
    else:
        before, after = sentence[: cue.start()], sentence[cue.end() :]
    if cue.group(1).lower() in ("instead of", "rather than"):  # "X instead of Y": X ends before
        a = _opening_term(" ".join(reversed(before.split())), terms, reverse=True)
    else:
        a = _opening_term(before, terms)
    b = _opening_term(after, terms)
    if a is None or b is None:
        return None
    if stems_of(a) <= stems_of(b) or stems_of(b) <= stems_of(a):  # "variable" / "variables"
        return None
    return a, b


_ARTICLE = frozenset({"a", "an", "the"})


def _opening_term(clause: str, terms: set[str], *, reverse: bool = False) -> str | None:
    """The term a clause opens with, after an article ("Lists are..." opens with "list");
    `reverse`: the clause's words are given last first, and the term it ends with is wanted."""
    words = normalise(clause).split()
    words = words[1:] if words[:1] and words[0] in _ARTICLE else words
    by_stems = {frozenset(stems_of(t)): t for t in terms if stems_of(t)}
    longest = max((len(t.split()) for t in terms), default=0)
    for size in range(min(len(words), longest), 0, -1):
        phrase = words[:size][::-1] if reverse else words[:size]
        found = by_stems.get(frozenset(stems_of(" ".join(phrase))))
        if found is not None:
            return found
    return None


# ---- recall: definitions and blanks -------------------------------------------------------------

IS_A = re.compile(
    r"^(?P<article>an?\s+|the\s+)?(?P<term>[\w`'\- ]{2,40}?)\s+(?P<verb>is|are)\s+"
    r"(?P<rest>(?:an?|the|one|any|some)\s+.+)$",
    re.I,
)
MEANS = re.compile(
    r"^(?P<article>an?\s+|the\s+)?(?P<term>[\w`'\- ]{2,40}?)\s+(?P<verb>refers to|means|denotes)"
    r"\s+(?P<rest>.+)$",
    re.I,
)


def definition_match(sentence: str, terms: set[str]) -> re.Match[str] | None:
    """ "X is a ..." / "X means ..." where X is a term of the topic, of a size to ask."""
    q = constructor_parameters().quiz_writer
    match = IS_A.match(sentence) or MEANS.match(sentence)
    if (
        match is None
        or definition_of(sentence) is None
        or len(sentence.split()) > q.definition_max_words
        or len(match.group("rest").split()) < q.definition_min_words
        or POINTS_ELSEWHERE.search(sentence)
    ):
        return None
    return match if known_term(match.group("term").strip(" `'"), terms) else None


def defined_terms(sents: Sequence[str], terms: set[str]) -> dict[str, str]:
    """term -> the sentence of the text that defines it."""
    found: dict[str, str] = {}
    for sentence in sents:
        match = definition_match(sentence, terms)
        if match is not None:
            found.setdefault(normalise(match.group("term").strip(" `'")), sentence)
    return found


def topic_terms(topic: Topic, text: str) -> set[str]:
    """The terms a question may ask about: the topic's salient terms, the terms the author
    marked (bold, defined), its title and the parts of its title ("Parameters and arguments":
    "parameters", "arguments")."""
    terms = {normalise(t) for t in topic.key_terms} | marked_terms(text)
    terms |= {normalise(topic.title)}
    terms |= {normalise(part) for part in re.split(r",|:|&|\band\b", topic.title)}
    return {t for t in terms if t and stems_of(t)}


def known_term(term: str, terms: set[str]) -> str | None:
    """The topic term that `term` names, by stems ("return value" names "return values")."""
    wanted = stems_of(term)
    return next((t for t in sorted(terms) if wanted and stems_of(t) == wanted), None)


def as_written(term: str, sentence: str) -> str:
    """The term as the sentence spells it ("False", not "false"; "Lists" for "list"), when it
    does."""
    found = re.search(rf"(?<!\w){re.escape(term)}(?:e?s)?(?!\w)", sentence, re.I)
    return found.group(0) if found else term


# ---- the course's vocabulary --------------------------------------------------------------------


def topic_vocabulary(topic: Topic, text: str) -> list[SiblingTerm]:
    """The terms a topic gives the rest of the course as wrong options: those its text
    defines (with the defining sentence), then its key terms: of both only the terms of the
    course (`course_term`: bold, code, a heading's words), never a word that is merely
    frequent ("required") or a word the text happens to define in passing ("English is a
    schizophrenic language")."""
    terms = topic_terms(topic, text)
    sents = [s for s in sentences(lesson_prose(text)) if stands_alone(s)]
    found = {
        term: SiblingTerm(term=term, definition=sentence, topic=topic.title)
        for term, sentence in defined_terms(sents, terms).items()
        if course_term(term, topic, text)
    }
    for term in topic.key_terms:
        if course_term(term, topic, text):
            found.setdefault(normalise(term), SiblingTerm(term=term, topic=topic.title))
    return [t for key, t in found.items() if key]


def course_term(term: str, topic: Topic, text: str) -> bool:
    """A key term the author wrote as a term of the course, not a frequent word ("english",
    "required"): marked in bold, written as code, or named in a heading or the topic's title."""
    key = normalise(term)
    if not key:
        return False
    if key in marked_terms(text) or key in normalise(topic.title).split(" "):
        return True
    written = re.escape(term.strip("`"))
    if re.search(rf"`{written}(?:[`(.\[ ])", text, re.I):
        return True
    headings = [normalise(h) for h in re.findall(r"^#{1,6}\s+(.+)$", text, re.M)]
    wanted = stems_of(key)
    return any(wanted <= stems_of(h) for h in [topic.title, *headings])


def sibling_terms(
    topic: Topic, vocabularies: Sequence[tuple[Topic, Sequence[SiblingTerm]]]
) -> list[SiblingTerm]:
    """The other topics' terms (`topic_vocabulary` of each), those of `topic`'s unit first,
    defined terms before key terms, none that `topic` defines itself (those are its own
    questions' answers), at most `quiz_writer.sibling_terms`."""
    q = constructor_parameters().quiz_writer
    own = {
        stem
        for other, terms in vocabularies
        if other.topic_id == topic.topic_id
        for term in terms
        if term.definition
        for stem in [frozenset(stems_of(term.term))]
    }
    others = sorted(
        (pair for pair in vocabularies if pair[0].topic_id != topic.topic_id),
        key=lambda pair: pair[0].unit_id != topic.unit_id,
    )
    found: dict[str, SiblingTerm] = {}
    for defined in (True, False):
        for _, terms in others:
            for term in terms:
                key = normalise(term.term)
                if bool(term.definition) is defined and frozenset(stems_of(key)) not in own:
                    found.setdefault(key, term)
    return list(found.values())[: q.sibling_terms]
