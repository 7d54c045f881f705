"""The path planner's decision: what a learner does next after one graded answer.

A pure function of the graded answer, the knowledge base and what the planner looked up (mastery,
the practice round, lessons, the review date), so every rule is unit-tested without a database.
It is the one next step: the practice result, the home card and the Continue button all show the
step this module decided (decision 0047).

| evaluator decision | what the learner gets next                                                 |
|--------------------|----------------------------------------------------------------------------|
| RETRY              | the same question again, with a hint (a practice round gets it queued)     |
| RETRY, 2nd attempt | escalates to ALTERNATE: trying the same way a third time rarely helps;     |
| or no try left     | so does a RETRY whose question cannot be asked again                       |
| ALTERNATE          | the lesson's tutor opened on the concept in another teaching mode (the     |
|                    | tutor makes the first move; nothing is sent in the learner's name); in a  |
|                    | round the question is queued again with a hint                             |
| REMEDIATE          | the weakest prerequisite (lowest mastery): its lesson, then practice on it; |
|                    | with no prerequisite below MASTERED_MASTERY it escalates to ALTERNATE      |
| PROCEED            | the next question up the Bloom ladder (the round's next, or a new round     |
|                    | above the level reached); none left above it: as MASTERED                  |
| MASTERED           | the next concept in prerequisite order (ready ones first) and a review,    |
|                    | scheduled by FSRS, for this one; while the concept's mastery is still      |
|                    | below MASTERED_MASTERY (one excellent answer is not a mastered concept)    |
|                    | it goes on as PROCEED                                                      |

Inside a practice round one rule comes last and wins: while the round has a question waiting (the
next one, or this one queued again), the step is that question. Whatever the table chose instead
(the tutor, a prerequisite) is named as what comes after the round, and the round's last answer
offers it then (`Situation.round_owes`). The step's words come from the score (`how_it_went`), so
a strong answer is never told it fell apart, whatever the decision.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal
from urllib.parse import urlencode

from tutorgraph.knowledge import KnowledgeBase
from tutorgraph.knowledge.bloom import BloomLevel
from tutorgraph.knowledge.schema import Topic
from tutorgraph.learner_model.decision import ALTERNATE_THRESHOLD, PROCEED_THRESHOLD
from tutorgraph.practice import MAX_ATTEMPTS, question_label
from tutorgraph.text.stopwords import ANSWER_STOPWORDS
from tutorgraph.text.tokens import words
from tutorgraph.wording import BLOOM_LEVEL, mistake, percent

StepKind = Literal["retry", "tutor", "remediate", "practice", "lesson", "review"]

ESCALATE_FROM_ATTEMPT = 2  # a RETRY on this attempt or later becomes ALTERNATE
MASTERED_MASTERY = 0.8  # a concept at or above this mastery is not sent back to
READY_MASTERY = 0.6  # a concept whose prerequisites all reach this is ready to start
# How the step speaks of the answer follows its score, in the evaluator's own bands: from
# PROCEED_THRESHOLD an answer is strong, from ALTERNATE_THRESHOLD it is close, and from
# PART_RIGHT_FROM part of it is there (below: it missed the main idea).
PART_RIGHT_FROM = 0.3
# The decisions that ask for more than the next question: offered after the round when given
# inside one.
REMEDIAL = frozenset({"RETRY", "ALTERNATE", "REMEDIATE"})

__all__ = [
    "Graded",
    "LessonRef",
    "RoundQuestion",
    "Situation",
    "Step",
    "hint",
    "how_it_went",
    "next_concept",
    "plan",
    "point_subject",
    "teaching_mode",
    "weakest_prerequisite",
]


@dataclass(frozen=True)
class LessonRef:
    title: str
    url: str


@dataclass(frozen=True)
class Graded:
    """One EVALUATION_COMPLETED event, as the planner reads it."""

    concept: str
    decision: str
    score: float
    question: str = ""
    answer: str = ""
    misconceptions: tuple[str, ...] = ()
    missing_key_points: tuple[str, ...] = ()
    source: str = "api"  # practice | api | ...
    domain: str = ""
    round_id: str | None = None
    question_id: int | None = None
    attempt: int = 1
    bloom_level: str | None = None

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> Graded:
        source = payload.get("source") or {}
        return cls(
            concept=str(payload.get("concept") or ""),
            decision=str(payload.get("decision") or "RETRY"),
            score=float(payload.get("score") or 0.0),
            question=str(payload.get("question") or ""),
            answer=str(payload.get("answer") or ""),
            misconceptions=tuple(str(m) for m in payload.get("misconceptions") or ()),
            missing_key_points=tuple(str(p) for p in payload.get("missing_key_points") or ()),
            source=str(source.get("kind") or "api"),
            domain=str(source.get("domain") or ""),
            round_id=source.get("round_id"),
            question_id=source.get("question_id"),
            attempt=int(source.get("attempt") or 1),
            bloom_level=source.get("bloom_level"),
        )


@dataclass(frozen=True)
class RoundQuestion:
    """A practice round's question, numbered as the learner sees it."""

    question_id: int
    number: int  # which question of the round; its tries share the number
    count: int  # the round's questions, each counted once
    attempt: int = 1
    bloom_level: str | None = None

    @property
    def label(self) -> str:
        return question_label(self.number, self.count, self.attempt)


