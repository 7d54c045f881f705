"""What the evaluator fills in from the knowledge base when the caller leaves it out."""

from __future__ import annotations

from tutorgraph.grading.types import GradingRequest
from tutorgraph.knowledge import get_domain
from tutorgraph.knowledge.grading_context import enrich_request

TOPIC = "python-data-model"


def bank_request(**changes: object) -> GradingRequest:
    question = next(
        q for q in get_domain("python").topic(TOPIC).questions if q.id == f"{TOPIC}-understand-1"
    )
    values: dict[str, object] = {
        "question": question.text,
        "reference_answer": question.reference_answer,
        "answer": "b and a are one list.",
        "concept": TOPIC,
    }
    return GradingRequest.model_validate({**values, **changes})


def test_a_bank_question_asked_without_its_rubric_gets_its_key_points_and_examples() -> None:
    plain = bank_request()
    spaced = bank_request(question="  " + plain.question.replace(" ", "\n", 2))
    for request in (plain, spaced):
        enriched = enrich_request(request)
        assert len(enriched.rubric) >= 2
        assert set(enriched.phrasings) <= set(enriched.rubric) and enriched.phrasings
        assert {e.grade for e in enriched.examples} == {"correct", "partial", "wrong"}
        assert enriched.misconceptions


def test_the_callers_own_rubric_or_reference_is_kept() -> None:
    mine = enrich_request(bank_request(rubric=["my only point"]))
    assert mine.rubric == ["my only point"] and mine.phrasings == {}
    other_reference = enrich_request(bank_request(reference_answer="Something else entirely."))
    assert other_reference.rubric == []
    assert enrich_request(bank_request(concept=None)).rubric == []
