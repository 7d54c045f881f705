"""The offline quiz writer: questions read from the structure of the topic's own text, so every
reference answer is the author's words (or what the author's program printed when run) and
every key point is a clause the sources state. Most items ask why / how / what happens if /
compare / predict / which command; recall is asked at most once per kind a topic:

| asks    | level      | source in the text                          | question                    |
|---------|------------|---------------------------------------------|-----------------------------|
| why     | understand | "<fact> because / so that / in order to     | In <topic>, explain why     |
|         |            | <reason>", "Because <reason>, <fact>",      | <fact>. (key point: reason) |
|         |            | "<reason>, so <fact>"                       |                             |
| why     | understand | a sentence opening with a term X, with a    | What does X do, and why     |
|         |            | purpose or cause cue ("prevents", "lets")   | does it matter?             |
| what_if | understand | "If/When <condition>, <result>", "<result>  | What happens if <condition>?|
|         |            | if <condition>"                             | (advice: what should you do)|
| how     | apply      | a numbered list after "To <goal>:"          | How do you <goal>? List the |
|         |            |                                             | steps in order.             |
| compare | analyze    | X and Y on either side of "whereas",        | How do X and Y differ?      |
|         |            | "unlike", "instead of" (no walk-through)    |                             |
| apply   | apply      | "use X when/to ..." stated as a rule        | What would you use to ...?  |
|         |            |                                             | (choices: X and siblings)   |
| apply   | understand | "X prevents/ensures/lets ..."               | What prevents ...? (choices)|
| predict | apply      | a Python program, RUN in the sandbox        | What does the Python program|
|         |            | (`programs.py`): the output is the run's    | print when it runs?         |
| debug   | apply      | a program the source shows failing          | What goes wrong, and why?   |
| how     | apply      | a program the prose explains (no run)       | What does the program do?   |
| command | understand | a shell command and its comment or sentence | What does `cmd` do?         |
| command | apply      | the same, its comment opening with a verb   | Which command <does it>?    |
|         |            |                                             | (choices: course commands)  |
| define  | remember   | "X is a ..." / "X means ..." (X a term)     | What is X? (choices: the    |
|         |            | at most `definitions_per_topic`             | siblings' definitions)      |
| blank   | remember   | a definition, its term blanked, at most     | Fill in the blank: ...      |
|         |            | `blanks_per_topic`, the term (or its stem)  |                             |
|         |            | nowhere else in the question                |                             |

Every question opens "In <topic>," (it names its subject) and is a whole question, not a
sentence fragment plus "Why?"; a sentence is used only when it stands alone (no "this",
"these", "the above", no lead-in ending with a colon, no exercise instruction). Multiple-choice
forms (`options`, `correct_index`, `why_wrong`) take their distractors from the course itself:
the confusions the text names ("X is not Y", "unlike Y"), the other topics' defined and key
terms (`SiblingTerm`, passed by the pipeline), and the course's other commands; why_wrong is a
sentence of the text about the wrong option (its definition, the contrast), "" where the text
says nothing. A choice item whose right option is the longest by far is left free-answer
(`item_checks.choice_problems`). `write_quiz` drops the candidates that would leak or not
stand alone, then picks understanding items first, one per family in turn, a choice item
first when one could be written, one recall item for every `understanding_per_recall` (2)
understanding items (a topic with none gets one recall item, never nothing), and at least
two Bloom levels when the text allows.

What it cannot do: it does not write evaluate or create questions (it cannot judge
trade-offs), it reads no meaning beyond these sentence shapes (a "why" the text never states
is never asked), and its questions are only as grammatical as its templates. How many items,
and the sentence lengths each template takes, are parameters: `quiz_writer` in
constructor/parameters.yaml. Whichever engine writes a quiz, `item_checks.py` checks it."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel

from tutorgraph.constructor.item_checks import choice_problems, leaks, wording_problems
from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.programs import (
    ProgramQuestion,
    ShellCommand,
    program_questions,
    shell_commands,
)
from tutorgraph.constructor.state import ItemAsks, QuizItem, Topic
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
# ("while" is left out: it is more often "during" than "whereas".)
_CONTRAST = re.compile(r"\b(whereas|unlike|instead of|rather than|but not)\b", re.I)


class SiblingTerm(BaseModel):
    """A term another topic of the course defines or keys on: a plausible wrong choice."""

    term: str
    definition: str = ""  # the sentence of the text that defines it ("" when none does)
    topic: str = ""  # the title of the topic it belongs to


@dataclass(frozen=True)
class TopicMaterial:
    """What the writer needs about one topic: its text, the text of its file before it (the
    programs a program of the topic may build on), the course's other terms and commands (the
    distractors of its choice items), and whether programs may be run in the sandbox."""

    topic: Topic
    text: str
    earlier: str = ""
    siblings: Sequence[SiblingTerm] = ()
    commands: Sequence[ShellCommand] = ()
    run_programs: bool = True


@dataclass
class WrittenQuiz:
    """A topic's items, and what the writer could not ask and why (a program it did not run)."""

    items: list[QuizItem]
    notes: list[str] = field(default_factory=list)