@dataclass(frozen=True)
class Situation:
    """What the planner looked up for this learner when the event was planned."""

    mastery: Mapping[str, float] = field(default_factory=dict)
    lessons: Mapping[str, LessonRef] = field(default_factory=dict)  # concept -> first lesson
    review_due: datetime | None = None  # this concept's FSRS due date after this answer
    # In a practice round: the question just answered, the question waiting after it (before
    # anything is queued again), whether the answered one may still be asked again, and an
    # earlier answer of the round that asked for more than a retry (offered when it ends).
    answered: RoundQuestion | None = None
    round_waiting: RoundQuestion | None = None
    can_ask_again: bool = True
    round_owes: Graded | None = None


@dataclass(frozen=True)
class Requeue:
    """Ask a practice round's question again, next, with a hint."""

    round_id: str
    question_id: int
    hint: str


@dataclass(frozen=True)
class Step:
    decision: str  # the decision acted on (after escalation)
    kind: StepKind
    title: str
    reason: str
    target: dict[str, Any]
    requeue: Requeue | None = None


def plan(graded: Graded, kb: KnowledgeBase | None, situation: Situation) -> Step:
    """The next step after one graded answer (see the module's table, then the round's rule)."""
    topic = kb.topics.get(graded.concept) if kb is not None else None
    if kb is None or topic is None:
        return _unknown_concept(graded)
    step = _decide(graded, kb, topic, situation)
    return _within_round(graded, kb, topic, situation, step) if _in_round(graded) else step


def how_it_went(score: float) -> str:
    """The answer's score in words that never contradict it."""
    shown = percent(score)  # as every page shows a score
    if score >= PROCEED_THRESHOLD:
        return f"A strong answer ({shown})."
    if score >= ALTERNATE_THRESHOLD:
        return f"Close ({shown}): most of the idea is there."
    if score >= PART_RIGHT_FROM:
        return f"Part of it is there ({shown})."
    return f"That answer missed the main idea ({shown})."


def _decide(graded: Graded, kb: KnowledgeBase, topic: Topic, situation: Situation) -> Step:
    decision = graded.decision
    stuck = _in_round(graded) and not situation.can_ask_again
    if decision == "RETRY" and (graded.attempt >= ESCALATE_FROM_ATTEMPT or stuck):
        return _alternate(graded, topic, situation, escalated=True)
    if decision == "RETRY":
        return _retry(graded, topic, situation)
    if decision == "ALTERNATE":
        return _alternate(graded, topic, situation, escalated=False)
    if decision == "REMEDIATE":
        weakest = weakest_prerequisite(kb, topic, situation.mastery)
        if weakest is None:
            return _alternate(graded, topic, situation, escalated=True)
        return _remediate(graded, topic, weakest, situation)
    if decision == "MASTERED" and situation.mastery.get(topic.id, 0.0) < MASTERED_MASTERY:
        decision = "PROCEED"
    if decision == "PROCEED":
        proceed = _proceed(graded, topic)
        if proceed is not None:
            return proceed
    return _mastered(graded, kb, topic, situation)


