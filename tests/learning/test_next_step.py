"""The path planner's decision, a pure function: each row of its table."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import parse_qs, urlparse

from tutorgraph.knowledge import get_domain
from tutorgraph.learning.next_step import (
    Graded,
    LessonRef,
    Situation,
    hint,
    next_concept,
    plan,
    teaching_mode,
    weakest_prerequisite,
)

KB = get_domain("python")
LESSONS = {
    "iterators-generators": LessonRef("Iterators", "/learn/py/iterators"),
    "control-flow-comprehensions": LessonRef("Comprehensions", "/learn/py/comprehensions"),
}


def practice_answer(decision: str, *, attempt: int = 1, **extra: object) -> Graded:
    values: dict[str, object] = {
        "concept": "iterators-generators",
        "decision": decision,
        "score": 0.2,
        "question": "What does a generator function return when you call it?",
        "answer": "It runs the function and returns the list of values.",
        "missing_key_points": ("A generator object is returned lazily without running the body",),
        "source": "practice",
        "domain": "python",
        "round_id": "r1",
        "question_id": 7,
        "attempt": attempt,
        "bloom_level": "understand",
    }
    values.update(extra)
    return Graded(**values)  # type: ignore[arg-type]


def test_retry_asks_the_same_question_again_with_a_hint_that_does_not_give_it_away() -> None:
    step = plan(practice_answer("RETRY"), KB, Situation(lessons=LESSONS))
    assert step.decision == "RETRY" and step.kind == "retry"
    assert step.requeue is not None and step.requeue.question_id == 7
    assert step.target["url"] == "/quiz/r1#question"
    nudge = step.requeue.hint
    assert "lazily" in nudge or "object" in nudge  # a missed idea's words...
    assert "A generator object is returned lazily" not in nudge  # ...not the key point itself
    assert "function" not in nudge.split("think about")[-1]  # not words the question used


def test_a_second_failed_attempt_escalates_to_another_explanation_in_the_lesson() -> None:
    step = plan(practice_answer("RETRY", attempt=2), KB, Situation(lessons=LESSONS))
    assert step.decision == "ALTERNATE" and step.kind == "tutor"
    url = urlparse(step.target["url"])
    assert url.path == "/learn/py/iterators"
    query = parse_qs(url.query)
    assert query["mode"] == ["eli5"]  # attempt 2: the analogy was the first way in
    assert "Iterators, generators and itertools" in query["ask"][0]
    assert step.requeue is not None  # the question waits in the round (attempt 3 of 3)
    last = plan(practice_answer("RETRY", attempt=3), KB, Situation(lessons=LESSONS))
    assert last.kind == "tutor" and last.requeue is None  # no fourth attempt


def test_alternate_without_a_lesson_opens_explore() -> None:
    step = plan(practice_answer("ALTERNATE", score=0.7), KB, Situation())
    assert step.kind == "tutor" and step.target["url"].startswith("/explore?")
    assert step.target["mode"] == "analogy"


def test_remediate_sends_the_learner_to_the_weakest_prerequisite() -> None:
    mastery = {"control-flow-comprehensions": 0.2, "functions-and-scope": 0.5}
    step = plan(practice_answer("REMEDIATE"), KB, Situation(mastery=mastery, lessons=LESSONS))
    assert step.decision == "REMEDIATE" and step.kind == "remediate"
    assert step.target["start_topic"] == "control-flow-comprehensions"
    assert step.target["lesson_url"] == "/learn/py/comprehensions"
    assert "20%" in step.reason and step.requeue is None


def test_remediate_with_every_prerequisite_mastered_explains_the_concept_itself() -> None:
    mastery = {"control-flow-comprehensions": 0.9, "functions-and-scope": 0.85}
    step = plan(practice_answer("REMEDIATE"), KB, Situation(mastery=mastery))
    assert step.decision == "ALTERNATE" and step.kind == "tutor"
    assert step.reason.startswith("The gap is in this idea itself")


def test_proceed_goes_up_the_bloom_ladder() -> None:
    in_round = plan(practice_answer("PROCEED"), KB, Situation(round_next_level="apply"))
    assert in_round.kind == "practice" and in_round.target["url"] == "/quiz/r1#question"
    assert "apply" in in_round.title
    # the round is over: a new round above the level reached
    after = plan(practice_answer("PROCEED"), KB, Situation())
    assert after.target == {"start_topic": "iterators-generators", "above": "understand"}
    # nothing above "create": as MASTERED
    top = plan(practice_answer("PROCEED", bloom_level="create"), KB, Situation())
    assert top.decision == "MASTERED"


def test_mastered_moves_to_the_next_ready_concept_and_names_the_review_date() -> None:
    mastery = {t: 0.9 for t in KB.order[:7]}  # up to and including iterators-generators
    due = datetime(2026, 12, 9, tzinfo=UTC)
    step = plan(
        practice_answer("MASTERED", score=0.95),
        KB,
        Situation(mastery=mastery, review_due=due),
    )
    assert step.decision == "MASTERED"
    # of the ready concepts, the first that builds on iterators (before performance-profiling)
    assert step.target["start_topic"] == "concurrency-asyncio"
    assert "09 Dec 2026" in step.reason


def test_one_excellent_answer_is_not_a_mastered_concept() -> None:
    graded = practice_answer("MASTERED", score=0.95)
    early = plan(graded, KB, Situation(mastery={"iterators-generators": 0.57}))
    assert early.decision == "PROCEED" and early.target["start_topic"] == "iterators-generators"
    assert early.target["above"] == "understand"


def test_next_concept_prefers_ready_concepts_that_build_on_the_one_mastered() -> None:
    mastery = {
        "python-data-model": 0.9,
        "functions-and-scope": 0.9,
        "exceptions-context-managers": 0.85,
    }
    chosen = next_concept(KB, "control-flow-comprehensions", mastery)
    # builtin-data-structures is ready and earlier, but iterators builds on what was mastered
    assert chosen is not None and chosen.id == "iterators-generators"
    assert next_concept(KB, "x", {t: 0.95 for t in KB.order}) is None


def test_weakest_prerequisite_skips_mastered_ones() -> None:
    topic = KB.topic("software-design")
    mastery = {"classes-and-oop": 0.3, "type-hints": 0.1, "testing-pytest": 0.95}
    weakest = weakest_prerequisite(KB, topic, mastery)
    assert weakest is not None and weakest.id == "type-hints"


def test_hint_names_a_misconception_in_the_knowledge_base_words() -> None:
    topic = KB.topic("iterators-generators")
    misconception = topic.misconceptions[0]
    text = hint(practice_answer("RETRY", misconceptions=(misconception.id,)), topic)
    assert text.startswith("Careful, a common mix-up is ")
    assert misconception.description.rstrip(".").split(" ", 1)[1] in text


def test_teaching_modes_rotate() -> None:
    topic = KB.topic("iterators-generators")
    assert [teaching_mode(topic, a) for a in (1, 2, 3, 4)] == ["analogy", "eli5", "code", "code"]


def test_an_answer_outside_the_knowledge_base_points_to_reviews() -> None:
    step = plan(Graded(concept="cooking", decision="RETRY", score=0.1), None, Situation())
    assert step.kind == "review" and step.target == {"url": "/review"}


def test_graded_reads_the_stored_event_payload() -> None:
    graded = Graded.from_payload(
        {
            "concept": "iterators-generators",
            "decision": "RETRY",
            "score": 0.1,
            "misconceptions": ["m1"],
            "source": {"kind": "practice", "round_id": "r", "question_id": 3, "attempt": 2},
        }
    )
    assert graded.source == "practice" and graded.attempt == 2 and graded.misconceptions == ("m1",)
