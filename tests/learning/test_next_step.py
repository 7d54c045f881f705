"""The path planner's decision, a pure function: each row of its table."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlparse

from tutorgraph.knowledge import get_domain
from tutorgraph.learning.next_step import (
    Graded,
    LessonRef,
    RoundQuestion,
    Situation,
    hint,
    how_it_went,
    next_concept,
    plan,
    point_subject,
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


# Where the answered question sits in its round: question 2 of 5, the third one waiting.
ANSWERED = RoundQuestion(question_id=7, number=2, count=5, attempt=1, bloom_level="understand")
WAITING = RoundQuestion(question_id=8, number=3, count=5, attempt=1, bloom_level="apply")
IN_ROUND = Situation(lessons=LESSONS, answered=ANSWERED, round_waiting=WAITING)


def test_retry_asks_the_same_question_again_as_the_same_question_with_a_hint() -> None:
    step = plan(practice_answer("RETRY"), KB, IN_ROUND)
    assert step.decision == "RETRY" and step.kind == "retry"
    assert step.requeue is not None and step.requeue.question_id == 7
    assert step.target["url"] == "/quiz/r1#question"
    # the retry is question 2 again, not a new question 3 (nor 6 of 6)
    assert step.title == "Question 2 of 5 · second try, with a hint"
    nudge = step.requeue.hint
    assert "A generator object is returned lazily" not in nudge  # not the key point itself
    assert nudge not in step.reason  # shown with the question, not twice
    assert "comes back once more, with a hint" in step.reason


def test_a_hint_is_a_sentence_about_the_missed_point_never_a_bag_of_words() -> None:
    """The hint that read "think about three, rows, object": every shipped rubric point now
    gives a sentence naming the point's subject in the knowledge base's words, or a plain
    sentence without one."""
    bag = re.compile(r"think about \w+, \w+")
    for domain in ("python", "machine-learning"):
        kb = get_domain(domain)
        for topic in kb.topics.values():
            for question in topic.questions:
                for point in question.rubric:
                    graded = Graded(
                        concept=topic.id,
                        decision="RETRY",
                        score=0.2,
                        question=question.text,
                        answer="no idea",
                        missing_key_points=(point,),
                    )
                    text = hint(graded, topic)
                    assert not bag.search(text), text
                    assert text.endswith(".") and text[0].isupper(), text
                    subject = text.partition("think about what happens to ")[2].rstrip(".")
                    if subject:  # words of the point, or of the key point it belongs to
                        grounded = [point, *topic.key_points]
                        assert any(subject.lower() in g.lower() for g in grounded), text
                    assert point not in text  # a nudge, not the answer


def test_the_grid_hint_of_the_issue_names_what_the_answer_missed() -> None:
    topic = KB.topic("python-data-model")
    question = next(q for q in topic.questions if "3x3 grid" in q.text)
    graded = Graded(
        concept=topic.id,
        decision="RETRY",
        score=0.3,
        question=question.text,
        answer="the rows are copies",
        missing_key_points=tuple(question.rubric[1:]),
    )
    text = hint(graded, topic)
    assert "think about three, rows, object" not in text
    assert point_subject(question.rubric[1]) == "all three rows"
    assert "think about what happens to all three rows." in text


def test_the_tutor_step_never_speaks_in_the_learners_name() -> None:
    """After one 74% answer, Continue posted "Explain ... another way: I keep getting it
    wrong." as the learner's message. The tutor is opened on the concept in a teaching mode
    and makes the first move: no message rides in the address."""
    for decision, attempt, score in (
        ("ALTERNATE", 1, 0.74),
        ("RETRY", 2, 0.2),
        ("RETRY", 3, 0.2),
        ("REMEDIATE", 1, 0.1),
    ):
        graded = practice_answer(decision, attempt=attempt, score=score, source="api")
        mastered = {"control-flow-comprehensions": 0.9, "functions-and-scope": 0.9}
        step = plan(graded, KB, Situation(lessons=LESSONS, mastery=mastered))
        assert step.kind == "tutor", (decision, attempt)
        url = urlparse(step.target["url"])
        query = parse_qs(url.query)
        assert "ask" not in query and not any("wrong" in v[0] for v in query.values())
        assert url.path == "/learn/py/iterators"
        assert query["focus"] == ["iterators-generators"]
        assert query["mode"][0] in ("analogy", "eli5", "code")
        assert "I " not in step.title and "I keep" not in step.reason


def test_a_second_failed_attempt_escalates_to_another_explanation_in_the_lesson() -> None:
    step = plan(practice_answer("RETRY", attempt=2, source="api"), KB, Situation(lessons=LESSONS))
    assert step.decision == "ALTERNATE" and step.kind == "tutor"
    query = parse_qs(urlparse(step.target["url"]).query)
    assert query["mode"] == ["eli5"]  # attempt 2: the analogy was the first way in


def test_inside_a_round_the_step_never_points_away_from_the_waiting_question() -> None:
    """ "Shore up Tokenization first" stood above a question of the same round: while the round
    has a question waiting, the step is that question, and the rest comes after the round."""
    low = {"control-flow-comprehensions": 0.2, "functions-and-scope": 0.5}
    remediate = plan(
        practice_answer("REMEDIATE"), KB, replace(IN_ROUND, mastery=low, can_ask_again=True)
    )
    assert remediate.kind == "practice" and remediate.target["question_id"] == 8
    assert remediate.target["url"] == "/quiz/r1#question"
    assert remediate.title == "Go on to question 3 of 5"
    assert "After the round: shore up Control flow and comprehensions" in remediate.reason
    assert "apply level, where you use it on a new problem" in remediate.reason
    # ALTERNATE in a round: the question again, with a hint; the tutor after the round
    alternate = plan(practice_answer("ALTERNATE", score=0.74), KB, IN_ROUND)
    assert alternate.kind == "retry" and alternate.requeue is not None
    assert alternate.title == "Question 2 of 5 · second try, with a hint"
    assert "After the round: see Iterators" in alternate.reason
    # the attempts are used up: not "try again" (the round would show another question)
    stuck = plan(practice_answer("RETRY"), KB, replace(IN_ROUND, can_ask_again=False))
    assert stuck.requeue is None and stuck.kind == "practice"
    assert stuck.target["question_id"] == 8


def test_the_remediation_a_round_owes_comes_when_it_ends() -> None:
    earlier = practice_answer("ALTERNATE", score=0.65, source="practice")
    last = plan(
        practice_answer("PROCEED", score=0.85),
        KB,
        replace(IN_ROUND, round_waiting=None, round_owes=earlier),
    )
    assert last.kind == "tutor" and "explained another way" in last.title
    assert last.reason.startswith("A strong answer (85%). That was the round's last question.")
    # nothing owed: up the Bloom ladder in a new round
    clean = plan(practice_answer("PROCEED", score=0.85), KB, replace(IN_ROUND, round_waiting=None))
    assert clean.kind == "practice" and clean.target["start_topic"] == "iterators-generators"


def test_the_steps_words_match_the_score() -> None:
    """The home card said a 95% answer "did not hold together"."""
    gloomy = ("did not hold together", "missed", "did not click", "gap is")
    for decision in ("RETRY", "ALTERNATE", "REMEDIATE", "PROCEED", "MASTERED"):
        for score in (0.8, 0.85, 0.95, 1.0):
            step = plan(practice_answer(decision, score=score), KB, IN_ROUND)
            words = f"{step.title} {step.reason}".lower()
            assert words.startswith(step.title.lower())
            assert "strong answer" in step.reason.lower(), (decision, score)
            assert not any(g in step.reason.lower().split(". ")[0] for g in gloomy)
    assert how_it_went(0.95) == "A strong answer (95%)."
    assert how_it_went(0.74) == "Close (74%): most of the idea is there."
    assert how_it_went(0.1) == "That answer missed the main idea (10%)."


def test_alternate_without_a_lesson_opens_explore() -> None:
    step = plan(practice_answer("ALTERNATE", score=0.7, source="api"), KB, Situation())
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
    step = plan(practice_answer("REMEDIATE", source="api"), KB, Situation(mastery=mastery))
    assert step.decision == "ALTERNATE" and step.kind == "tutor"
    assert "The gap is in this idea itself" in step.reason


def test_proceed_goes_up_the_bloom_ladder() -> None:
    in_round = plan(practice_answer("PROCEED"), KB, IN_ROUND)
    assert in_round.kind == "practice" and in_round.target["url"] == "/quiz/r1#question"
    assert "apply level" in in_round.reason
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