def _within_round(
    graded: Graded, kb: KnowledgeBase, topic: Topic, situation: Situation, step: Step
) -> Step:
    """Never away from a question the learner is in the middle of: while the round has one
    waiting, the step is that question; what the table chose instead comes after the round."""
    round_url = {"url": f"/quiz/{graded.round_id}#question", "round_id": graded.round_id}
    if step.requeue is not None:
        waiting: RoundQuestion | None = _again(graded, situation)
    else:
        waiting = situation.round_waiting
    how = how_it_went(graded.score)
    if waiting is None:  # the round is over
        owed = situation.round_owes
        if step.decision in REMEDIAL or owed is None:
            return step
        later = _decide(replace(owed, round_id=None, question_id=None), kb, topic, situation)
        return replace(
            later,
            reason=f"{how} That was the round's last question. Earlier in it, an answer showed "
            f"a gap: {_lower_first(later.title)}. {later.reason}",
        )
    after = (
        f" After the round: {_lower_first(step.title)}."
        if step.kind in ("tutor", "remediate")
        else ""
    )
    if step.requeue is not None:
        return Step(
            decision=step.decision,
            kind="retry",
            title=f"{waiting.label}, with a hint",
            # the hint itself is shown with the question
            reason=f"{how} The question comes back once more, with a hint." + after,
            target={**round_url, "question_id": graded.question_id},
            requeue=step.requeue,
        )
    level = BloomLevel(waiting.bloom_level) if waiting.bloom_level else None
    ahead = (
        f" Next in your round: a question at the {level.value} level, where you "
        f"{BLOOM_LEVEL[level.value]}."
        if level is not None
        else " Next in your round: its next question."
    )
    return Step(
        decision=step.decision,
        kind="practice",
        title=f"Go on to {_lower_first(waiting.label)}",
        reason=how + ahead + after,
        target={**round_url, "question_id": waiting.question_id},
    )


def _again(graded: Graded, situation: Situation) -> RoundQuestion:
    """The answered question, asked once more."""
    answered = situation.answered or RoundQuestion(int(graded.question_id or 0), 1, 1)
    return replace(answered, attempt=graded.attempt + 1, bloom_level=graded.bloom_level)


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def weakest_prerequisite(
    kb: KnowledgeBase, topic: Topic, mastery: Mapping[str, float]
) -> Topic | None:
    """The prerequisite with the lowest mastery below MASTERED_MASTERY (earliest on ties)."""
    below = [
        kb.topic(p)
        for p in sorted(topic.prerequisites, key=kb.order.index)
        if mastery.get(p, 0.0) < MASTERED_MASTERY
    ]
    return min(below, key=lambda t: mastery.get(t.id, 0.0)) if below else None


def next_concept(kb: KnowledgeBase, after: str, mastery: Mapping[str, float]) -> Topic | None:
    """The next concept in prerequisite order that is not mastered: ready ones (all their
    prerequisites at READY_MASTERY, or being the one just mastered) before the rest."""
    open_topics = [
        kb.topic(t) for t in kb.order if t != after and mastery.get(t, 0.0) < MASTERED_MASTERY
    ]
    known = {**mastery, after: max(mastery.get(after, 0.0), MASTERED_MASTERY)}

    def ready(topic: Topic) -> bool:
        return all(known.get(p, 0.0) >= READY_MASTERY for p in topic.prerequisites)

    ready_ones = [t for t in open_topics if ready(t)]
    follows = [t for t in ready_ones if after in t.prerequisites]
    chosen = follows or ready_ones or open_topics
    return chosen[0] if chosen else None


# A hint names the subject of the first point the answer missed, in the knowledge base's words: a
# subject is the point's opening words before its verb, at most HINT_SUBJECT_WORDS of them.
HINT_SUBJECT_WORDS = 4
# fmt: off
_LINKING = frozenset({
    "is", "are", "was", "were", "has", "have", "had", "can", "cannot", "must", "may", "might",
    "will", "would", "should", "does", "do", "did", "means", "=", "==", "equals",
})
# fmt: on
_DETERMINERS = frozenset({"a", "an", "the"})
# Opening words that make a phrase an instruction or a clause, not a subject ("use == for ...").
# fmt: off
_NOT_A_SUBJECT = frozenset({
    "use", "rename", "call", "build", "iterate", "declare", "return", "raise", "pass", "avoid",
    "prefer", "add", "keep", "make", "check", "compute", "apply", "yields", "returns", "these",
    "those", "this", "it", "they", "that", "which", "who", "to",
})
# fmt: on
_NUMBER_WORDS = {1: "one idea", 2: "two ideas", 3: "three ideas", 4: "four ideas"}


