"""The offline quiz writer: questions from templates per Bloom level, each filled from one
source sentence (or a code block and the prose that explains it), so every reference answer is
the author's own words and every key point is a clause the sources state:

| level      | type       | source                                     | question                  |
|------------|------------|--------------------------------------------|---------------------------|
| remember   | conceptual | "X is a ..." / "X means ..." (X a term)    | In <topic>, what is X?    |
| remember   | conceptual | a statement naming a concept of the topic  | Fill in the blank: ...    |
|            |            | once (asked last, at most blanks_per_topic)| (the concept blanked out) |
| understand | conceptual | "<fact> because / so that / in order to    | <fact>. Why? / What is    |
|            |            | <reason>", "Because <reason>, <fact>"      | this for? (the reason is  |
|            |            | (a fact that stands alone)                 | the key point)            |
| understand | conceptual | a sentence opening with X, with a purpose  | What does X do, and why?  |
|            |            | or cause cue ("so that", "because"...)     |                           |
| apply      | scenario   | a program, the prose that explains it, and | What does this code do?   |
|            |            | its output when the source shows it        |                           |
| apply      | debugging  | a program followed by its error and the    | What goes wrong, and why? |
|            |            | prose that says why (else: "What happens   |                           |
|            |            | when this code runs?")                     |                           |
| apply      | scenario   | "use X when/to ..." stated as a rule       | When would you use X?     |
| analyze    | conceptual | X and Y on either side of "whereas"...,    | How does X differ from Y? |
|            |            | not in a walk-through of an example        |                           |

X is one of the topic's terms (salient or marked by the author); a sentence is used only when
it stands alone (no lead-in ending with a colon, no "And then...", no exercise instruction)
and is the lesson's own (exercises and their solutions are skipped: a solution's sentence is
true of its exercise only). The program rows are `programs.py`'s (what it shows a program
with, and what it leaves out). The offline writer does not write evaluate or create
questions: it cannot judge trade-offs. Whichever engine writes a quiz, `item_checks.py`
checks it. The writer cannot judge whether a question is interesting, and its questions are only
as grammatical as the templates. How many items, and the sentence lengths each template takes,
are parameters: `quiz_writer` in constructor/parameters.yaml."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.programs import program_questions
from tutorgraph.constructor.state import QuizItem, Topic
from tutorgraph.constructor.text import (
    definition_of,
    marked_terms,
    sentences,
    stands_alone,
    stems_of,
)
from tutorgraph.grading.checks.numbers import read_numbers
from tutorgraph.grading.checks.spec import AnswerChecks, NumberCheck
from tutorgraph.knowledge.bloom import BloomLevel, QuestionType
from tutorgraph.text.tokens import normalise

_PURPOSE = re.compile(
    r"\b(because|so that|in order to|allows?|lets|enables?|prevents?|ensures?|avoids?|"
    r"which means|this means|the reason|helps?|makes it possible)\b",
    re.I,
)
_CONTRAST = re.compile(r"\b(whereas|unlike|instead of|rather than|while|but not)\b", re.I)


@dataclass(frozen=True)
class TopicMaterial:
    """What the writer needs about one topic: its text, and the text of its file before it (the
    programs a program of the topic may build on)."""

    topic: Topic
    text: str
    earlier: str = ""


def write_questions(material: TopicMaterial, *, wanted: int | None = None) -> list[QuizItem]:
    """Up to `wanted` (by default `quiz_writer.items_per_topic`) questions on one topic, one per
    template family first, climbing Bloom."""
    q = constructor_parameters().quiz_writer
    if wanted is None:
        wanted = q.items_per_topic
    topic = material.topic
    prose = lesson_prose(material.text)
    sents = [s for s in sentences(prose) if stands_alone(s)]
    terms = _topic_terms(topic, material.text)
    families = [
        _definitions(topic, sents, terms),
        _reasons(topic, sents),
        _purposes(topic, sents, terms),
        [
            _item(
                topic, BloomLevel.APPLY, q.kind, q.question, " ".join(q.answer), q.answer, q.program
            ).model_copy(update={"checks": output_checks(q.answer)})
            for q in program_questions(_topic_phrase(topic), material.text, material.earlier)
        ],
        _use_when(topic, sents, terms),
        _contrasts(topic, sents, terms),
    ]
    # Round robin over the template families, so no one family fills the topic; a blank to
    # fill in is the plainest question, asked only where the others leave room.
    candidates = [
        family[i]
        for i in range(max((len(f) for f in families), default=0))
        for family in families
        if i < len(family)
    ] + _blanks(topic, sents, terms, prose, material.text)[: q.blanks_per_topic]
    chosen: list[QuizItem] = []
    used_evidence: set[str] = set()
    # One per Bloom level first (breadth), then fill by order.
    for level in BloomLevel:
        for item in candidates:
            if item.bloom_level is level and item.evidence not in used_evidence:
                chosen.append(item)
                used_evidence.add(item.evidence)
                break
    for item in candidates:
        if len(chosen) >= wanted:
            break
        if item.evidence not in used_evidence:
            chosen.append(item)
            used_evidence.add(item.evidence)
    chosen = chosen[:wanted]
    chosen.sort(key=lambda item: item.bloom_level.rank)
    return [
        item.model_copy(update={"item_id": f"{topic.topic_id}-q{i + 1}"})
        for i, item in enumerate(chosen)
    ]


# A box or heading that opens an exercise, its solution or a hint: what follows answers that
# exercise ("The shape will be (60, 39) because..."), not the topic in general.
_EXERCISE_LABEL = re.compile(
    r"^\s*(?:\*\*|#{1,6}\s+)(?:challenge|exercise|solution|hint|practice|problem)s?\b", re.I
)
_HEADING = re.compile(r"^\s*#{1,6}\s+")


_TRIVIAL = {0.0, 1.0, 2.0, -1.0}


def output_checks(answer: Sequence[str]) -> AnswerChecks | None:
    """Numeric checks for a program question whose source shows numbers in the output: a
    learner who says what the code shows must arrive at them. Each number is matched within
    half a unit of its last written digit; outputs of only trivial numbers (0, 1, 2), or of
    more than `programs.output_check_max_values`, get none."""
    shown = next((part for part in answer if part.startswith("It prints: ")), None)
    if shown is None:
        return None
    lines = shown.removeprefix("It prints: ").split(" / ")  # the printed lines, as joined
    written = [d for line in lines for d in re.findall(r"-?\d+(?:\.(\d+))?", line)]
    values = [v for line in lines for v in read_numbers(line)]
    most = constructor_parameters().programs.output_check_max_values
    if not values or len(values) > most or set(values) <= _TRIVIAL:
        return None
    decimals = max((len(d) for d in written), default=0)
    tolerance = 0.5 * 10.0**-decimals if decimals else 0.0
    check = NumberCheck(name="the output", values=values, tolerance=tolerance, points=[shown])
    return AnswerChecks(numbers=[check], solution=" ".join(answer))


def lesson_prose(text: str) -> str:
    """The text without its exercises: from an exercise, solution or hint label to the next
    heading that is not one. The prose templates ask about what the lesson states; a
    sentence of a solution is true of its exercise only. (Code questions still read the
    exercises: a program and its output are true wherever they are.)"""
    kept: list[str] = []
    in_exercise = in_fence = False
    for line in text.splitlines():
        if re.match(r"^\s*(```|~~~)", line):
            in_fence = not in_fence
        if not in_fence and _EXERCISE_LABEL.match(line):
            in_exercise = True
        elif not in_fence and _HEADING.match(line):
            in_exercise = False
        if not in_exercise:
            kept.append(line)
    return "\n".join(kept)


def _topic_terms(topic: Topic, text: str) -> set[str]:
    """The terms a question may ask about: the topic's salient terms, the terms the author
    marked (bold, defined), and the words of its title."""
    terms = {normalise(t) for t in topic.key_terms} | marked_terms(text)
    terms |= {normalise(topic.title)}
    return {t for t in terms if t}


def _item(
    topic: Topic,
    level: BloomLevel,
    kind: QuestionType,
    text: str,
    answer: str,
    points: Sequence[str],
    evidence: str,
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
    )


def _topic_phrase(topic: Topic) -> str:
    return topic.title.strip().rstrip(".:")


_IS_A = re.compile(
    r"^(?P<article>an?\s+|the\s+)?(?P<term>[\w`'\- ]{2,40}?)\s+(?P<verb>is|are)\s+"
    r"(?P<rest>(?:an?|the|one|any|some)\s+.+)$",
    re.I,
)
_MEANS = re.compile(
    r"^(?P<article>an?\s+|the\s+)?(?P<term>[\w`'\- ]{2,40}?)\s+(?P<verb>refers to|means|denotes)"
    r"\s+(?P<rest>.+)$",
    re.I,
)


def _definitions(topic: Topic, sents: Sequence[str], terms: set[str]) -> list[QuizItem]:
    """ "X is a ..." / "X means ..." where X is a term of the topic: "what is X?"."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        match = _IS_A.match(sentence) or _MEANS.match(sentence)
        if (
            match is None
            or definition_of(sentence) is None
            or len(sentence.split()) > q.definition_max_words
        ):
            continue
        term = match.group("term").strip(" `'")
        if (
            normalise(term) not in terms
            or len(match.group("rest").split()) < q.definition_min_words
        ):
            continue
        plural = match.group("verb").lower() == "are"
        article = (match.group("article") or "").strip().lower()
        article = "" if plural else ("a" if article in ("a", "an", "") else article)
        if article == "a" and term[:1].lower() in "aeiou":
            article = "an"
        subject = f"{article} {_term(term)}".strip() if not plural else _term(term)
        question = f"In {_topic_phrase(topic)}, what {'are' if plural else 'is'} {subject}?"
        rest = match.group("rest").rstrip(".")
        items.append(
            _item(topic, BloomLevel.REMEMBER, "conceptual", question, sentence, [rest], sentence)
        )
    return items


