"""Phase 1: what the evaluator knows about a concept, from the knowledge base (cached, 1 h TTL)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from tutorgraph.grading.checks.spec import AnswerChecks
from tutorgraph.grading.types import GradedAnswer, GradingRequest, KnownMisconception
from tutorgraph.knowledge import find_topic

CACHE_TTL_SECONDS = 3600.0


@dataclass(frozen=True)
class ConceptInfo:
    concept: str
    difficulty: int
    misconceptions: tuple[KnownMisconception, ...]
    key_points: tuple[str, ...]
    phrasings: dict[str, tuple[str, ...]]  # rubric point -> accepted phrasings, whole topic
    examples: dict[str, tuple[GradedAnswer, ...]]  # question text (folded) -> graded answers
    # bank question (text and reference, whitespace folded) -> its rubric's key points
    rubrics: dict[tuple[str, str], tuple[str, ...]]
    # bank question (text, whitespace folded) -> its supporting points and its answer checks
    supporting: dict[str, tuple[str, ...]]
    checks: dict[str, AnswerChecks]


_cache: dict[str, tuple[float, ConceptInfo | None]] = {}


def concept_info(concept: str, *, now: float | None = None) -> ConceptInfo | None:
    """Concept difficulty and known misconceptions, or None for concepts the KB lacks."""
    now = time.monotonic() if now is None else now
    cached = _cache.get(concept)
    if cached is not None and now - cached[0] < CACHE_TTL_SECONDS:
        return cached[1]
    found = find_topic(concept)
    info = None
    if found is not None:
        kb, topic_id = found
        topic = kb.topic(topic_id)
        info = ConceptInfo(
            concept=topic_id,
            difficulty=topic.difficulty,
            misconceptions=tuple(
                KnownMisconception(id=m.id, description=m.description, cues=list(m.cues))
                for m in topic.misconceptions
            ),
            key_points=tuple(topic.key_points),
            phrasings={
                point: tuple(alternatives)
                for question in topic.questions
                for point, alternatives in question.phrasings.items()
            },
            examples={
                _fold(question.text): tuple(
                    GradedAnswer(answer=e.answer, grade=e.grade, misconception=e.misconception)
                    for e in question.examples
                )
                for question in topic.questions
                if question.examples
            },
            rubrics={
                (_fold(question.text), _fold(question.reference_answer)): tuple(question.rubric)
                for question in topic.questions
            },
            supporting={
                _fold(question.text): tuple(question.supporting)
                for question in topic.questions
                if question.supporting
            },
            checks={
                _fold(question.text): question.checks
                for question in topic.questions
                if question.checks is not None
            },
        )
    _cache[concept] = (now, info)
    return info


def enrich_request(request: GradingRequest) -> GradingRequest:
    """Fill difficulty, misconceptions, the rubric points' accepted phrasings and the question's
    graded example answers, supporting points and answer checks from the knowledge base when the
    caller left them out (phrasings found
    by the point's text and examples by the question's, so a practice or assessment question
    built from a bank question gets them too). A bank question asked with its own reference and
    no rubric (`tutorgraph grade --concept`) gets its key points, so it is graded as Practice
    grades it."""
    if request.concept is None:
        return request
    info = concept_info(request.concept)
    if info is None:
        return request
    update: dict[str, object] = {}
    rubric = request.rubric
    if not rubric:
        rubric = list(
            info.rubrics.get((_fold(request.question), _fold(request.reference_answer)), ())
        )
        if rubric:
            update["rubric"] = rubric
    if not request.misconceptions:
        update["misconceptions"] = list(info.misconceptions)
    if "difficulty" not in request.model_fields_set:
        update["difficulty"] = info.difficulty
    phrasings = {
        point: list(info.phrasings[point])
        for point in rubric
        if point in info.phrasings and point not in request.phrasings
    }
    if phrasings:
        update["phrasings"] = {**request.phrasings, **phrasings}
    asked = _fold(request.question)
    if not request.examples and asked in info.examples:
        update["examples"] = list(info.examples[asked])
    if not request.supporting and asked in info.supporting:
        update["supporting"] = [p for p in info.supporting[asked] if p in rubric]
    if request.checks is None and asked in info.checks:
        update["checks"] = info.checks[asked]
    return request.model_copy(update=update) if update else request


def _fold(text: str) -> str:
    return " ".join(text.split())
