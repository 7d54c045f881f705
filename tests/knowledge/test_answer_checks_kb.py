"""The shipped answer checks check: each accepts its question's solution and rejects an answer
that does nothing (`tutorgraph kb checks`), and the graded examples teachers marked correct pass
them whenever their code can be run."""

from __future__ import annotations

import pytest

from tutorgraph.grading.checks.grade import run_checks, with_checks
from tutorgraph.grading.checks.verify import verify
from tutorgraph.grading.offline import OfflineGrader
from tutorgraph.grading.types import GradingRequest
from tutorgraph.knowledge.grading_context import enrich_request
from tutorgraph.knowledge.loader import shipped_domains
from tutorgraph.knowledge.schema import Question
from tutorgraph.sandbox import sandbox_available

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")

# Correct graded examples the checks fail, each for a reason the checks cannot see past.
KNOWN = {
    ("transformers-apply-1", 0): "never writes the 12-block total the question's rubric asks for",
}


def checked_questions() -> list[Question]:
    return [
        q
        for kb in shipped_domains().values()
        for t in kb.domain.topics
        for q in t.questions
        if q.checks is not None
    ]


def test_both_domains_have_checked_questions() -> None:
    by_domain = {
        name: sum(q.checks is not None for t in kb.domain.topics for q in t.questions)
        for name, kb in shipped_domains().items()
    }
    assert by_domain["python"] >= 25 and by_domain["machine-learning"] >= 14


@pytest.mark.parametrize("question", checked_questions(), ids=lambda q: q.id)
def test_the_checks_accept_the_solution_and_reject_an_empty_answer(question: Question) -> None:
    assert question.checks is not None
    assert verify(question.id, question.checks).problems == []


@pytest.mark.parametrize("question", checked_questions(), ids=lambda q: q.id)
def test_correct_graded_examples_pass_the_checks(question: Question) -> None:
    assert question.checks is not None
    failing = []
    for index, example in enumerate(question.examples):
        if example.grade != "correct" or (question.id, index) in KNOWN:
            continue
        summary = run_checks(question.checks, example.answer, question=question.text).summary
        if summary.problem in ("fragments", "no_code"):
            continue  # read by the text grader, not run
        if summary.share < 1.0:
            failing.append((index, [line.message for line in summary.lines if not line.passed]))
    assert failing == []


@pytest.mark.parametrize("question", checked_questions(), ids=lambda q: q.id)
def test_the_reference_answer_is_graded_right(question: Question) -> None:
    """A reference answer explains in prose with pieces of code; graded as a learner's answer
    with the checks, it is right (its pieces are read, not run, when they do not run alone)."""
    topic = next(
        t for kb in shipped_domains().values() for t in kb.domain.topics if question in t.questions
    )
    request = enrich_request(
        GradingRequest(
            question=question.text,
            reference_answer=question.reference_answer,
            answer=question.reference_answer,
            concept=topic.id,
        )
    )
    verdict = with_checks(request, OfflineGrader().grade(request))
    assert verdict.score >= 0.8, verdict.reasoning