def write_questions(material: TopicMaterial, *, wanted: int | None = None) -> list[QuizItem]:
    """Up to `wanted` (by default `quiz_writer.items_per_topic`) items on one topic."""
    return write_quiz(material, wanted=wanted).items


def write_quiz(material: TopicMaterial, *, wanted: int | None = None) -> WrittenQuiz:
    """A topic's items (see the module docstring), with notes on what was left out."""
    q = constructor_parameters().quiz_writer
    if wanted is None:
        wanted = q.items_per_topic
    topic = material.topic
    prose = lesson_prose(material.text)
    sents = [s for s in sentences(prose) if stands_alone(s)]
    terms = _topic_terms(topic, material.text)
    defined = _defined_terms(sents, terms)
    pool = _distractor_pool(material, sents, terms, defined)
    written = program_questions(
        _topic_phrase(topic), material.text, material.earlier, run=material.run_programs
    )
    programs = [_program_item(topic, p) for p in written.questions]
    understanding = [
        [p for p in programs if p.asks in ("predict", "debug")],
        _commands(topic, material),
        _reasons(topic, sents, prose),
        _conditions(topic, sents, prose),
        _contrasts(topic, sents, terms),
        _procedures(topic, prose),
        _what_does(topic, sents, terms, pool),
        _use_when(topic, sents, terms, pool),
        _purposes(topic, sents, terms),
        [p for p in programs if p.asks == "how"],
    ]
    understanding = [[i for i in family if _fair(i)] for family in understanding]
    recall = [
        *[i for i in _definitions(topic, sents, terms, pool) if _fair(i)][
            : q.definitions_per_topic
        ],
        *[i for i in _blanks(topic, defined, prose) if _fair(i)][: q.blanks_per_topic],
    ]
    chosen = _choose(understanding, recall, wanted)
    chosen.sort(key=lambda item: item.bloom_level.rank)
    items = [
        item.model_copy(update={"item_id": f"{topic.topic_id}-q{i + 1}"})
        for i, item in enumerate(chosen)
    ]
    return WrittenQuiz(items, written.notes)


def _fair(item: QuizItem) -> bool:
    """An item the checks would keep on its wording: it gives no key point away and stands
    alone (`item_checks`)."""
    return not leaks(item) and not wording_problems(item)


def _choose(
    understanding: Sequence[Sequence[QuizItem]], recall: Sequence[QuizItem], wanted: int
) -> list[QuizItem]:
    """Understanding items first, one per family in turn (a choice item first when there is
    one); one recall item for every `quiz_writer.understanding_per_recall` understanding
    items (one when there is no understanding item, so that no topic is left without a
    question); two Bloom levels at least when the candidates have them. One item per source
    passage."""
    ordered = [
        family[i]
        for i in range(max((len(f) for f in understanding), default=0))
        for family in understanding
        if i < len(family)
    ]
    first_choice = next((item for item in ordered if item.options), None)
    if first_choice is not None:  # a choice item first: the tutor's quiz card
        ordered = [first_choice, *(item for item in ordered if item is not first_choice)]
    used: set[str] = set()
    chosen: list[QuizItem] = []
    room = wanted - min(len(recall), 1)
    for item in ordered:
        if len(chosen) < room and item.evidence not in used:
            chosen.append(item)
            used.add(item.evidence)
    allowed = len(chosen) // constructor_parameters().quiz_writer.understanding_per_recall
    allowed = allowed if chosen else 1  # a topic with nothing else is asked what its term is
    for item in recall:
        if len(chosen) < wanted and allowed > 0 and item.evidence not in used:
            chosen.append(item)
            used.add(item.evidence)
            allowed -= 1
    levels = {item.bloom_level for item in chosen}
    if len(levels) == 1 and len(chosen) > 1:
        other = next(
            (
                item
                for item in [*ordered, *recall]
                if item.bloom_level not in levels and item.evidence not in used
            ),
            None,
        )
        if other is not None:
            last = len(chosen) - 1
            if [i for i, item in enumerate(chosen) if item.options] == [last]:
                last -= 1  # keep the only choice item
            chosen[last] = other
    return chosen


def _program_item(topic: Topic, question: ProgramQuestion) -> QuizItem:
    item = _item(
        topic,
        BloomLevel.APPLY,
        question.kind,
        question.question,
        " ".join(question.answer),
        question.answer,
        question.program,
        question.asks,
    )
    return item.model_copy(update={"checks": output_checks(question.answer)})


