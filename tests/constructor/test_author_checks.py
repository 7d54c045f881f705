"""An author adds executable checks to a generated quiz item: refused unless they accept their
solution and reject an empty answer; published with the course's domain, where grading uses
them."""

from __future__ import annotations

import pytest

from tutorgraph.constructor.edits import QUIZ_EDITS, apply_quiz_edits
from tutorgraph.constructor.state import QuizBank, QuizItem
from tutorgraph.errors import InputError
from tutorgraph.grading.checks.spec import AnswerChecks
from tutorgraph.knowledge.bloom import BloomLevel
from tutorgraph.knowledge.schema import Question
from tutorgraph.sandbox import sandbox_available

needs_sandbox = pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")

ITEM = QuizItem(
    item_id="q1",
    topic_id="t1",
    bloom_level=BloomLevel.APPLY,
    type="scenario",
    difficulty=2,
    text="Write `double(x)` that returns twice its argument.",
    reference_answer="def double(x):\n    return 2 * x",
    key_points=["returns 2 * x"],
    evidence="Functions return values.",
)


def checks(expect: str) -> dict[str, object]:
    return {
        "solution": "def double(x):\n    return 2 * x",
        "cases": [
            {
                "name": "double of 21",
                "expr": "double(21)",
                "expect": expect,
                "points": ["returns 2 * x"],
            }
        ],
        "requires": ["def:double"],
    }


@needs_sandbox
def test_checks_that_accept_their_solution_are_kept_and_published() -> None:
    edits = QUIZ_EDITS.validate_python(
        [{"op": "edit_item", "item_id": "q1", "checks": checks("42")}]
    )
    bank = apply_quiz_edits(QuizBank(items=[ITEM]), edits)
    assert bank.items[0].checks is not None
    question = Question.model_validate(
        {
            "id": "q1",
            "bloom_level": "apply",
            "type": "scenario",
            "difficulty": 2,
            "text": ITEM.text,
            "reference_answer": ITEM.reference_answer,
            "rubric": ITEM.key_points,
            "checks": bank.items[0].checks.model_dump(mode="json", exclude_defaults=True),
        }
    )
    assert isinstance(question.checks, AnswerChecks)


@needs_sandbox
def test_checks_their_own_solution_fails_are_refused_with_the_case() -> None:
    edits = QUIZ_EDITS.validate_python(
        [{"op": "edit_item", "item_id": "q1", "checks": checks("41")}]
    )
    with pytest.raises(InputError, match="double of 21"):
        apply_quiz_edits(QuizBank(items=[ITEM]), edits)


def test_a_program_question_checks_the_numbers_its_source_shows() -> None:
    from tutorgraph.constructor.questions import output_checks

    checks = output_checks(["It averages the list.", "It prints: 2.75 / 11"])
    assert checks is not None
    assert checks.numbers[0].values == [2.75, 11.0] and checks.numbers[0].tolerance == 0.005
    assert output_checks(["It prints: True / 0"]) is None  # nothing a slip could miss
    assert output_checks(["It explains."]) is None
