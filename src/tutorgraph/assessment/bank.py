"""The offline question generator: draws from the knowledge base's question bank.

Rules, in order: never a question already asked in this assessment; the requested Bloom level, or
the nearest level that still has a question (the lower one on a tie: a fair question beats an
unfair one); among those, a question type not used on this topic yet, else the least recently
used type; then the easier question. A topic whose bank is exhausted gets a question built from
one of its key points (the key point is then the reference answer).

A probe stays at the requested level (the spec's "follow-up question at the same Bloom level"):
when the bank has no fresh question at exactly that level, the probe is a key-point question at
that level rather than a bank question from a neighbouring one."""

from __future__ import annotations

from tutorgraph.assessment import prompts
from tutorgraph.assessment.schemas import QuestionOutput, QuestionRequest
from tutorgraph.knowledge import BloomLevel, KnowledgeBase, Question, Topic


def draw_question(kb: KnowledgeBase, request: QuestionRequest) -> QuestionOutput:
    topic = kb.topic(request.topic_id)
    asked = set(request.asked_question_ids)
    fresh = [q for q in topic.questions if q.id not in asked]
    if request.probe:
        fresh = [q for q in fresh if q.bloom_level == request.bloom_level]
    if not fresh:
        return key_point_question(topic, request)
    return as_question_output(min(fresh, key=lambda q: _preference(q, request)))


def as_question_output(question: Question) -> QuestionOutput:
    """A bank question as the question generator's output (its rubric is the key points)."""
    return QuestionOutput(
        text=question.text,
        question_type=question.type,
        bloom_level=question.bloom_level,
        reference_answer=question.reference_answer,
        key_points=list(question.rubric),
        source_id=question.id,
    )


def _preference(question: Question, request: QuestionRequest) -> tuple[int, int, int, int, str]:
    wanted = request.bloom_level
    distance = question.bloom_level.distance(wanted)
    above = 1 if question.bloom_level > wanted else 0
    last_used = {kind: i for i, kind in enumerate(request.used_question_types)}
    rotation = last_used.get(question.type, -1)
    return (distance, above, rotation, question.difficulty, question.id)


def key_point_question(topic: Topic, request: QuestionRequest) -> QuestionOutput:
    """A question on a key point, unique per (key point, level) so it never repeats either."""
    asked = set(request.asked_question_ids)
    levels = sorted(BloomLevel, key=lambda level: (level.distance(request.bloom_level), level.rank))
    for level in levels:
        for index, point in enumerate(topic.key_points):
            question_id = f"{topic.id}-kp{index + 1}-{level.value}"
            if question_id in asked:
                continue
            hint = " ".join(point.split()[:6])
            text = prompts.KEY_POINT_QUESTIONS[level.value].format(
                title=topic.title, point=point, hint=hint
            )
            return QuestionOutput(
                text=text,
                question_type="conceptual" if level <= BloomLevel.UNDERSTAND else "scenario",
                bloom_level=level,
                reference_answer=point,
                key_points=[point],
                source_id=question_id,
            )
    raise LookupError(f"topic {topic.id}: every bank and key-point question was already asked")