# A box or heading that opens an exercise, its solution or a hint: what follows answers that
# exercise ("The shape will be (60, 39) because..."), not the topic in general.
_EXERCISE_LABEL = re.compile(
    r"^\s*(?:\*\*|#{1,6}\s+)(?:challenge|exercise|solution|hint|practice|problem)s?\b", re.I
)
_HEADING = re.compile(r"^\s*#{1,6}\s+")


_TRIVIAL = {0.0, 1.0, 2.0, -1.0}


def output_checks(answer: Sequence[str]) -> AnswerChecks | None:
    """Numeric checks for a program question whose run printed numbers: a learner who says
    what the program prints must arrive at them. Each number is matched within half a unit of
    its last written digit; outputs of only trivial numbers (0, 1, 2), or of more than
    `programs.output_check_max_values`, get none."""
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
    marked (bold, defined), its title and the parts of its title ("Parameters and arguments":
    "parameters", "arguments")."""
    terms = {normalise(t) for t in topic.key_terms} | marked_terms(text)
    terms |= {normalise(topic.title)}
    terms |= {normalise(part) for part in re.split(r",|:|&|\band\b", topic.title)}
    return {t for t in terms if t and stems_of(t)}


def _known(term: str, terms: set[str]) -> str | None:
    """The topic term that `term` names, by stems ("return value" names "return values")."""
    wanted = stems_of(term)
    return next((t for t in sorted(terms) if wanted and stems_of(t) == wanted), None)


def _item(
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


def _topic_phrase(topic: Topic) -> str:
    return topic.title.strip().rstrip(".:")


# ---- multiple choice ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Wrong:
    option: str
    why: str  # the text's sentence on why it is not the answer ("" when it says nothing)


def with_choices(item: QuizItem, right: str, wrong: Sequence[_Wrong]) -> QuizItem:
    """The item with a multiple-choice form: `right` among up to `quiz_writer.choice_options -
    1` wrong options, those the text says are wrong first, then those closest to it in length
    (none the same term as the right one, none already in the question), at a position fixed
    by the question's text. The item unchanged when `item_checks.choice_problems` finds the
    form unfair (fewer than `item_checks.choice_min_options` options, the right one longest
    by far...)."""
    q = constructor_parameters().quiz_writer
    right_stems = stems_of(right)
    asked = stems_of(item.text)
    seen: set[str] = set()
    fitting: list[_Wrong] = []
    for candidate in wrong:
        stems = stems_of(candidate.option)
        key = normalise(candidate.option)
        same = stems <= right_stems or right_stems <= stems  # "list" / "lists"
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
    options = [w.option for w in picked]
    why = [w.why for w in picked]
    options.insert(position, right)
    why.insert(position, "")
    chosen = item.model_copy(
        update={"options": options, "correct_index": position, "why_wrong": why}
    )
    return item if choice_problems(chosen) else chosen


def _distractor_pool(
    material: TopicMaterial, sents: Sequence[str], terms: set[str], defined: dict[str, str]
) -> dict[str, list[_Wrong]]:
    """For each term the topic may ask a choice about, its plausible wrong options: first the
    terms the text sets against it ("X is not Y", "unlike Y", "X, whereas Y"), with that
    sentence as why; then the topic's other defined terms and the siblings' defined terms,
    with their definitions as why; then the siblings' other key terms."""
    confusions = _named_confusions(sents, terms)
    others = [_Wrong(term, sentence) for term, sentence in defined.items()]
    siblings = [_Wrong(s.term, s.definition) for s in material.siblings]
    pool: dict[str, list[_Wrong]] = {}
    for term in terms | set(defined):
        named = confusions.get(term, [])
        pool[term] = [*named, *(w for w in others if w.option != term), *siblings]
    pool[""] = [*others, *siblings]
    return pool


_IS_NOT = re.compile(
    r"^(?:an?\s+|the\s+)?(?P<x>[\w`' -]{2,40}?)\s+(?:is|are)\s+not\s+(?:an?\s+|the\s+)?"
    r"(?P<y>[\w`' -]{2,40}?)(?:\b|$)",
    re.I,
)


def _named_confusions(sents: Sequence[str], terms: set[str]) -> dict[str, list[_Wrong]]:
    """term -> the terms the text sets it against, each with that sentence: "a tuple is not
    a list", "unlike a list, a tuple...", "a list ..., whereas a tuple ..."."""
    found: dict[str, list[_Wrong]] = {}
    for sentence in sents:
        pair = _contrast_pair(sentence, terms)
        match = _IS_NOT.match(sentence)
        if pair is None and match is not None:
            x, y = normalise(match.group("x")), normalise(match.group("y"))
            x_term, y_term = _known(x, terms), _known(y, terms)
            pair = (x_term, y_term) if x_term and y_term and x_term != y_term else None
        if pair is None:
            continue
        a, b = pair
        found.setdefault(a, []).append(_Wrong(_as_written(b, sentence), sentence))
        found.setdefault(b, []).append(_Wrong(_as_written(a, sentence), sentence))
    return found