def hint(graded: Graded, topic: Topic) -> str:
    """A nudge, not the answer, in sentences: the misconception the answer showed, in the
    knowledge base's words, and what the first missed key point is about (its subject), never
    the point itself."""
    parts: list[str] = []
    for misconception_id in graded.misconceptions[:1]:
        known = topic.misconception(misconception_id)
        if known is not None:
            parts.append(f"Careful, a common mix-up is {mistake(known.description)}")
    if graded.missing_key_points:
        count = len(graded.missing_key_points)
        left_out = _NUMBER_WORDS.get(count, f"{count} ideas")
        subject = point_subject(graded.missing_key_points[0]) or _sentence_subject(
            point_subject(_closest_key_point(topic, graded.missing_key_points[0]))
        )
        asks_why = graded.question.lower().lstrip().startswith("why") or (
            "explain why" in graded.question.lower()
        )
        opening = (
            "Your answer did not yet say why"
            if asks_why
            else f"Your answer left out {left_out} a full answer needs"
        )
        if subject:
            parts.append(f"{opening}: think about what happens to {subject}.")
        else:
            parts.append(f"{opening}: say what happens, step by step, and why.")
    if not parts:
        parts.append("Say what the idea is and why it works, in a sentence or two.")
    return " ".join(parts)


def point_subject(point: str) -> str | None:
    """What a key point is about: its words before its verb ("assignment" of "assignment binds
    a name without copying", "list membership" of "list membership is a linear scan"). None when
    the point opens with its verb or its subject is not a short phrase."""
    tokens = point.split()
    bare = [t.strip(",.;:").lower() for t in tokens]
    end = next((i for i, b in enumerate(bare) if b in _LINKING), None)
    if end is None:
        end = next((i for i, b in enumerate(bare) if i and _third_person(b)), None)
    if not end or end > HINT_SUBJECT_WORDS:
        return None
    subject = tokens[:end]
    if (
        any(t.endswith((",", ";", ":")) for t in subject)
        or any(b in _DETERMINERS or b in _NOT_A_SUBJECT for b in bare[1:end])
        or bare[0] in _NOT_A_SUBJECT
        or (end == 1 and _third_person(bare[0]))
        or not [w for w in words(" ".join(subject)) if w not in ANSWER_STOPWORDS]
    ):
        return None
    return " ".join(subject)


def _sentence_subject(subject: str | None) -> str | None:
    """A key point's subject opens its sentence: "Assignment" -> "assignment" (never a name
    such as "OrderedDict" or "Team B")."""
    if not subject:
        return None
    first = subject.split()[0]
    return _lower_first(subject) if first[1:].islower() and first.isalpha() else subject


def _closest_key_point(topic: Topic, missed: str) -> str:
    """The topic's key point that shares the most words with a missed rubric point ("" when
    none shares any)."""
    wanted = set(words(missed)) - ANSWER_STOPWORDS
    best, shared = "", 0
    for point in topic.key_points:
        overlap = len(wanted & set(words(point)))
        if overlap > shared:
            best, shared = point, overlap
    return best


def _third_person(word: str) -> bool:
    """A verb in the third person ("binds", "mutates"), as far as its ending tells."""
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "ys"))


def _retry(graded: Graded, topic: Topic, situation: Situation) -> Step:
    nudge = hint(graded, topic)
    in_round = _in_round(graded)
    return Step(
        decision="RETRY",
        kind="retry",
        title=f"Try a question on {topic.title} again, with a hint",
        reason=f"{how_it_went(graded.score)} {nudge}",
        target=(
            {"url": f"/quiz/{graded.round_id}#question", "round_id": graded.round_id}
            if in_round
            else _practice_target(topic.id)
        ),
        requeue=(
            Requeue(str(graded.round_id), int(graded.question_id or 0), nudge) if in_round else None
        ),
    )


def _alternate(graded: Graded, topic: Topic, situation: Situation, *, escalated: bool) -> Step:
    """The tutor on the concept in another teaching mode. The tutor makes the first move
    (`focus` names the concept to open on): nothing is ever sent in the learner's name."""
    mode = teaching_mode(topic, graded.attempt)
    query = urlencode({"mode": mode, "focus": topic.id})
    lesson = situation.lessons.get(topic.id)
    url = f"{lesson.url}?{query}#tutor-chat" if lesson else f"/explore?{query}"
    why = (
        "You tried this question again and it still did not click"
        if escalated and graded.decision == "RETRY"
        else "The gap is in this idea itself"
        if escalated
        else "Part of the idea is missing"
    )
    return Step(
        decision="ALTERNATE",
        kind="tutor",
        title=f"See {topic.title} explained another way",
        reason=f"{how_it_went(graded.score)} {why}: the tutor opens a conversation on "
        f"{topic.title} and explains it {MODE_WORDS[mode]}.",
        target={"url": url, "mode": mode, "concept": topic.id},
        requeue=(
            Requeue(str(graded.round_id), int(graded.question_id or 0), hint(graded, topic))
            if _in_round(graded) and graded.attempt < MAX_ATTEMPTS and situation.can_ask_again
            else None
        ),
    )


