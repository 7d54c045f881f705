"""The path planner's decision: what a learner does next after one graded answer.

A pure function of the graded answer, the knowledge base and what the planner looked up (mastery,
the practice round, lessons, the review date), so every rule is unit-tested without a database.

| evaluator decision | what the learner gets next                                                 |
|--------------------|----------------------------------------------------------------------------|
| RETRY              | the same question again, with a hint (a practice round gets it queued)     |
| RETRY, 2nd attempt | escalates to ALTERNATE: trying the same way a third time rarely helps     |
| ALTERNATE          | the lesson's tutor opened on the concept in another teaching mode; the     |
|                    | question is queued again for afterwards                                     |
| REMEDIATE          | the weakest prerequisite (lowest mastery): its lesson, then practice on it; |
|                    | with no prerequisite below MASTERED_MASTERY it escalates to ALTERNATE      |
| PROCEED            | the next question up the Bloom ladder (the round's next, or a new round     |
|                    | above the level reached); none left above it: as MASTERED                  |
| MASTERED           | the next concept in prerequisite order (ready ones first) and a review,    |
|                    | scheduled by FSRS, for this one; while the concept's mastery is still      |
|                    | below MASTERED_MASTERY (one excellent answer is not a mastered concept)    |
|                    | it goes on as PROCEED                                                      |
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal
from urllib.parse import urlencode

from tutorgraph.knowledge import KnowledgeBase
from tutorgraph.knowledge.bloom import BloomLevel
from tutorgraph.knowledge.schema import Topic
from tutorgraph.practice import MAX_ATTEMPTS
from tutorgraph.text.stopwords import ANSWER_STOPWORDS
from tutorgraph.text.tokens import words

StepKind = Literal["retry", "tutor", "remediate", "practice", "lesson", "review"]

ESCALATE_FROM_ATTEMPT = 2  # a RETRY on this attempt or later becomes ALTERNATE
MASTERED_MASTERY = 0.8  # a concept at or above this mastery is not sent back to
READY_MASTERY = 0.6  # a concept whose prerequisites all reach this is ready to start
HINT_WORDS = 3


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
class Situation:
    """What the planner looked up for this learner when the event was planned."""

    mastery: Mapping[str, float] = field(default_factory=dict)
    lessons: Mapping[str, LessonRef] = field(default_factory=dict)  # concept -> first lesson
    round_next_level: str | None = None  # the practice round's next unanswered question
    review_due: datetime | None = None  # this concept's FSRS due date after this answer


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
    """The next step after one graded answer (see the module's table)."""
    topic = kb.topics.get(graded.concept) if kb is not None else None
    if kb is None or topic is None:
        return _unknown_concept(graded)
    decision = graded.decision
    if decision == "RETRY" and graded.attempt >= ESCALATE_FROM_ATTEMPT:
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
        proceed = _proceed(graded, kb, topic, situation)
        if proceed is not None:
            return proceed
    return _mastered(graded, kb, topic, situation)


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


def hint(graded: Graded, topic: Topic) -> str:
    """A nudge, not the answer: the misconception the answer showed, in the knowledge base's
    words, and a few words of the first key point it missed that neither the question nor the
    answer used."""
    parts: list[str] = []
    for misconception_id in graded.misconceptions[:1]:
        known = topic.misconception(misconception_id)
        if known is not None:
            parts.append(f"Careful, a common mix-up is {_mix_up(known.description)}.")
    if graded.missing_key_points:
        used = set(words(graded.question)) | set(words(graded.answer))
        cue = _cue_words(graded.missing_key_points[0], used)
        count = len(graded.missing_key_points)
        left_out = "one idea" if count == 1 else f"{count} ideas"
        if cue:
            parts.append(f"Your answer left out {left_out}; think about {', '.join(cue)}.")
        else:
            parts.append(f"Your answer left out {left_out} of a full answer.")
    if not parts:
        parts.append("Say what the idea is and why it works, in a sentence or two.")
    return " ".join(parts)


def _cue_words(point: str, used: set[str]) -> list[str]:
    seen: list[str] = []
    for word in words(point):
        if len(word) > 3 and word not in ANSWER_STOPWORDS and word not in used and word not in seen:
            seen.append(word)
    return seen[:HINT_WORDS]


def _mix_up(description: str) -> str:
    """A knowledge-base misconception ("Believes X.") as what the mix-up is ("believing X")."""
    text = description.strip().rstrip(".")
    first, _, rest = text.partition(" ")
    if first.lower() == "believes" and rest:
        return f"believing {rest}"
    return f"this: {text[:1].lower()}{text[1:]}"


def _retry(graded: Graded, topic: Topic, situation: Situation) -> Step:
    nudge = hint(graded, topic)
    in_round = _in_round(graded)
    return Step(
        decision="RETRY",
        kind="retry",
        title=f"Try the question on {topic.title} again, with a hint",
        reason=f"That answer did not hold together yet. {nudge}",
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
    mode = teaching_mode(topic, graded.attempt)
    ask = f"Explain {topic.title} another way: I keep getting it wrong."
    query = urlencode({"mode": mode, "ask": ask})
    lesson = situation.lessons.get(topic.id)
    url = f"{lesson.url}?{query}#tutor-chat" if lesson else f"/explore?{query}"
    why = (
        "You tried this question again and it still did not click"
        if escalated and graded.decision == "RETRY"
        else "The gap is in this idea itself"
        if escalated
        else "You are close, but part of the idea is missing"
    )
    back = " Then the question waits for you in your practice round." if _in_round(graded) else ""
    return Step(
        decision="ALTERNATE",
        kind="tutor",
        title=f"See {topic.title} explained another way",
        reason=f"{why}: the tutor explains it {MODE_WORDS[mode]}.{back}",
        target={"url": url, "mode": mode, "concept": topic.id},
        requeue=(
            Requeue(str(graded.round_id), int(graded.question_id or 0), hint(graded, topic))
            if _in_round(graded) and graded.attempt < MAX_ATTEMPTS
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
            f"{topic.title} builds on {weakest.title}, and that is where the gap is "
            f"(mastery {round(100 * situation.mastery.get(weakest.id, 0.0))}%)."
            + (f" Read “{lesson.title}”, then practise it." if lesson else " Practise it first.")
        ),
        target=target,
    )


def _proceed(graded: Graded, kb: KnowledgeBase, topic: Topic, situation: Situation) -> Step | None:
    if _in_round(graded) and situation.round_next_level is not None:
        level = BloomLevel(situation.round_next_level)
        return Step(
            decision="PROCEED",
            kind="practice",
            title=f"A question at the {level.value} level",
            reason=f"Good: on to the next question of {topic.title}, up the Bloom ladder.",
            target={"url": f"/quiz/{graded.round_id}#question", "round_id": graded.round_id},
        )
    reached = BloomLevel(graded.bloom_level) if graded.bloom_level else None
    higher = [q for q in topic.questions if reached is None or q.bloom_level.rank > reached.rank]
    if not higher:
        return None
    level = min((q.bloom_level for q in higher), key=lambda b: b.rank)
    return Step(
        decision="PROCEED",
        kind="practice",
        title=f"Practise {topic.title} at the {level.value} level",
        reason="Good: the next questions go one step up the Bloom ladder.",
        target=_practice_target(topic.id, above=reached.value if reached else None),
    )


def _mastered(graded: Graded, kb: KnowledgeBase, topic: Topic, situation: Situation) -> Step:
    review = (
        f" A review of it is scheduled for {situation.review_due:%d %b %Y}."
        if situation.review_due
        else ""
    )
    following = next_concept(kb, topic.id, situation.mastery)
    if following is None:
        return Step(
            decision="MASTERED",
            kind="review",
            title="Review what is due",
            reason=f"You have mastered {topic.title} and every concept of {kb.domain.title}."
            + review,
            target={"url": "/review"},
        )
    lesson = situation.lessons.get(following.id)
    target = _practice_target(following.id, lesson=lesson)
    return Step(
        decision="MASTERED",
        kind="lesson" if lesson else "practice",
        title=f"Go on to {following.title}",
        reason=f"You have mastered {topic.title}; {following.title} comes next in the course."
        + review,
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