def _contrast_pair(sentence: str, terms: set[str]) -> tuple[str, str] | None:
    """The two terms a sentence contrasts, each the subject its clause opens with: "X ...,
    whereas Y ...", "X ... instead of Y", "Unlike Y, X ..."; None when either clause opens
    with no term of the topic (a walk-through, a variable's name) or both name one term."""
    cue = _CONTRAST.search(sentence)
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


def _definition_match(sentence: str, terms: set[str]) -> re.Match[str] | None:
    """ "X is a ..." / "X means ..." where X is a term of the topic, of a size to ask."""
    q = constructor_parameters().quiz_writer
    match = _IS_A.match(sentence) or _MEANS.match(sentence)
    if (
        match is None
        or definition_of(sentence) is None
        or len(sentence.split()) > q.definition_max_words
        or len(match.group("rest").split()) < q.definition_min_words
        or _POINTS_ELSEWHERE.search(sentence)
    ):
        return None
    return match if _known(match.group("term").strip(" `'"), terms) else None


def _defined_terms(sents: Sequence[str], terms: set[str]) -> dict[str, str]:
    """term -> the sentence of the text that defines it."""
    found: dict[str, str] = {}
    for sentence in sents:
        match = _definition_match(sentence, terms)
        if match is not None:
            found.setdefault(normalise(match.group("term").strip(" `'")), sentence)
    return found


def _definitions(
    topic: Topic, sents: Sequence[str], terms: set[str], pool: dict[str, list[_Wrong]]
) -> list[QuizItem]:
    """ "X is a ..." / "X means ...": "what is X?", with the other terms' definitions as the
    wrong choices when the course defines enough of them."""
    items = []
    for sentence in sents:
        match = _definition_match(sentence, terms)
        if match is None:
            continue
        term = match.group("term").strip(" `'")
        plural = match.group("verb").lower() == "are"
        article = (match.group("article") or "").strip().lower()
        article = "" if plural else ("a" if article in ("a", "an", "") else article)
        if article == "a" and term[:1].lower() in "aeiou":
            article = "an"
        subject = f"{article} {_term(term)}".strip() if not plural else _term(term)
        question = f"In {_topic_phrase(topic)}, what {'are' if plural else 'is'} {subject}?"
        rest = match.group("rest").rstrip(".")
        item = _item(
            topic, BloomLevel.REMEMBER, "conceptual", question, sentence, [rest], sentence, "define"
        )
        wrong = [
            _Wrong(_capital(other.group("rest").rstrip(".")), w.why)
            for w in pool.get(normalise(term), [])
            if (other := _IS_A.match(w.why) or _MEANS.match(w.why)) is not None
            and normalise(other.group("term").strip(" `'")) == normalise(w.option)
        ]
        items.append(with_choices(item, _capital(rest), wrong))
    return items


BLANK = "_____"


def _blanks(topic: Topic, defined: dict[str, str], prose: str) -> list[QuizItem]:
    """A term the text defines, blanked out of its definition ("_____ is a program that reads
    commands"): only a concept the topic keeps coming back to (a word named
    `quiz_writer.blank_min_mentions` times, a term of several words `phrase_min_mentions`
    times, of `concept_min_chars` characters at least), in a definition of `blank_min_words` to
    `blank_max_words` words, and only when neither the term nor a word sharing its stem is
    left in the question."""
    q = constructor_parameters().quiz_writer
    said = f" {normalise(prose)} "
    items = []
    for term, sentence in defined.items():
        least = q.blank_min_mentions if " " not in term else q.phrase_min_mentions
        if (
            len(term) < q.concept_min_chars
            or said.count(f" {term} ") < least
            or not q.blank_min_words <= len(sentence.split()) <= q.blank_max_words
        ):
            continue
        written = re.search(rf"(?<!\w){re.escape(term)}(?!\w)", sentence, re.I)
        if written is None:
            continue
        blanked = sentence[: written.start()] + BLANK + sentence[written.end() :]
        if stems_of(term) & stems_of(blanked) or _gives_away(term, blanked):
            continue
        question = f"In {_topic_phrase(topic)}, fill in the blank: {blanked}"
        items.append(
            _item(
                topic,
                BloomLevel.REMEMBER,
                "conceptual",
                question,
                sentence,
                [written.group(0)],
                sentence,
                "blank",
            )
        )
    return items


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


def _term(term: str) -> str:
    return f"`{term}`" if re.search(r"[_()\[\].]|^[a-z]+[A-Z]", term) else term


