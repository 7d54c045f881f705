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
| compare | analyze    | "X is / works like Y, but <difference>"     | How does X differ from Y?   |
| how     | understand | "<X> returns / stores / removes ... <obj>", | What does X return?         |
|         |            | X a term, code or "a/the/every <noun>"      | (key points: the object)    |
| compare | analyze    | two such sentences on different subjects,   | How do X and Y differ in    |
|         |            | within `support_window` sentences           | what they do?               |
| how     | understand | "We/You can <act> by <doing>"               | How can you <act>?          |
| how     | apply      | "To <goal>, <instruction>"                  | How do you <goal>?          |
| apply   | apply      | "use X when/to ..." stated as a rule        | What would you use to ...?  |
|         |            |                                             | (choices: X and siblings)   |
| apply   | understand | "X prevents/ensures/lets ..."               | What prevents ...? (choices)|
| apply   | apply      | "<term or code> <verb>s <object>" (any      | What cooks <object>?        |
|         |            | verb), the term among the course's terms    | (choices: sibling terms)    |
| predict | apply      | a Python program, RUN in the sandbox        | What does the Python program|
|         |            | (`programs.py`): the output is the run's    | print when it runs?         |
| debug   | apply      | a program the source shows failing          | What goes wrong, and why?   |
| how     | apply      | a program the prose explains (no run)       | What does the program do?   |
| command | understand | a shell command and its comment or sentence | What does `cmd` do?         |
| command | apply      | the same, its comment opening with a verb   | Which command <does it>?    |
|         |            |                                             | (choices: course commands)  |
| command | understand | a ```sql query and the sentence before it   | What does the query `q` do? |
| command | apply      | the same, saying "we want (to) ..."         | Which query <does it>?      |
|         |            |                                             | (choices: course queries)   |
| predict | apply      | an IPython cell (`In [n]:`), RUN with the   | What does the IPython cell  |
|         |            | file's earlier cells it needs               | show when it runs?          |
| define  | remember   | "X is a ..." / "X means ..." (X a term)     | What is X? (choices: the    |
|         |            | at most `definitions_per_topic`             | siblings' definitions)      |
| blank   | remember   | a definition, its term blanked, at most     | Fill in the blank: ...      |
|         |            | `blanks_per_topic`, the term (or its stem)  |                             |
|         |            | nowhere else in the question                |                             |

Key points are the answer's separate ideas (`text.ideas`: cut at "; ", ", and ", ", so ",
", but ", " because ", ", whereas " where each side is a clause of its own, never
inside a series "a, b, and c"), each a slice of the reference answer, so a partial answer earns
partial credit. A topic of `readiness.substantial_topic_words` that the understanding templates
leave short of `readiness.min_items_per_topic` items takes recall items up to that number (still
at most one "what is X?" and one blank). The same question is never asked twice.

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
two Bloom levels when the text allows: when every chosen item is at one level and no other
sentence gives another, a chosen sentence read by `_term_jobs` is asked the other way round
("what does the grill station cook?" for "what cooks the steaks?"), one item a sentence still.

Recall padding (issue 36, fourth pass): a topic of 150+ words still short of
`readiness.min_items_per_topic` items, or of a second Bloom level, after all of the above takes
recall items read from its plain statements (`_recall_facts`: "<subject> <verb>s <object>.",
"<subject> can <verb> <object>.", "<plural subject> <verb> <object>."; the subject an article
and a noun phrase, code, a name or a course term, never a pronoun; no "is"/"has"/"becomes";
no object pointing outside its sentence): "what <verb>s <object>?" answered by the subject,
or "what does <subject> <verb>?" answered by the object, no more than needed, one a sentence
(`_padded`). A topic whose only readable sentences are such statements has two of them set
side by side first ("how do X and Y differ in what they do?", analyze: `_fact_pairs`).

Conditions are not asked when they run into a clause of their own ("when errors occur
exceptions can be raised": a modal after the condition's third word) or state the reader's
situation ("when you're just getting started"), unless what follows is advice; "what is X?"
takes no article when the text writes X without one and capitalised ("what is English?").

What it cannot do: it does not write evaluate or create questions (it cannot judge
trade-offs), it reads no meaning beyond these sentence shapes (a "why" the text never states
is never asked), and its questions are only as grammatical as its templates. How many items,
and the sentence lengths each template takes, are parameters: `quiz_writer` in
constructor/parameters.yaml. Whichever engine writes a quiz, `item_checks.py` checks it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from tutorgraph.constructor.choices import (
    IS_A,
    MEANS,
    SiblingTerm,
    Wrong,
    as_written,
    capital,
    code_term,
    contrast_pair,
    defined_terms,
    definition_match,
    distractor_pool,
    known_term,
    new_item,
    sibling_terms,
    topic_phrase,
    topic_terms,
    topic_vocabulary,
    with_choices,
)
from tutorgraph.constructor.commands import ShellCommand, command_items, course_commands
from tutorgraph.constructor.item_checks import leaks, wording_problems
from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.programs import ProgramQuestion, program_questions
from tutorgraph.constructor.state import QuizItem, Topic
from tutorgraph.constructor.text import (
    POINTS_ELSEWHERE,
    definition_of,
    ideas,
    lesson_prose,
    sentences,
    stands_alone,
    stems_of,
)
from tutorgraph.grading.checks.numbers import read_numbers
from tutorgraph.grading.checks.spec import AnswerChecks, NumberCheck
from tutorgraph.knowledge.bloom import BloomLevel
from tutorgraph.text.tokens import normalise

# Kept importable from here: the pipeline and the agents read the vocabulary and commands
# through this module.
__all__ = [
    "ShellCommand",
    "SiblingTerm",
    "TopicMaterial",
    "WrittenQuiz",
    "course_commands",
    "lesson_prose",
    "output_checks",
    "sibling_terms",
    "topic_vocabulary",
    "write_questions",
    "write_quiz",
]

_PURPOSE = re.compile(
    r"\b(because|so that|in order to|allows?|lets|enables?|prevents?|ensures?|avoids?|"
    r"which means|this means|the reason|helps?|makes it possible)\b",
    re.I,
)


# ("while" is left out: it is more often "during" than "whereas".)
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
    terms = topic_terms(topic, material.text)
    defined = defined_terms(sents, terms)
    pool = distractor_pool(material.siblings, sents, terms, defined)
    written = program_questions(
        topic_phrase(topic), material.text, material.earlier, run=material.run_programs
    )
    programs = [_program_item(topic, p) for p in written.questions]
    jobs = _term_jobs(topic, sents, terms | {normalise(s.term) for s in material.siblings}, pool)
    understanding = [
        [p for p in programs if p.asks in ("predict", "debug")],
        command_items(topic, material.text, material.commands),
        _reasons(topic, sents, prose),
        _conditions(topic, sents, prose),
        _contrasts(topic, sents, terms),
        _likenesses(topic, sents, prose),
        _procedures(topic, prose),
        _means(topic, sents, prose),
        _what_does(topic, sents, terms, pool),
        _use_when(topic, sents, terms, pool),
        _purposes(topic, sents, terms),
        effects := _effects(
            topic, sents, terms | {normalise(s.term) for s in material.siblings}, prose
        ),
        _effect_pairs(topic, effects, sents),
        [j for j in jobs if j.evidence not in {e.evidence for e in effects}],
        [p for p in programs if p.asks == "how"],
    ]
    understanding = [[i for i in family if _fair(i)] for family in understanding]
    understanding = _once_each(understanding)
    recall = [
        *[i for i in _definitions(topic, sents, terms, pool) if _fair(i)][
            : q.definitions_per_topic
        ],
        *[i for i in _blanks(topic, defined, prose) if _fair(i)][: q.blanks_per_topic],
    ]
    # the same sentences asked the other way ("what does X remove?" / "what removes ...?"): a
    # second Bloom level for a topic whose items are all at one
    known = terms | {normalise(s.term) for s in material.siblings}
    alternates = [i for i in [*jobs, *_what_they_do(topic, sents, known, prose)] if _fair(i)]
    facts = [i for i in _recall_facts(topic, sents, prose, known) if _fair(i)]
    if _needed(topic, prose) > 1 and not any(understanding):
        # plain statements are all the topic has: two of them set side by side (analyze)
        understanding = [[i for i in _fact_pairs(topic, facts, sents) if _fair(i)]]
    chosen = _choose(understanding, recall, wanted, _needed(topic, prose), alternates)
    chosen = _padded(chosen, facts, wanted, _needed(topic, prose))
    chosen.sort(key=lambda item: item.bloom_level.rank)
    items = [
        item.model_copy(update={"item_id": f"{topic.topic_id}-q{i + 1}"})
        for i, item in enumerate(chosen)
    ]
    return WrittenQuiz(items, written.notes)


def _once_each(families: Sequence[Sequence[QuizItem]]) -> list[list[QuizItem]]:
    """The families without a question asked twice (two sentences saying what `os.path`
    contains ask the same question): the first is kept."""
    asked: set[str] = set()
    kept: list[list[QuizItem]] = []
    for family in families:
        kept.append([])
        for item in family:
            if item.text not in asked:
                asked.add(item.text)
                kept[-1].append(item)
    return kept


def _fair(item: QuizItem) -> bool:
    """An item the checks would keep on its wording: it gives no key point away and stands
    alone (`item_checks`)."""
    return not leaks(item) and not wording_problems(item)


def _needed(topic: Topic, prose: str) -> int:
    """The items the readiness report asks of the topic: `readiness.min_items_per_topic` for a
    topic of `substantial_topic_words` or more, one otherwise."""
    r = constructor_parameters().readiness
    words = topic.words or len(prose.split())
    return r.min_items_per_topic if words >= r.substantial_topic_words else 1


def _choose(
    understanding: Sequence[Sequence[QuizItem]],
    recall: Sequence[QuizItem],
    wanted: int,
    needed: int = 1,
    alternates: Sequence[QuizItem] = (),
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
    # a topic short of the items it needs is asked recall (at most one of each kind) too
    allowed = max(allowed, min(needed, wanted) - len(chosen))
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
        else:  # a chosen sentence asked the other way, at another level
            swap = [
                (i, a)
                for i, item in enumerate(chosen)
                for a in alternates
                if a.evidence == item.evidence and a.bloom_level not in levels
            ]
            if swap:
                position, other = swap[-1]
                chosen[position] = other
    return chosen


def _fact_pairs(topic: Topic, facts: Sequence[QuizItem], sents: Sequence[str]) -> list[QuizItem]:
    """Plain statements about different subjects set side by side, each sentence in one pair at
    most (`_effect_pairs` on the "what does X <verb>?" forms of `_recall_facts`): "In <topic>,
    how do the head baker and the apprentice differ in what they do?" (analyze)."""
    objects = [f for f in facts if re.search(r", what (?:does|do) ", f.text)]
    pairs: list[QuizItem] = []
    start = 0
    while start < len(objects) - 1:
        found = _effect_pairs(topic, objects[start : start + 2], sents)
        if found and not {f.evidence for f in objects[start : start + 2]} & {
            p.evidence for p in pairs
        }:
            pairs.extend(found)
            start += 2
        else:
            start += 1
    return pairs


def _padded(
    chosen: list[QuizItem], facts: Sequence[QuizItem], wanted: int, needed: int
) -> list[QuizItem]:
    """A topic of 150+ words (`needed` > 1) still short of `needed` items or of a second Bloom
    level takes recall items read from its plain statements (`_recall_facts`), no more than
    that: one a sentence, none on a sentence already asked."""
    if needed <= 1:
        return chosen
    chosen = list(chosen)
    asked = {item.text for item in chosen}
    spare = [
        f
        for f in facts
        if f.text not in asked and not any(f.evidence in item.evidence for item in chosen)
    ]

    def take() -> QuizItem | None:
        if not spare:
            return None
        item = spare.pop(0)
        spare[:] = [f for f in spare if f.evidence != item.evidence]
        return item

    while len(chosen) < min(needed, wanted):
        item = take()
        if item is None:
            return chosen
        chosen.append(item)
    if len({item.bloom_level for item in chosen}) == 1 and chosen[0].bloom_level != (
        BloomLevel.REMEMBER
    ):
        item = take()
        if item is not None:
            if len(chosen) < wanted:
                chosen.append(item)
            else:
                plain = [i for i, c in enumerate(chosen) if not c.options]
                chosen[plain[-1] if plain else len(chosen) - 1] = item
    return chosen


def _program_item(topic: Topic, question: ProgramQuestion) -> QuizItem:
    item = new_item(
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


def _definitions(
    topic: Topic, sents: Sequence[str], terms: set[str], pool: dict[str, list[Wrong]]
) -> list[QuizItem]:
    """ "X is a ..." / "X means ...": "what is X?", with the other terms' definitions as the
    wrong choices when the course defines enough of them."""
    items = []
    for sentence in sents:
        match = definition_match(sentence, terms)
        if match is None:
            continue
        term = match.group("term").strip(" `'")
        plural = match.group("verb").lower() == "are"
        article = (match.group("article") or "").strip().lower()
        if plural:
            article = ""
        elif not article:  # "English is ...": a proper name takes no article
            article = "" if term[:1].isupper() else "a"
        elif article == "an":
            article = "a"
        if article == "a" and term[:1].lower() in "aeiou":
            article = "an"
        subject = f"{article} {code_term(term)}".strip() if not plural else code_term(term)
        question = f"In {topic_phrase(topic)}, what {'are' if plural else 'is'} {subject}?"
        rest = match.group("rest").rstrip(".")
        item = new_item(
            topic, BloomLevel.REMEMBER, "conceptual", question, sentence, [rest], sentence, "define"
        )
        wrong = [
            Wrong(capital(other.group("rest").rstrip(".")), w.why)
            for w in pool.get(normalise(term), [])
            if (other := IS_A.match(w.why) or MEANS.match(w.why)) is not None
            and normalise(other.group("term").strip(" `'")) == normalise(w.option)
        ]
        items.append(with_choices(item, capital(rest), wrong))
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
        question = f"In {topic_phrase(topic)}, fill in the blank: {blanked}"
        items.append(
            new_item(
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


def _plural(written: str) -> bool:
    """A term written as a plural ("double quotes"), for the verb that follows it."""
    last = written.split()[-1] if written.split() else ""
    return "`" not in written and last.endswith("s") and not last.endswith(("ss", "us", "is"))


# ---- why ----------------------------------------------------------------------------------------

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
            or POINTS_ELSEWHERE.search(sentence)  # "because of pitfalls like this"
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
            question = f"In {topic_phrase(topic)}, explain why {_lower_first(fact, prose)}."
            items.append(
                new_item(
                    topic,
                    BloomLevel.UNDERSTAND,
                    "conceptual",
                    question,
                    sentence,
                    ideas(f"{cue_word} {reason}".strip()),
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
            or POINTS_ELSEWHERE.search(sentence)
        ):
            continue
        term = _subject_term(sentence, terms)
        if term is None or definition_of(sentence) is not None:
            continue
        written = _lower_first(_as_said(term, sentence), " ".join(sents))
        does = "do" if _plural(written) else "does"
        subject = code_term(written)
        question = f"In {topic_phrase(topic)}, what {does} {subject} do, and why does it matter?"
        items.append(
            new_item(
                topic,
                BloomLevel.UNDERSTAND,
                "conceptual",
                question,
                sentence,
                [idea for clause in _clauses(sentence) for idea in ideas(clause)],
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
    topic: Topic, sents: Sequence[str], terms: set[str], pool: dict[str, list[Wrong]]
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
            or POINTS_ELSEWHERE.search(sentence)
        ):
            continue
        known = known_term(match.group("term").strip(" `'"), terms)
        if known is None:
            continue
        term = known
        right = match.group("term").strip()
        question = (
            f"In {topic_phrase(topic)}, what {match.group('verb').lower().rstrip('s')}s "
            f"{match.group('rest').rstrip('.')}?"
        )
        item = new_item(
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


# A condition that runs into a clause of its own ("when errors occur exceptions can be raised":
# the comma after the condition is missing), read as a modal verb after its third word.
_SECOND_CLAUSE = re.compile(
    r"^(?:\S+\s+){3,}(?:can|could|will|would|must|should|may|might|cannot)\b", re.I
)
# The reader's situation, not an event of the subject ("when you're just getting started"): what
# follows is no consequence a learner could reason out, unless it is advice.
_READERS_STATE = re.compile(r"^(?:you|we)(?:'re|’re| are)\b", re.I)
# The reader's goal as the condition ("if we want to select a single column, ..."): the result
# says how to reach it, so the question asks how, not what happens.
_READERS_GOAL = re.compile(
    r"^(?:you|we)\s+(?:only\s+)?(?:want|need|wish|would like)\s+to\s+(?P<goal>.+)$", re.I
)


def _readers_goal(goal: str) -> str:
    """The goal as the learner's: "see our results" -> "see the results"."""
    return re.sub(r"\b(?:our|my)\b", "the", goal.strip(" ."), flags=re.I)


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
            or POINTS_ELSEWHERE.search(sentence)
            or _AN_EXAMPLE.search(sentence)
        ):
            continue
        condition = match.group("condition").strip()
        result = match.group("result").strip(" .")
        if re.match(r"^\w{1,3}(?:,|\s+(?:or|and)\b)", result):  # "If it ends in S, X, or Z, ..."
            continue  # the comma was inside a series, not after the condition
        cue = match.group("cue").lower()
        advice = _ADVICE.match(result) is not None
        if (
            len(result.split()) < q.fact_min_words
            or re.match(r"^(it|they|this|that|these|those|he|she)\b", condition, re.I)
            or "?" in sentence
            or _SECOND_CLAUSE.match(condition)
            or (_READERS_STATE.match(condition) and not advice)
        ):
            continue
        goal = _READERS_GOAL.match(condition)
        if goal is not None:
            items.append(
                new_item(
                    topic,
                    BloomLevel.APPLY,
                    "scenario",
                    f"In {topic_phrase(topic)}, how do you {_readers_goal(goal['goal'])}?",
                    sentence,
                    ideas(capital(result)),
                    sentence,
                    "how",
                )
            )
            continue
        asked = "what should you do" if advice else "what happens"
        question = f"In {topic_phrase(topic)}, {asked} {cue} {_lower_first(condition, prose)}?"
        items.append(
            new_item(
                topic,
                BloomLevel.APPLY if advice else BloomLevel.UNDERSTAND,
                "scenario",
                question,
                sentence,
                ideas(capital(result)),
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
        if POINTS_ELSEWHERE.search(what) or len(what.split()) < q.fact_min_words:
            continue
        question = f"In {topic_phrase(topic)}, how do you {what}? List the steps in order."
        answer = " ".join(f"{n}. {step}" for n, step in enumerate(steps, start=1))
        evidence = "\n".join([lead, *(line for line in lines[start:index] if line.strip())])
        items.append(
            new_item(topic, BloomLevel.APPLY, "scenario", question, answer, steps, evidence, "how")
        )
    return items


def _plain(text: str) -> str:
    """A list item without emphasis marks, as a sentence."""
    text = re.sub(r"\*\*|__", "", text).strip()
    return capital(text) if text.endswith((".", "!", "?")) else capital(text) + "."


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
    topic: Topic, sents: Sequence[str], terms: set[str], pool: dict[str, list[Wrong]]
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
            or POINTS_ELSEWHERE.search(sentence)
        ):
            continue
        code = re.match(r"^`[^`]+`(?:\s+\w+)?$", match.group("term").strip())
        known = known_term(match.group("term"), terms)
        if known is None and code is None:
            continue
        term = known or match.group("term").strip()
        right = as_written(term, sentence)
        job = f"{match.group('cue').lower()} {match.group('job').rstrip('.')}"
        question = f"In {topic_phrase(topic)}, what would you use {job}?"
        item = new_item(
            topic, BloomLevel.APPLY, "scenario", question, sentence, [right], sentence, "apply"
        )
        chosen = with_choices(item, right, pool.get(term, []))
        if not chosen.options:
            question = (
                f"In {topic_phrase(topic)}, when would you use {_subject(term, right, sentence)}, "
                "and what for?"
            )
            chosen = item.model_copy(update={"text": question, "key_points": ideas(sentence)})
        items.append(chosen)
    return items


# "X is like Y, but ..." / "X works (exactly) like Y, but ...": X and Y differ in what follows.
_LIKE_BUT = re.compile(
    r"^(?P<x>(?:(?:an?|the)\s+)?(?:`[^`]{1,40}`(?:\s+\w+)?|[\w'-]+(?:\s+[\w'-]+){0,3}))\s+"
    r"(?:is|are|works|work|behaves|behave|acts|act)\s+(?:\w+\s+)?(?:like|similar to)\s+"
    r"(?P<y>(?:(?:an?|the)\s+)?(?:`[^`]{1,40}`(?:\s+\w+)?|[\w'-]+(?:\s+[\w'-]+){0,3})),?"
    r"\s+(?:but|except that)\s+(?P<difference>.{8,}?)\.?$",
    re.I,
)


def _likenesses(topic: Topic, sents: Sequence[str], prose: str) -> list[QuizItem]:
    """ "X is like Y, but <difference>" (X and Y a term or code each): "In <topic>, how does X
    differ from Y?"; the difference is the key point, one per idea."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        match = _LIKE_BUT.match(sentence.strip())
        if (
            match is None
            or not q.contrast_min_words <= len(sentence.split()) <= q.contrast_max_words
            or POINTS_ELSEWHERE.search(sentence)
        ):
            continue
        x, y = match.group("x"), match.group("y")
        if re.search(r"\b(it|this|that|they|we|you)\b", f"{x} {y}", re.I):
            continue
        difference = match.group("difference").strip(" .")
        does = "do" if _plural(x) else "does"
        question = (
            f"In {topic_phrase(topic)}, how {does} {_lower_first(x, prose)} differ from "
            f"{_lower_first(y, prose)}?"
        )
        items.append(
            new_item(
                topic,
                BloomLevel.ANALYZE,
                "conceptual",
                question,
                sentence,
                ideas(difference),
                sentence,
                "compare",
            )
        )
    return items


def _subject(term: str, right: str, sentence: str) -> str:
    """How a question names a term: code with its article as the sentence says it ("the `AS`
    keyword"), else the term as written (in backticks when it looks like code)."""
    if term.startswith("`"):
        said = _as_said(term, sentence)
        return said[:1].lower() + said[1:] if said[:1] in "AT" and " " in said else said
    return code_term(right)


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
        pair = contrast_pair(sentence, terms)
        if pair is None:
            continue
        a, b = (_lower_first(_as_said(t, sentence), " ".join(sents)) for t in pair)
        question = f"In {topic_phrase(topic)}, how do {code_term(a)} and {code_term(b)} differ?"
        items.append(
            new_item(
                topic,
                BloomLevel.ANALYZE,
                "conceptual",
                question,
                sentence,
                ideas(sentence),
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
    written = as_written(term, sentence)
    found = re.search(rf"\b(?:an?|the)\s+{re.escape(written)}(?!\w)", sentence, re.I)
    return found.group(0) if found else written


# ---- what a term does ---------------------------------------------------------------------------

# The verbs a sentence states what something does with (the base form; "returns", "stores"
# are read too): "The HAVING keyword filters groups...", "`os.stat()` returns the metadata...".
_EFFECT_VERBS = frozenset(
    [
        "add",
        "build",
        "calculate",
        "change",
        "combine",
        "compute",
        "contain",
        "convert",
        "copy",
        "count",
        "create",
        "delete",
        "evaluate",
        "filter",
        "find",
        "generate",
        "give",
        "group",
        "hold",
        "join",
        "keep",
        "list",
        "match",
        "merge",
        "produce",
        "provide",
        "raise",
        "read",
        "remove",
        "replace",
        "return",
        "run",
        "save",
        "select",
        "show",
        "skip",
        "sort",
        "split",
        "stop",
        "store",
        "turn",
        "update",
        "write",
        "yield",
    ]
)
# The subject of a "what it does" sentence: up to six words or a code span, before its verb.
_EFFECT_SUBJECT = r"(?:(?:an?|the)\s+)?(?:`[^`]{1,40}`(?:\s+[\w-]+)?|[\w'-]+(?:\s+[\w'-]+){0,5})"
_EFFECT_ADVERB = r"(?:also|always|only|then|simply|usually)"


def _effect_match(sentence: str) -> re.Match[str] | None:
    """The sentence read as <subject> <effect verb> <rest>, at the first verb of
    `_EFFECT_VERBS` ("The HAVING keyword filters ...": "The HAVING keyword", "filters")."""
    for found in re.finditer(r"(?<=\s)[a-z]+s(?=\s)", sentence):
        if _base_verb(found.group(0)) is not None:
            return re.match(
                rf"^(?P<subject>{_EFFECT_SUBJECT})\s+(?:(?P<adverb>{_EFFECT_ADVERB})\s+)?"
                rf"(?P<verb>{found.group(0)})\s+(?P<rest>.+?)\.?$",
                sentence,
            )
    return None


# A predicate that opens with no object ("stops when...", "runs in order") asks "what does X
# stop?" of nothing, and a "verb" followed by "of" is a noun ("A complete lists of ..."): left
# out.
_NO_OBJECT = re.compile(
    r"^(when|if|once|until|after|before|because|as|at|in|on|of|by|with|from|for|to|into|out|up|"
    r"down|over|through|and|or|but|that|which|it|them|itself|itself|back|here|there)\b",
    re.I,
)


# A subject that names one kind of thing on its own: "A relational database", "Every modern
# file system" (an article or "every"/"each", then up to four words, none a function word).
_NAMED_THING = re.compile(
    r"^(?:an?|the|every|each)\s+(?!(?:of|in|on|for|to|with|and|or|is|are)\b)[\w`'-]+"
    r"(?:\s+(?!(?:of|in|on|for|to|with|and|or|is|are)\b)[\w`'-]+){0,3}$",
    re.I,
)


def _base_verb(verb: str) -> str | None:
    """The base form of a third-person verb of `_EFFECT_VERBS` ("returns" -> "return",
    "copies" -> "copy", "matches" -> "match"), None for any other word."""
    if not verb.endswith("s"):
        return None
    bases = (re.sub(r"ies$", "y", verb), verb.removesuffix("es"), verb.removesuffix("s"))
    return next((base for base in bases if base in _EFFECT_VERBS), None)


def _effects(topic: Topic, sents: Sequence[str], terms: set[str], prose: str) -> list[QuizItem]:
    """A sentence that opens with a term of the course (or code) and says what it does with a
    verb of `_EFFECT_VERBS` and its object ("The HAVING keyword filters the groups an
    aggregation returns."): "In <topic>, what does the HAVING keyword filter?"; the object and
    what the sentence adds are the key points, one per idea. A definition ("X is a ..."), a
    sentence pointing elsewhere or walking through an example is not asked."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        match = _effect_match(sentence.strip())
        if (
            match is None
            or not q.purpose_min_words <= len(sentence.split()) <= q.purpose_max_words
            or POINTS_ELSEWHERE.search(sentence)
            or _AN_EXAMPLE.search(sentence)
            or "?" in sentence
            or definition_of(sentence) is not None
        ):
            continue
        verb = _base_verb(match.group("verb"))
        subject = match.group("subject").strip()
        adverb = (match.group("adverb") or "").strip()
        head, _, last = subject.rpartition(" ")
        if head and re.fullmatch(_EFFECT_ADVERB, last):  # "`os.path` also"
            subject, adverb = head, last
        rest = match.group("rest").strip(" .")
        named = not re.search(r"\b(that|which|who|we|you|they|it|if|when|so)\b", subject, re.I)
        if (
            verb is None
            or _NO_OBJECT.match(rest)
            or len(rest.split()) < q.fact_min_words
            or not named
            or not (
                subject.startswith(("`", "The `", "the `"))
                or _subject_term(sentence, terms) is not None
                or _NAMED_THING.match(subject)
            )
        ):
            continue
        written = _lower_first(subject, prose)
        does = "do" if _plural(written) else "does"
        asked = f"{adverb} {verb}".strip() if adverb in ("only", "always") else verb
        question = f"In {topic_phrase(topic)}, what {does} {written} {asked}?"
        items.append(
            new_item(
                topic,
                BloomLevel.UNDERSTAND,
                "conceptual",
                question,
                sentence,
                ideas(rest),
                sentence,
                "how",
            )
        )
    return items


def _effect_pairs(
    topic: Topic, effects: Sequence[QuizItem], sents: Sequence[str]
) -> list[QuizItem]:
    """Two "what X does" sentences about different subjects close together in the text (at
    most `item_checks.support_window` sentences apart, so that one passage answers both):
    "In <topic>, how do X and Y differ in what they do?", each sentence's ideas the key
    points. One pair a topic."""
    window = constructor_parameters().item_checks.support_window
    where = {sentence: index for index, sentence in enumerate(sents)}
    for first, second in pairwise(effects):
        a, b = _effect_subject(first), _effect_subject(second)
        apart = abs(where.get(first.evidence, 0) - where.get(second.evidence, -window))
        if not a or not b or stems_of(a) == stems_of(b) or apart >= window:
            continue
        question = f"In {topic_phrase(topic)}, how do {a} and {b} differ in what they do?"
        answer = f"{first.evidence} {second.evidence}"
        points = [*first.key_points, *second.key_points]
        return [
            new_item(
                topic, BloomLevel.ANALYZE, "conceptual", question, answer, points, answer, "compare"
            )
        ]
    return []


def _effect_subject(item: QuizItem) -> str:
    """The subject an effect question asks about ("what does `os.path` contain?")."""
    found = re.search(r", what (?:does|do) (?P<subject>.+?) (?:only |always )?\w+\?$", item.text)
    return found.group("subject") if found else ""


# ---- how: means and goals -----------------------------------------------------------------------

# "We can modify lists by assigning new values ...": the act is asked, the means (a gerund:
# "by ordering" is a means, "by a column" is not) answers it.
_BY_MEANS = re.compile(
    r"^(?:we|you|one)\s+can\s+(?:also\s+)?(?P<act>[a-z]+\s+[^,;]{3,80}?)\s+by\s+"
    r"(?P<means>\w+ing\b[^;]{3,}?)\.?$",
    re.I,
)
# "To see the contents of a table, right-click on it and ...": the goal is asked, the
# instruction answers it (an instruction: an imperative verb, or "you/we can/should ...").
_TO_GOAL = re.compile(r"^to\s+(?P<goal>[a-z][^,;:]{6,100}?),\s+(?P<do>[^;]{8,}?)\.?$", re.I)
_INSTRUCTION = re.compile(
    r"^(?:(?:you|we)\s+(?:can|should|must|need to|have to)\s+|use\b|run\b|type\b|click\b|"
    r"select\b|add\b|call\b|write\b|pass\b|put\b|open\b|press\b|right-click\b|choose\b|set\b)",
    re.I,
)


def _means(topic: Topic, sents: Sequence[str], prose: str) -> list[QuizItem]:
    """ "We/You can <act> by <means>" -> "In <topic>, how can you <act>?" (the means is the
    key point); "To <goal>, <instruction>" -> "In <topic>, how do you <goal>?" (the
    instruction's ideas are the key points). A goal or act that needs another sentence (a
    pronoun, "this", an example) is not asked."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        if (
            not q.condition_min_words <= len(sentence.split()) <= q.condition_max_words
            or _AN_EXAMPLE.search(sentence)
            or "?" in sentence
        ):
            continue
        by = _BY_MEANS.match(sentence.strip())
        goal = _TO_GOAL.match(sentence.strip())
        if by is not None:
            asked, points, level = f"how can you {by.group('act')}", [by.group("means")], "u"
        elif goal is not None and _INSTRUCTION.match(goal.group("do")):
            asked, points, level = f"how do you {goal.group('goal')}", ideas(goal.group("do")), "a"
        else:
            continue
        asked = re.sub(r"\bour\b", "the", asked)  # "the results of our queries"
        if POINTS_ELSEWHERE.search(asked) or re.search(r"\b(it|its|they|them|we|us)\b", asked):
            continue
        items.append(
            new_item(
                topic,
                BloomLevel.UNDERSTAND if level == "u" else BloomLevel.APPLY,
                "scenario",
                f"In {topic_phrase(topic)}, {_lower_first(asked, prose)}?",
                sentence,
                [capital(p.strip(" .")) if level == "a" else p.strip(" .") for p in points],
                sentence,
                "how",
            )
        )
    return items


# ---- which term does the job --------------------------------------------------------------------

# The subject of a "what it does" sentence written as code: "`re.sub`", "The `next()` function".
_CODE_SUBJECT = re.compile(
    r"^(?:the\s+)?(?P<subject>`[^`]{1,40}`(?:\s+(?:function|method|module|keyword|statement|"
    r"class|object|operator|loop|clause|command))?)\s+",
    re.I,
)
# Words ending in "s" that are no verb of what a thing does.
_NOT_A_JOB = frozenset(
    [
        "is",
        "was",
        "has",
        "does",
        "its",
        "this",
        "thus",
        "always",
        "perhaps",
        "sometimes",
        "less",
        "unless",
        "as",
        "us",
        "yes",
        "series",
        "class",
        "process",
        "access",
        "across",
        "means",
    ]
)


def _term_jobs(
    topic: Topic, sents: Sequence[str], terms: set[str], pool: dict[str, list[Wrong]]
) -> list[QuizItem]:
    """A sentence that opens with a term of the course (or code) and says what it does with a
    present-tense verb and its object ("A list comprehension provides a compact way of mapping
    a list into another list."): "In <topic>, what provides a compact way of mapping a list
    into another list?" with the term as the answer among the course's other terms (choosing
    the thing for a described job: apply). Without enough wrong options the item is not
    written: as a free answer it is a riddle."""
    q = constructor_parameters().quiz_writer
    items = []
    for sentence in sents:
        if (
            not q.purpose_min_words <= len(sentence.split()) <= q.purpose_max_words
            or POINTS_ELSEWHERE.search(sentence)
            or _AN_EXAMPLE.search(sentence)
            or "?" in sentence
            or definition_of(sentence) is not None
        ):
            continue
        said = _job_of(sentence, terms)
        if said is None:
            continue
        right, term, verb, rest = said
        question = f"In {topic_phrase(topic)}, what {verb} {rest}?"
        item = new_item(
            topic, BloomLevel.APPLY, "scenario", question, sentence, [right], sentence, "apply"
        )
        wrong = pool.get(term, pool.get("", []))
        code = [w for w in wrong if w.option.startswith("`")]  # code is confused with code
        chosen = with_choices(item, right, code) if right.startswith("`") else item
        chosen = chosen if chosen.options else with_choices(item, right, wrong)
        if chosen.options:
            items.append(chosen)
    return items


def _job_of(sentence: str, terms: set[str]) -> tuple[str, str, str, str] | None:
    """(the subject as written, its term, the verb, the object) of "<term> <verb>s <object>",
    the verb right after the term (an adverb between is allowed); None when the sentence does
    not open so, or its object is a pronoun or a clause."""
    code = _CODE_SUBJECT.match(sentence)
    if code is not None:
        right, term, after = code.group("subject"), "", sentence[code.end() :]
    else:
        term = _subject_term(sentence, terms) or ""
        if not term:
            return None
        opening = re.match(r"^(?:an?\s+|the\s+)?", sentence, re.I)
        start = opening.end() if opening else 0
        count = len(term.split())
        words = sentence[start:].split()
        right = " ".join(words[:count])
        after = " ".join(words[count:])
    match = re.match(
        rf"^(?:{_EFFECT_ADVERB}\s+)?(?P<verb>[a-z]+s|can [a-z]{{3,}})\s+(?P<rest>.+?)\.?$", after
    )
    verb = match.group("verb") if match else ""
    if match is None or verb.split()[-1] in _NOT_A_JOB or verb.endswith("ss") or verb == "can be":
        return None
    rest = match.group("rest").strip()
    if (
        _NO_OBJECT.match(rest)
        or re.match(r"^(?:cannot|can|will|would|are|were|must|should|may|might|do|have)\b", rest)
        or re.search(r"[:;]|\s[—–]\s", rest)
        or len(rest.split()) < constructor_parameters().quiz_writer.fact_min_words
        or re.search(r"\b(it|them|they|we|you)\b", rest, re.I)
    ):
        return None
    return right.strip(), term, match.group("verb"), rest


def _what_they_do(
    topic: Topic, sents: Sequence[str], terms: set[str], prose: str
) -> list[QuizItem]:
    """The sentences `_term_jobs` reads, asked the other way round: "what does the grill
    station cook?", the object the key points (understand). Offered to `_choose` only to give
    a topic a second Bloom level, in place of the same sentence's other item."""
    items = []
    for sentence in sents:
        said = _job_of(sentence, terms) if definition_of(sentence) is None else None
        if said is None:
            continue
        right, _, verb, rest = said
        if verb.startswith("can "):
            continue
        written = code_term(_lower_first(right, prose)) if not right.startswith("`") else right
        bare_code = right.startswith("`") and " " not in right  # "`re.sub`", not "`os` module"
        article = "" if bare_code or _plural(written) else "the "
        does = "do" if _plural(written) else "does"
        question = f"In {topic_phrase(topic)}, what {does} {article}{written} {_verb_base(verb)}?"
        items.append(
            new_item(
                topic,
                BloomLevel.UNDERSTAND,
                "conceptual",
                question,
                sentence,
                ideas(rest),
                sentence,
                "how",
            )
        )
    return items


def _verb_base(verb: str) -> str:
    """The base form of a third-person verb ("cooks" -> "cook", "washes" -> "wash", "copies"
    -> "copy")."""
    if verb.endswith("ies"):
        return re.sub(r"ies$", "y", verb)
    if re.search(r"(?:sh|ch|x|z|ss)es$", verb):
        return re.sub(r"es$", "", verb)
    return re.sub(r"s$", "", verb)


# ------------------------------------------------------------------------- recall padding
# A plain statement "<subject> <verb>s <object>." read for recall padding: the subject an
# article (or "each"/"every") and up to four words, or code; never a pronoun.
_FUNCTION_WORD = (
    r"(?:of|in|on|for|to|with|and|or|is|are|was|were|be|it|its|this|that|these|those|we|you|"
    r"they|he|she|there|here|not|also|only|then|so|but|however|when|if|as|although|because|"
    r"once|while|after|before|since|between|using|calling)"
)
_ARTICLE = re.compile(r"^(?:an?|the|every|each)$", re.I)
_SUBJECT_WORD = re.compile(rf"^(?!{_FUNCTION_WORD}$)[\w`'().-]+$", re.I)
# An object that points outside its sentence ("we" / "you", the reader, do not), or a "verb"
# followed by a bare verb or a modal (a plural noun read as the verb: "The data types
# determine ...", "Complex variables cannot ...").
_OUTSIDE = re.compile(
    r"\b(it|its|them|they|this|these|those|he|she|him|her|their)\b"
    r"|\b(?:to|in|of|by|with|from|on|for|at|and|uses?|returns?|appends?)\s+that\b",
    re.I,
)
# Verbs that say what a thing is, not what it does ("becomes", "seems").
_LINKING = frozenset(["becomes", "seems", "looks", "remains", "stands", "goes", "comes"])
_BARE_VERB = re.compile(
    r"^(?:determine|make|take|give|need|use|hold|have|mean|allow|let|help|show|tell|look|work|"
    r"get|go|come|run|return|store|contain|become|seem|appear|do|does|did|can|will|would|are|"
    r"were|must|should|may|might|could|cannot|can't|won't|don't)\b",
    re.I,
)


def _plain_fact(
    sentence: str, prose: str, terms: set[str] | frozenset[str] = frozenset()
) -> tuple[str, str, str, bool] | None:
    """(subject, verb, object, plural) of a plain statement "<subject> <verb>s <object>." ("The
    HAVING keyword filters the groups of an aggregation."), "<subject> can <verb> <object>."
    or "<plural subject> <verb> <object>." with a verb of `_EFFECT_VERBS` ("Relational
    databases store data ..."; the verb is given in its third-person form, "stores"). The
    subject is an article or "each"/"every" and up to four words, code, a name ("SQL") or a
    term of the course (`terms`, "Aggregation");
    None for a pronoun subject, a verb "is", "has", "becomes" and the like, an object with a
    pronoun pointing outside the sentence, or a sentence that is no such statement."""
    q = constructor_parameters().quiz_writer
    if (
        not q.purpose_min_words <= len(sentence.split()) <= q.purpose_max_words
        or "?" in sentence
        or POINTS_ELSEWHERE.search(sentence)
        or _AN_EXAMPLE.search(sentence)
    ):
        return None
    words = sentence.rstrip(".").split()
    opening = 1 if _ARTICLE.match(words[0]) else 0
    for end in range(opening + 1, min(opening + 5, len(words) - 2) + 1):
        if not _SUBJECT_WORD.match(words[end - 1]):
            return None
        said = _verb_at(words, end)
        if said is None:
            continue
        subject, (verb, rest, plural) = " ".join(words[:end]), said
        named = (
            opening
            or subject.startswith("`")
            or _lower_first(subject, prose) == subject
            or normalise(subject) in terms
        )
        if not (named or plural) or not _plain_object(rest):
            return None
        return subject, verb, rest, plural
    return None


def _verb_at(words: Sequence[str], end: int) -> tuple[str, str, bool] | None:
    """(verb, object, plural subject) when a verb opens at `words[end]` (an adverb of
    `_EFFECT_ADVERB` may come before it), None otherwise."""
    at = end + 1 if re.fullmatch(_EFFECT_ADVERB, words[end]) else end
    verb, last = words[at] if at < len(words) else "", words[end - 1]
    if verb == "can" and at + 2 < len(words) and words[at + 1].isalpha():
        if words[at + 1] in ("be", "also", "only", "not"):
            return None
        return f"can {words[at + 1]}", " ".join(words[at + 2 :]), False
    if not re.fullmatch(r"[a-z]{3,}", verb):
        return None
    if verb.endswith("s") and not verb.endswith("ss"):
        if verb in _NOT_A_JOB or verb in _LINKING:
            return None
        return verb, " ".join(words[at + 1 :]), False
    plural = re.fullmatch(r"[a-z][a-z-]*[^s]s", last, re.I) is not None
    if plural and verb in _EFFECT_VERBS:
        return _third_person(verb), " ".join(words[at + 1 :]), True
    return None


def _third_person(verb: str) -> str:
    """ "store" -> "stores", "copy" -> "copies", "match" -> "matches"."""
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    if re.search(r"(?:sh|ch|x|z|s)$", verb):
        return verb + "es"
    return verb + "s"


def _plain_object(rest: str) -> bool:
    """An object a question can quote: no clause opener, no pronoun pointing outside the
    sentence, no list after a colon, and enough words."""
    return not (
        _NO_OBJECT.match(rest)
        or _BARE_VERB.match(rest)
        or re.match(r"^\S+\s+(?:what|which|how|whether|where|who)\b", rest, re.I)  # tells SQL what
        or _OUTSIDE.search(rest)
        or re.search(r"[:;]|\s[—–]\s", rest)
        or re.search(r"\(\s*\S+(?:\s+\S+){3,}?\s*\)", rest)  # an aside in brackets
        or len(rest.split()) < constructor_parameters().quiz_writer.fact_min_words
    )


def _recall_facts(
    topic: Topic, sents: Sequence[str], prose: str, terms: set[str]
) -> list[QuizItem]:
    """Recall items read from the topic's plain statements, for a topic of 150+ words still
    short of its items or of a second Bloom level (`_choose` uses them only then): "In
    <topic>, what <verb>s <object>?" answered by the subject, and "In <topic>, what does
    <subject> <verb>?" answered by the object (remember). One item per sentence is used."""
    items = []
    for sentence in sents:
        said = _plain_fact(sentence, prose, terms) if definition_of(sentence) is None else None
        if said is None:
            continue
        subject, verb, rest, plural = said
        written = subject if subject.startswith("`") else _lower_first(subject, prose)
        where = f"In {topic_phrase(topic)}"
        if verb.startswith("can "):
            asked = f"{where}, what can {written} {verb.split()[1]}?"
        else:
            asked = f"{where}, what {'do' if plural else 'does'} {written} {_verb_base(verb)}?"
        items.append(
            new_item(
                topic,
                BloomLevel.REMEMBER,
                "conceptual",
                f"{where}, what {verb} {rest}?",
                capital(subject),
                [subject],
                sentence,
                "define",
            )
        )
        items.append(
            new_item(
                topic,
                BloomLevel.REMEMBER,
                "conceptual",
                asked,
                capital(rest),
                ideas(rest),
                sentence,
                "define",
            )
        )
    return items