MODE_WORDS = {
    "analogy": "with an analogy",
    "eli5": "in the simplest words",
    "code": "with code",
    "deep_dive": "in depth",
}


def teaching_mode(topic: Topic, attempt: int) -> str:
    """Another way in than the default: an analogy where the topic has one, then code."""
    modes = (["analogy"] if topic.analogies else []) + ["eli5", "code"]
    return modes[min(attempt - 1, len(modes) - 1)] if attempt > 1 else modes[0]


def _remediate(graded: Graded, topic: Topic, weakest: Topic, situation: Situation) -> Step:
    lesson = situation.lessons.get(weakest.id)
    target = _practice_target(weakest.id, lesson=lesson)
    return Step(
        decision="REMEDIATE",
        kind="remediate",
        title=f"Shore up {weakest.title} first",
        reason=(
            f"{how_it_went(graded.score)} {topic.title} builds on {weakest.title}, and that is "
            f"where the gap is (mastery {percent(situation.mastery.get(weakest.id, 0.0))})."
            + (f" Read “{lesson.title}”, then practise it." if lesson else " Practise it first.")
        ),
        target=target,
    )


def _proceed(graded: Graded, topic: Topic) -> Step | None:
    """A new round above the Bloom level reached (inside a round, `_within_round` names its
    next question instead)."""
    reached = BloomLevel(graded.bloom_level) if graded.bloom_level else None
    higher = [q for q in topic.questions if reached is None or q.bloom_level.rank > reached.rank]
    if not higher:
        return None
    level = min((q.bloom_level for q in higher), key=lambda b: b.rank)
    return Step(
        decision="PROCEED",
        kind="practice",
        title=f"Practise {topic.title} at the {level.value} level",
        reason=f"{how_it_went(graded.score)} The next questions go one level up, to "
        f"{level.value}: {BLOOM_LEVEL[level.value]}.",
        target=_practice_target(topic.id, above=reached.value if reached else None),
    )


def _mastered(graded: Graded, kb: KnowledgeBase, topic: Topic, situation: Situation) -> Step:
    review = (
        f" A review of it is scheduled for {situation.review_due:%d %b %Y}."
        if situation.review_due
        else ""
    )
    how = how_it_went(graded.score)
    following = next_concept(kb, topic.id, situation.mastery)
    if following is None:
        return Step(
            decision="MASTERED",
            kind="review",
            title="Review what is due",
            reason=f"{how} You have mastered {topic.title} and every concept of "
            f"{kb.domain.title}." + review,
            target={"url": "/review"},
        )
    lesson = situation.lessons.get(following.id)
    target = _practice_target(following.id, lesson=lesson)
    return Step(
        decision="MASTERED",
        kind="lesson" if lesson else "practice",
        title=f"Go on to {following.title}",
        reason=f"{how} You have mastered {topic.title}; {following.title} comes next in the "
        "course." + review,
        target={**target, "url": lesson.url} if lesson else target,
    )


def _unknown_concept(graded: Graded) -> Step:
    return Step(
        decision=graded.decision,
        kind="review",
        title="Review what is due",
        reason="This answer was not about a concept of the knowledge base, so it sets no path.",
        target={"url": "/review"},
    )


def _in_round(graded: Graded) -> bool:
    return graded.source == "practice" and bool(graded.round_id) and bool(graded.question_id)


def _practice_target(
    concept: str, *, above: str | None = None, lesson: LessonRef | None = None
) -> dict[str, Any]:
    """A new practice round on a concept, started when the learner takes the step (and the
    concept's lesson to read first, when the learner can see one)."""
    target: dict[str, Any] = {"start_topic": concept}
    if above:
        target["above"] = above
    if lesson is not None:
        target["lesson_url"] = lesson.url
    return target