def _plural(written: str) -> bool:
    """A term written as a plural ("double quotes"), for the verb that follows it."""
    last = written.split()[-1] if written.split() else ""
    return "`" not in written and last.endswith("s") and not last.endswith(("ss", "us", "is"))


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


# ---- why ----------------------------------------------------------------------------------------

# A sentence that points at something it does not show ("pitfalls like this", "these values")
# cannot be understood on its own in a quiz.
_POINTS_ELSEWHERE = re.compile(
    r"\b(this|these|those|like that|such|on the other hand|above|below|following|here)\b", re.I
)

# "<fact> because <reason>" / "<fact> so that <purpose>": the fact is stated, the reason asked.
_REASON = re.compile(r",?\s+\b(because|as a result of|due to)\b\s+", re.I)
_AIM = re.compile(
    r",?\s+\b(so that|in order to|to make sure|to ensure|to prevent|to avoid|to stop)\b\s+",
    re.I,
)
_LEADING_REASON = re.compile(r"^because\s+(?P<reason>[^,]{10,}),\s+(?P<fact>.+)$", re.I)
# "<cause>, so <consequence>" (not "so that"): the consequence is asked, up to ", which ...".
_CONSEQUENCE = re.compile(
    r"^(?P<reason>[^,;:]{10,}),\s+so\s+(?!that\b)(?P<fact>[^,;:]+?)(?:,\s*which\b.*)?\.?$", re.I
)
# A fact that needs the sentence before it ("It...", "This...") is not asked...
_NEEDS_CONTEXT = re.compile(
    r"^(it|this|that|these|those|they|he|she|here|there)\b"
    # ...or is no statement but the condition of one: "Once we start putting things in
    # functions so that we can re-use them, we need to..."
    r"|^(once|when|whenever|if|as|since|while|after|before|although|though|unless|until)\b",
    re.I,
)


_PRONOUN = re.compile(r"\b(it|its|they|them|their)\b", re.I)
_POSSESSIVE = re.compile(r"\b(its|they|them|their)\b", re.I)


def _reasons(topic: Topic, sents: Sequence[str], prose: str) -> list[QuizItem]:
    """A sentence that states a fact and its reason or purpose ("The side that closes first
    waits in TIME_WAIT ... so that delayed segments cannot be mistaken for a new one"): "In
    <topic>, explain why <fact>."; the key point is the reason, in the source's words."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        size = len(sentence.split())
        if (
            not q.reason_sentence_min_words <= size <= q.reason_sentence_max_words
            or _AN_EXAMPLE.search(sentence)
            or _POINTS_ELSEWHERE.search(sentence)  # "because of pitfalls like this"
        ):
            continue
        leading = _LEADING_REASON.match(sentence) or _CONSEQUENCE.match(sentence)
        for cue in (_REASON, _AIM):
            match = cue.search(sentence)
            if leading is not None and cue is _REASON:  # "Because X, Y" / "X, so Y": Y, because X
                fact = leading.group("fact").strip(" .;")
                reason = _lower_first(leading.group("reason"), prose)
                # the key point as the sentence says it: "because X" / "X" (before ", so")
                cue_word = "because" if sentence.lower().startswith("because") else ""
            elif match is not None:
                fact = sentence[: match.start()].strip(" ,;")
                reason, cue_word = sentence[match.end() :].strip(" .;"), match.group(1).lower()
            else:
                continue
            if (
                len(fact.split()) < q.fact_min_words
                or len(reason.split()) < q.reason_min_words
                or _NEEDS_CONTEXT.match(fact)
                # "Because segments arrive out of order, the receiver buffers them": "them" is
                # in the reason, which the question does not say
                or (leading is not None and _PRONOUN.search(fact))
                or _POSSESSIVE.search(fact)  # "reading its output": whose, the question lacks
                or "`" in fact  # "you assign one with `name=value`": code facts need their lead
                or not re.search(r"[\w)\"']$", fact)  # "... i.e." / "... enough:" cut short
                or re.search(r"\b(i\.e|e\.g)\.?$", fact)
            ):
                break
            question = f"In {_topic_phrase(topic)}, explain why {_lower_first(fact, prose)}."
            items.append(
                _item(
                    topic,
                    BloomLevel.UNDERSTAND,
                    "conceptual",
                    question,
                    sentence,
                    [f"{cue_word} {reason}".strip()],
                    sentence,
                    "why",
                )
            )
            break
    return items


def _lower_first(clause: str, prose: str) -> str:
    """The clause to go inside a question: its first letter in lower case unless its first
    word is a name (written with a capital inside a sentence of the text too), an acronym or
    code."""
    first = clause.split(" ", 1)[0]
    if (
        not first[:1].isupper()
        or (first.isupper() and len(first) > 1)  # "HTTP", not "A"
        or re.search(r"[A-Z]", first[1:])
        or re.search(rf"[a-z,;:] {re.escape(first)}\b", prose)
    ):
        return clause
    return clause[:1].lower() + clause[1:]


def _purposes(topic: Topic, sents: Sequence[str], terms: set[str]) -> list[QuizItem]:
    """A sentence that opens with a term and says what it is for or why: "what does X do, and
    why does it matter?"."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        size = len(sentence.split())
        if (
            not _PURPOSE.search(sentence)
            or not q.purpose_min_words <= size <= q.purpose_max_words
            or _POINTS_ELSEWHERE.search(sentence)
        ):
            continue
        term = _subject_term(sentence, terms)
        if term is None or definition_of(sentence) is not None:
            continue
        written = _lower_first(_as_said(term, sentence), " ".join(sents))
        does = "do" if _plural(written) else "does"
        question = (
            f"In {_topic_phrase(topic)}, what {does} {_term(written)} do, and why does it matter?"
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
                "why",
            )
        )
    return items


