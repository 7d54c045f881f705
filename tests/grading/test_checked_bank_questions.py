"""Issue 34's failures, graded end to end by the evaluator (offline engine) on the shipped
knowledge base: code is run, numbers are computed, a slip is named, only what was asked is
required, and a correct construct is never read as a misconception. Each of these failed on
the grader before answer checks (commit 87e3930)."""

from __future__ import annotations

import pytest

from tutorgraph.engines import offline_engine
from tutorgraph.grading.types import GradingRequest
from tutorgraph.knowledge.loader import shipped_domains
from tutorgraph.learner_model.evaluator import Evaluator, GradeResult
from tutorgraph.sandbox import sandbox_available

needs_sandbox = pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")


async def graded(question_id: str, answer: str) -> GradeResult:
    for kb in shipped_domains().values():
        for topic in kb.domain.topics:
            if (question := topic.question(question_id)) is not None:
                request = GradingRequest(
                    question=question.text,
                    reference_answer=question.reference_answer,
                    answer=answer,
                    concept=topic.id,
                )
                return await Evaluator(offline_engine()).grade(request)
    raise AssertionError(f"no question {question_id}")


@needs_sandbox
async def test_three_comprehensions_written_as_code_only_are_right() -> None:
    answer = (
        "`[n*n for n in nums if n % 2 == 0]` / `{w: len(w) for w in words if len(w) > 3}` / "
        "`{w[0] for w in words if w}`"
    )
    result = await graded("control-flow-comprehensions-apply-1", answer)
    assert result.score >= 0.8, result.reasoning
    assert result.error_type is None and result.decision in ("MASTERED", "PROCEED")


@needs_sandbox
async def test_a_wrong_comprehension_is_named_by_its_failing_case() -> None:
    answer = "[n*n for n in nums if n % 2]\n{w: len(w) for w in words}\n{w[0] for w in words if w}"
    result = await graded("control-flow-comprehensions-apply-1", answer)
    assert result.score < 0.8
    assert "expected" in result.feedback and "nums" in result.feedback


@needs_sandbox
async def test_code_that_loops_forever_is_a_clear_procedural_error() -> None:
    result = await graded("control-flow-comprehensions-apply-1", "while True:\n    pass")
    assert result.score < 0.4 and result.error_type == "PROCEDURAL"
    assert "did not finish" in result.feedback


async def test_the_attention_slip_is_named_and_scored_between_wrong_and_right() -> None:
    question = "self-attention-apply-1"
    slip = await graded(
        question,
        "Scores: q.k1 = 1, q.k2 = 0. softmax([1, 0]) = [0.73, 0.27]. "
        "Output = 0.73*[1, 2] + 0.27*[3, 4] = [1.54, 2.54].",
    )
    right = await graded(
        question,
        "Scores 1 and 0, divided by sqrt(2): 0.707 and 0; softmax gives 0.67 and 0.33; "
        "the output is 0.67*[1, 2] + 0.33*[3, 4] = [1.66, 2.66].",
    )
    wrong = await graded(question, "The weights are equal, 0.5 and 0.5, so the output is [2, 3].")
    assert wrong.score < slip.score < right.score
    assert right.score >= 0.8 and wrong.score < 0.4
    assert slip.error_type == "CARELESS"
    assert "sqrt(2)" in slip.feedback and "0.73" in slip.feedback.replace("0.731", "0.73")


async def test_a_point_the_question_does_not_ask_for_does_not_cost_the_grade() -> None:
    result = await graded(
        "self-attention-remember-1",
        "Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V. In self-attention Q, K and V all "
        "come from the same input X through learned projections: Q = X W_Q, K = X W_K, "
        "V = X W_V.",
    )
    assert result.score >= 0.8, result.reasoning


@needs_sandbox
async def test_sorted_used_correctly_is_not_the_sort_returns_a_list_misconception() -> None:
    result = await graded(
        "builtin-data-structures-apply-2",
        "`names.sort()` sorts in place and returns None, so `names = names.sort()` stores None. "
        "Fix:\n\nnames = sorted(names, key=str.lower)\nprint(names)",
    )
    assert "sort-returns-list" not in [m.id for m in result.misconceptions]
    assert result.score >= 0.8, result.reasoning


@needs_sandbox
async def test_a_valid_pyproject_is_parsed_and_read() -> None:
    answer = """```toml
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "textstats"
version = "0.1.0"
requires-python = ">=3.10"
dependencies = ["requests>=2.28"]

[project.optional-dependencies]
dev = ["pytest"]

[project.scripts]
textstats = "textstats.cli:main"
```"""
    result = await graded("packaging-environments-apply-1", answer)
    assert result.score >= 0.8, result.reasoning


@needs_sandbox
async def test_a_dict_and_sorted_word_count_is_right() -> None:
    answer = """def top3(words):
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    return sorted(counts.items(), key=lambda kv: kv[1], reverse=True)[:3]
"""
    result = await graded("builtin-data-structures-apply-1", answer)
    assert result.score >= 0.8, result.reasoning