def _term(term: str) -> str:
    return f"`{term}`" if re.search(r"[_()\[\].]|^[a-z]+[A-Z]", term) else term


def _subject_term(sentence: str, terms: set[str]) -> str | None:
    """The topic term the sentence is about: the one it opens with (after an article)."""
    opening = normalise(re.sub(r"^(an?|the)\s+", "", sentence.strip(), flags=re.I))
    best = None
    for term in terms:
        if term and opening.startswith(term + " ") and (best is None or len(term) > len(best)):
            best = term
    return best


def _purposes(topic: Topic, sents: Sequence[str], terms: set[str]) -> list[QuizItem]:
    """A sentence that opens with a term and says what it is for or why: "what does X do?"."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        size = len(sentence.split())
        if not _PURPOSE.search(sentence) or not q.purpose_min_words <= size <= q.purpose_max_words:
            continue
        term = _subject_term(sentence, terms)
        if term is None or definition_of(sentence) is not None:
            continue
        question = (
            f"In {_topic_phrase(topic)}, what does {_term(term)} do, and why does it matter? "
            "Explain in your own words."
        )
        items.append(
            _item(
                topic,
                BloomLevel.UNDERSTAND,
                "conceptual",
                question,
                sentence,
                _clauses(sentence),
                sentence,
            )
        )
    return items


# A sentence that points at something it does not show ("pitfalls like this", "these values")
# cannot be understood on its own in a quiz.
_POINTS_ELSEWHERE = re.compile(r"\b(this|these|those|like that|such|on the other hand)\b", re.I)

# "<fact> because <reason>" / "<fact> so that <purpose>": the fact is stated, the reason asked.
_REASON = re.compile(r",?\s+\b(because|as a result of|due to)\b\s+", re.I)
_AIM = re.compile(
    r",?\s+\b(so that|in order to|to make sure|to ensure|to prevent|to avoid|to stop)\b\s+",
    re.I,
)
_LEADING_REASON = re.compile(r"^because\s+(?P<reason>[^,]{10,}),\s+(?P<fact>.+)$", re.I)
_ASKS = ((_REASON, "Why?"), (_AIM, "What is this for?"))
# A fact that needs the sentence before it ("It...", "This...") is not asked...
_NEEDS_CONTEXT = re.compile(
    r"^(it|this|that|these|those|they|he|she|we|you|here|there)\b"
    # ...or is no statement but the condition of one: "Once we start putting things in
    # functions so that we can re-use them, we need to..."
    r"|^(once|when|whenever|if|as|since|while|after|before|although|though|unless|until)\b",
    re.I,
)


def _reasons(topic: Topic, sents: Sequence[str]) -> list[QuizItem]:
    """A sentence that states a fact and its reason or purpose ("The side that closes first
    waits in TIME_WAIT ... so that delayed segments cannot be mistaken for a new one"): the
    question states the fact and asks why ("... What is this for?"); the key point is the
    reason, in the source's words."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        size = len(sentence.split())
        if (
            not q.reason_sentence_min_words <= size <= q.reason_sentence_max_words
            or _AN_EXAMPLE.search(sentence)
        ):
            continue
        leading = _LEADING_REASON.match(sentence)
        for cue, ask in _ASKS:
            match = cue.search(sentence)
            if leading is not None and cue is _REASON:  # "Because X, Y": Y, because X
                fact = leading.group("fact")
                fact = fact[:1].upper() + fact[1:].strip(" .;")
                reason, cue_word = leading.group("reason"), "because"
            elif match is not None:
                fact = sentence[: match.start()].strip(" ,;")
                reason, cue_word = sentence[match.end() :].strip(" .;"), match.group(1).lower()
            else:
                continue
            if (
                len(fact.split()) < q.fact_min_words
                or len(reason.split()) < q.reason_min_words
                or _NEEDS_CONTEXT.match(fact)
                or "`" in fact
                or not re.search(r"[\w)\"']$", fact)  # "... i.e." / "... enough:" cut short
                or re.search(r"\b(i\.e|e\.g)\.?$", fact)
                or _POINTS_ELSEWHERE.search(sentence)  # "because of pitfalls like this"
            ):
                break
            question = f"In {_topic_phrase(topic)}: {fact}. {ask}"
            points = [f"{cue_word} {reason}"]
            items.append(
                _item(
                    topic, BloomLevel.UNDERSTAND, "conceptual", question, sentence, points, sentence
                )
            )
            break
    return items


BLANK = "_____"
# One-word salient "terms" that are judgements or manner, not the topic's concepts.
_NOT_A_CONCEPT = frozenset(
    [
        "always",
        "never",
        "often",
        "usually",
        "important",
        "useful",
        "good",
        "bad",
        "better",
        "best",
        "correct",
        "wrong",
        "true",
        "false",
        "right",
        "easy",
        "hard",
        "simple",
        "possible",
        "different",
        "same",
        "new",
        "old",
        "first",
        "last",
        "next",
        "whole",
    ]
)


def _blanks(
    topic: Topic, sents: Sequence[str], terms: set[str], prose: str, text: str
) -> list[QuizItem]:
    """A statement that names one of the topic's concepts once: the concept blanked out ("In
    slow start the _____ doubles every round trip"), to be filled in. A concept is a term of
    several words the topic's text names `quiz_writer.phrase_min_mentions` times, or a word it
    names `blank_min_mentions` times (it keeps coming back to it), that is no judgement
    ("important") and not the title's; the longest is asked, one question per concept. `prose`
    is the topic's `text` without its exercises. Fill-in-the-blank items are the easiest to
    write: `write_questions` asks at most `blanks_per_topic` of them, last."""
    q = constructor_parameters().quiz_writer
    title = normalise(topic.title)
    said_in_topic = f" {normalise(prose)} "
    mentions = {t: said_in_topic.count(f" {t} ") for t in terms}
    concepts = {
        t
        for t in terms
        if len(t) >= q.concept_min_chars
        and t not in _NOT_A_CONCEPT
        and not t.endswith("ly")
        and "'" not in t  # "we've seen"
        and not t.startswith(("not ", "no "))  # "not exist": a verb phrase, not a concept
        and not t.endswith("ing")  # "converting": an action of the text, not its concept
        and mentions[t] >= (q.blank_min_mentions if " " not in t else q.phrase_min_mentions)
        and not (stems_of(t) & stems_of(title))
    }
    listed = _list_items(text)
    items = []
    asked: set[str] = set()
    for sentence in sents:
        said = f" {normalise(sentence)} "
        if (
            not q.blank_min_words <= len(sentence.split()) <= q.blank_max_words
            or _AN_EXAMPLE.search(sentence)
            or _POINTS_ELSEWHERE.search(sentence)
            or "`" in sentence
            or not sentence[:1].isupper()
            or re.match(r"^to\b", sentence, re.I)  # "To be able to read a traceback": an aim
            or any(said.strip() in item for item in listed)  # a bullet: often no sentence
        ):
            continue
        found = [t for t in concepts if said.count(f" {t} ") == 1 and t not in asked]
        if not found:
            continue
        term = max(found, key=len)
        written = re.search(rf"(?<!\w){re.escape(term)}(?!\w)", sentence, re.I)
        if written is None:
            continue
        blanked = sentence[: written.start()] + BLANK + sentence[written.end() :]
        if _gives_away(term, blanked):
            continue
        question = f"In {_topic_phrase(topic)}, fill in the blank: {blanked}"
        asked.add(term)
        items.append(
            _item(
                topic,
                BloomLevel.REMEMBER,
                "conceptual",
                question,
                sentence,
                [written.group(0)],
                sentence,
            )
        )
    return items


_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")


def _list_items(text: str) -> list[str]:
    """The normalised text of each list item: objectives and notes, often without a verb."""
    return [normalise(m.group(1)) for line in text.splitlines() if (m := _LIST_ITEM.match(line))]


def _gives_away(term: str, blanked: str) -> bool:
    """The sentence around the blank names the concept another way: "docstring" around a blanked
    "string", "convert" around "converting", "files" around "filenames"."""
    least = constructor_parameters().quiz_writer.give_away_min_chars
    wanted = normalise(term).replace(" ", "")
    for stem in stems_of(blanked.replace(BLANK, " ")):
        if len(stem) >= least and stem in wanted:
            return True
    around = {w for w in normalise(blanked.replace(BLANK, " ")).split() if len(w) >= least}
    return any(wanted in word for word in around)


def _clauses(sentence: str) -> list[str]:
    """A sentence cut at its cause/purpose cue into key points (the whole when it cannot be)."""
    least = constructor_parameters().quiz_writer.clause_min_chars
    match = _PURPOSE.search(sentence)
    if match and match.start() > least and len(sentence) - match.end() > least:
        return [sentence[: match.start()].strip(" ,;"), sentence[match.start() :].strip(" .")]
    return [sentence.rstrip(".")]


# A "use X to..." sentence that states no rule: an analogy ("we could use the dot notation to
# write his name"), or one case ("in the case of `print`, we use the parentheses to...").
_HYPOTHETICAL = re.compile(
    r"\b(could|would|might|in the case of|for example|for instance|such as|here)\b", re.I
)


def _use_when(topic: Topic, sents: Sequence[str], terms: set[str]) -> list[QuizItem]:
    """ "Use X when/to ..." where X is a topic term and the sentence states a rule, not one
    case or an analogy: "when would you use X?"."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        match = re.search(
            r"\b(?:use|using)\s+(?:an?\s+|the\s+)?(?P<term>[\w`' -]{2,40}?)\s+(?:when|if|to)\b",
            sentence,
            re.I,
        )
        if (
            match is None
            or not q.use_when_min_words <= len(sentence.split()) <= q.use_when_max_words
            or _HYPOTHETICAL.search(sentence)
        ):
            continue
        term = normalise(match.group("term"))
        if term not in terms:
            continue
        question = f"In {_topic_phrase(topic)}, when would you use {_term(term)}, and what for?"
        items.append(
            _item(
                topic,
                BloomLevel.APPLY,
                "scenario",
                question,
                sentence,
                [sentence.rstrip(".")],
                sentence,
            )
        )
    return items


def _contrasts(topic: Topic, sents: Sequence[str], terms: set[str]) -> list[QuizItem]:
    """ "X ..., whereas Y ..." with two topic terms on either side of the contrast word."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        cue = _CONTRAST.search(sentence)
        if (
            cue is None
            or not q.contrast_min_words <= len(sentence.split()) <= q.contrast_max_words
            or _AN_EXAMPLE.search(sentence)
        ):
            continue
        before = normalise(sentence[: cue.start()])
        after = normalise(sentence[cue.end() :])
        left = [t for t in terms if f" {t} " in f" {before} "]
        right = [t for t in terms if f" {t} " in f" {after} " and t not in left]
        if not left or not right:
            continue
        a, b = max(left, key=len), max(right, key=len)
        if stems_of(a) & stems_of(b):  # "variable" vs "variables" is no contrast
            continue
        a, b = _as_written(a, sentence), _as_written(b, sentence)
        question = f"In {_topic_phrase(topic)}, how does {_term(a)} differ from {_term(b)}?"
        items.append(
            _item(
                topic,
                BloomLevel.ANALYZE,
                "conceptual",
                question,
                sentence,
                [sentence.rstrip(".")],
                sentence,
            )
        )
    return items


# A sentence that walks through an example states no general difference: "In the example
# below, the first two lines are indented with tabs, while the third..."; "A statement such as
# `1 < 0` returns False, while...".
_AN_EXAMPLE = re.compile(
    r"\b(example|such as|e\.g\.|below|above|following|here)\b|`[^`]*\d[^`]*`", re.I
)


def _as_written(term: str, sentence: str) -> str:
    """The term as the sentence spells it ("False", not "false"), when it does."""
    found = re.search(rf"(?<!\w){re.escape(term)}(?!\w)", sentence, re.I)
    return found.group(0) if found else term