def _subject_term(sentence: str, terms: set[str]) -> str | None:
    """The topic term the sentence is about: the one it opens with (after an article)."""
    opening = normalise(re.sub(r"^(an?|the)\s+", "", sentence.strip(), flags=re.I))
    best = None
    for term in terms:
        if term and opening.startswith(term + " ") and (best is None or len(term) > len(best)):
            best = term
    return best


def _clauses(sentence: str) -> list[str]:
    """A sentence cut at its cause/purpose cue into key points (the whole when it cannot be)."""
    least = constructor_parameters().quiz_writer.clause_min_chars
    match = _PURPOSE.search(sentence)
    if match and match.start() > least and len(sentence) - match.end() > least:
        return [sentence[: match.start()].strip(" ,;"), sentence[match.start() :].strip(" .")]
    return [sentence.rstrip(".")]


# "X prevents / ensures / lets ...": what does the job is the answer, among the course's terms.
_DOES = re.compile(
    r"^(?:an?\s+|the\s+)?(?P<term>[\w`' -]{2,40}?)\s+"
    r"(?P<verb>(?:prevent|ensure|guarantee|allow|let|enable|avoid|stop|protect|keep)s?)\s+"
    r"(?P<rest>.{8,}?)\.?$",
    re.I,
)


def _what_does(
    topic: Topic, sents: Sequence[str], terms: set[str], pool: dict[str, list[_Wrong]]
) -> list[QuizItem]:
    """ "Double quotes prevent word splitting": "In <topic>, what prevents word splitting?"
    with the term as the answer and the course's other terms as the wrong choices."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        match = _DOES.match(sentence)
        if (
            match is None
            or not q.purpose_min_words <= len(sentence.split()) <= q.purpose_max_words
            or _POINTS_ELSEWHERE.search(sentence)
        ):
            continue
        known = _known(match.group("term").strip(" `'"), terms)
        if known is None:
            continue
        term = known
        right = match.group("term").strip()
        question = (
            f"In {_topic_phrase(topic)}, what {match.group('verb').lower().rstrip('s')}s "
            f"{match.group('rest').rstrip('.')}?"
        )
        item = _item(
            topic, BloomLevel.UNDERSTAND, "scenario", question, sentence, [right], sentence, "apply"
        )
        chosen = with_choices(item, right, pool.get(term, []))
        if chosen.options:  # as a free answer the question is a riddle: choices only
            items.append(chosen)
    return items


# ---- what happens if ----------------------------------------------------------------------------

_CONDITION_FIRST = re.compile(
    r"^(?P<cue>if|when|whenever)\s+(?P<condition>[^,;]{6,160}?),\s+(?:then\s+)?"
    r"(?P<result>[^;]+?)(?:;.*)?\.?$",
    re.I,
)
_CONDITION_LAST = re.compile(
    r"^(?P<result>[^,;]{12,}?)\s+(?P<cue>if|when|whenever)\s+(?P<condition>[^,;]{6,}?)\.?$",
    re.I,
)
# A result that is advice ("..., you should quote it", "..., use single quotes").
_ADVICE = re.compile(
    r"^(you (should|must|need to|have to|can)|use|add|put|write|run|quote|call|keep|set|pass|"
    r"avoid|choose|type)\b",
    re.I,
)


def _conditions(topic: Topic, sents: Sequence[str], prose: str) -> list[QuizItem]:
    """ "If <condition>, <result>" / "<result> if <condition>": "In <topic>, what happens if
    <condition>?" (or "what should you do if ...?" when the result is advice); the result is
    the key point."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        match = _CONDITION_FIRST.match(sentence) or _CONDITION_LAST.match(sentence)
        if (
            match is None
            or not q.condition_min_words <= len(sentence.split()) <= q.condition_max_words
            or _POINTS_ELSEWHERE.search(sentence)
            or _AN_EXAMPLE.search(sentence)
        ):
            continue
        condition = match.group("condition").strip()
        result = match.group("result").strip(" .")
        if (
            len(result.split()) < q.fact_min_words
            or re.match(r"^(it|they|this|that|these|those|he|she)\b", condition, re.I)
            or "?" in sentence
        ):
            continue
        cue = match.group("cue").lower()
        advice = _ADVICE.match(result) is not None
        asked = "what should you do" if advice else "what happens"
        question = f"In {_topic_phrase(topic)}, {asked} {cue} {_lower_first(condition, prose)}?"
        items.append(
            _item(
                topic,
                BloomLevel.APPLY if advice else BloomLevel.UNDERSTAND,
                "scenario",
                question,
                sentence,
                [_capital(result)],
                sentence,
                "apply" if advice else "what_if",
            )
        )
    return items


# ---- how: procedures ----------------------------------------------------------------------------

_STEP = re.compile(r"^\s*\d+[.)]\s+(?P<step>\S.*)$")
_GOAL = re.compile(r"\bto (?P<goal>[a-z][^:,.]{3,80}?)\s*[,:]", re.I)


def _procedures(topic: Topic, prose: str) -> list[QuizItem]:
    """A numbered list right after a lead-in that names its goal ("To run a script:", "Follow
    these steps to publish a page:"): "In <topic>, how do you <goal>? List the steps in
    order."; each step is a key point."""
    q = constructor_parameters().quiz_writer
    items = []
    lines = prose.splitlines()
    index = 0
    while index < len(lines):
        if not _STEP.match(lines[index]):
            index += 1
            continue
        start = index
        steps: list[str] = []
        while index < len(lines) and (_STEP.match(lines[index]) or not lines[index].strip()):
            step = _STEP.match(lines[index])
            if step:
                steps.append(_plain(step.group("step")))
            index += 1
        lead = next((line.strip() for line in reversed(lines[:start]) if line.strip()), "")
        goal = _GOAL.search(lead) if lead.endswith(":") else None
        if goal is None or not q.procedure_min_steps <= len(steps) <= q.procedure_max_steps:
            continue
        what = goal.group("goal").strip()
        if _POINTS_ELSEWHERE.search(what) or len(what.split()) < q.fact_min_words:
            continue
        question = f"In {_topic_phrase(topic)}, how do you {what}? List the steps in order."
        answer = " ".join(f"{n}. {step}" for n, step in enumerate(steps, start=1))
        evidence = "\n".join([lead, *(line for line in lines[start:index] if line.strip())])
        items.append(
            _item(topic, BloomLevel.APPLY, "scenario", question, answer, steps, evidence, "how")
        )
    return items


def _plain(text: str) -> str:
    """A list item without emphasis marks, as a sentence."""
    text = re.sub(r"\*\*|__", "", text).strip()
    return _capital(text) if text.endswith((".", "!", "?")) else _capital(text) + "."


# ---- apply and compare --------------------------------------------------------------------------

# A "use X to..." sentence that states no rule: an analogy ("we could use the dot notation to
# write his name"), or one case ("in the case of `print`, we use the parentheses to...").
_HYPOTHETICAL = re.compile(
    r"\b(could|would|might|in the case of|for example|for instance|such as|here)\b", re.I
)
_USE = re.compile(
    r"\b(?:use|using)\s+(?:an?\s+|the\s+)?(?P<term>[\w`' -]{2,40}?)\s+(?P<cue>when|if|to)\s+"
    r"(?P<job>[^;]{8,}?)\.?$",
    re.I,
)


def _use_when(
    topic: Topic, sents: Sequence[str], terms: set[str], pool: dict[str, list[_Wrong]]
) -> list[QuizItem]:
    """ "Use X when/to ..." where X is a topic term and the sentence states a rule, not one
    case or an analogy: "In <topic>, what would you use when ...?" with X among the course's
    other terms as choices; "when would you use X, and what for?" when there are too few."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        match = _USE.search(sentence)
        if (
            match is None
            or not q.use_when_min_words <= len(sentence.split()) <= q.use_when_max_words
            or _HYPOTHETICAL.search(sentence)
            or _POINTS_ELSEWHERE.search(sentence)
        ):
            continue
        known = _known(match.group("term"), terms)
        if known is None:
            continue
        term = known
        right = _as_written(term, sentence)
        job = f"{match.group('cue').lower()} {match.group('job').rstrip('.')}"
        question = f"In {_topic_phrase(topic)}, what would you use {job}?"
        item = _item(
            topic, BloomLevel.APPLY, "scenario", question, sentence, [right], sentence, "apply"
        )
        chosen = with_choices(item, right, pool.get(term, []))
        if not chosen.options:
            question = (
                f"In {_topic_phrase(topic)}, when would you use {_term(right)}, and what for?"
            )
            chosen = item.model_copy(
                update={"text": question, "key_points": [sentence.rstrip(".")]}
            )
        items.append(chosen)
    return items


def _contrasts(topic: Topic, sents: Sequence[str], terms: set[str]) -> list[QuizItem]:
    """ "X ..., whereas Y ..." / "Unlike Y, X ..." with two topic terms on either side of the
    contrast: "how does X differ from Y?"."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        if not q.contrast_min_words <= len(
            sentence.split()
        ) <= q.contrast_max_words or _AN_EXAMPLE.search(sentence):
            continue
        pair = _contrast_pair(sentence, terms)
        if pair is None:
            continue
        a, b = (_lower_first(_as_said(t, sentence), " ".join(sents)) for t in pair)
        question = f"In {_topic_phrase(topic)}, how do {_term(a)} and {_term(b)} differ?"
        items.append(
            _item(
                topic,
                BloomLevel.ANALYZE,
                "conceptual",
                question,
                sentence,
                [sentence.rstrip(".")],
                sentence,
                "compare",
            )
        )
    return items


# A sentence that walks through an example states no general difference: "In the example
# below, the first two lines are indented with tabs, while the third..."; "A statement such as
# `1 < 0` returns False, while...".
_AN_EXAMPLE = re.compile(
    r"\b(example|such as|e\.g\.|below|above|following|here)\b|`[^`]*\d[^`]*`", re.I
)


def _as_said(term: str, sentence: str) -> str:
    """The term as the sentence says it, with its article ("a detached HEAD")."""
    written = _as_written(term, sentence)
    found = re.search(rf"\b(?:an?|the)\s+{re.escape(written)}(?!\w)", sentence, re.I)
    return found.group(0) if found else written


def _as_written(term: str, sentence: str) -> str:
    """The term as the sentence spells it ("False", not "false"; "Lists" for "list"), when it
    does."""
    found = re.search(rf"(?<!\w){re.escape(term)}(?:e?s)?(?!\w)", sentence, re.I)
    return found.group(0) if found else term


# ---- commands -----------------------------------------------------------------------------------


def _commands(topic: Topic, material: TopicMaterial) -> list[QuizItem]:
    """Each explained shell command of the topic: "Which command <does its job>?" with the
    course's other commands as choices, when its explanation says the job with a verb and
    there are enough of them; else "What does `cmd` do?" answered by its explanation."""
    own = shell_commands(lesson_prose(material.text))
    known = {c.command for c in own}
    others = [*own, *(c for c in material.commands if c.command not in known)]
    items = []
    for command in own:
        wrong = [
            _Wrong(f"`{c.command}`", f"`{c.command}`: {c.explanation}")
            for c in others
            if c.command != command.command
        ]
        if command.job:
            question = f"In {_topic_phrase(topic)}, which command {command.job.rstrip('.')}?"
            item = _item(
                topic,
                BloomLevel.APPLY,
                "scenario",
                question,
                f"`{command.command}`: {command.explanation}",
                [f"`{command.command}`"],
                command.source,
                "command",
            )
            chosen = with_choices(item, f"`{command.command}`", wrong)
            if chosen.options:
                items.append(chosen)
                continue
        question = f"In {_topic_phrase(topic)}, what does the command `{command.command}` do?"
        items.append(
            _item(
                topic,
                BloomLevel.UNDERSTAND,
                "conceptual",
                question,
                command.explanation,
                [command.explanation.rstrip(".")],
                command.source,
                "command",
            )
        )
    return items


# ---- the course's vocabulary --------------------------------------------------------------------


def topic_vocabulary(topic: Topic, text: str) -> list[SiblingTerm]:
    """The terms a topic gives the rest of the course as wrong options: those its text
    defines (with the defining sentence), then its key terms."""
    terms = _topic_terms(topic, text)
    sents = [s for s in sentences(lesson_prose(text)) if stands_alone(s)]
    found = {
        term: SiblingTerm(term=term, definition=sentence, topic=topic.title)
        for term, sentence in _defined_terms(sents, terms).items()
    }
    for term in topic.key_terms:
        found.setdefault(normalise(term), SiblingTerm(term=term, topic=topic.title))
    return [t for key, t in found.items() if key]


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


def course_commands(texts: Sequence[str]) -> list[ShellCommand]:
    """The explained shell commands of the course's texts: the wrong choices of a "which
    command" item."""
    seen: set[str] = set()
    found = []
    for text in texts:
        for command in shell_commands(lesson_prose(text)):
            if command.command not in seen:
                seen.add(command.command)
                found.append(command)
    return found
