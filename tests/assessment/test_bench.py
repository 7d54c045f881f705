"""The assessment benchmark: simulated learners behave as documented, the report is written."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from tutorgraph.cli import app
from tutorgraph.knowledge import get_domain
from tutorgraph_bench.assessment import paraphrase_credit
from tutorgraph_bench.learners import SimulatedLearner

PARAPHRASES = Path(__file__).resolve().parents[2] / "benchmarks" / "paraphrased_answers.yaml"


def _learner(style: str = "consistent") -> SimulatedLearner:
    kb = get_domain("python")
    mastery = {topic: 0.0 for topic in kb.agenda("mid")}
    mastery["python-data-model"] = 0.95  # mastered (target 0.75)
    mastery["builtin-data-structures"] = 0.5  # a gap
    return SimulatedLearner(kb, "mid", mastery, random.Random(3), style)  # type: ignore[arg-type]


def test_consistent_learners_answer_mastered_topics_with_the_reference() -> None:
    learner = _learner()
    kb = learner.kb
    assert "python-data-model" not in learner.true_gaps()
    assert "builtin-data-structures" in learner.true_gaps()
    for question in kb.topic("python-data-model").questions:
        assert learner.answer(question.id, "python-data-model") == question.reference_answer
    partial = [
        learner.answer(q.id, "builtin-data-structures")
        for q in kb.topic("builtin-data-structures").questions
    ]
    references = [q.reference_answer for q in kb.topic("builtin-data-structures").questions]
    assert all(len(a) < len(r) for a, r in zip(partial, references, strict=True))
    weak = kb.topic("functions-and-scope").questions
    blank = [learner.answer(q.id, "functions-and-scope") for _ in range(4) for q in weak]
    assert sum(a.startswith("I'm not sure.") for a in blank) > len(blank) / 2  # mastery 0
    assert any("As far as I know" in a for a in blank)  # misconception-driven, half the time


def test_noisy_learners_know_a_question_with_probability_mastery() -> None:
    learner = _learner("noisy")
    question = learner.kb.topic("python-data-model").questions[0]
    answers = [learner.answer(question.id, "python-data-model") for _ in range(200)]
    share = sum(a == question.reference_answer for a in answers) / len(answers)
    assert 0.88 <= share <= 1.0


def test_the_benchmark_writes_its_section(tmp_path: Path) -> None:
    out = tmp_path / "BENCHMARKS.md"
    result = CliRunner().invoke(
        app,
        [
            *("bench", "assessment", "--learners", "1", "--seed", "3", "--out", str(out)),
            *("--paraphrases", str(PARAPHRASES)),
        ],
    )
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert "<!-- bench:assessment -->" in text and "<!-- /bench:assessment -->" in text
    assert "Command: `tutorgraph bench assessment --learners 1 --seed 3`" in text
    assert text.count("| python / mid | 1 | 40 |") == 2  # both learner styles
    assert "Orchestration cost per answered question" in text
    assert "### Correct answers in other words" in text  # the repository's paraphrase file
    assert "consistent learners: gap F1" in result.output


async def test_paraphrased_answers_are_scored_against_their_references(tmp_path: Path) -> None:
    path = tmp_path / "paraphrases.yaml"
    path.write_text(
        "answers:\n"
        "- domain: python\n"
        "  question: python-data-model-remember-1\n"
        "  answer: Each object has an identity, a type and a value; id(obj) gives its identity\n"
        "    and type(obj) its type.\n",
        encoding="utf-8",
    )
    credit = await paraphrase_credit(path)
    assert credit.answers == 1
    assert 0.0 < credit.confidence < credit.reference_confidence <= 1.0
    path.write_text("answers:\n- {domain: python, question: nope, answer: x}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no question nope"):
        await paraphrase_credit(path)


def test_the_shipped_paraphrases_name_real_questions() -> None:
    rows = yaml.safe_load(PARAPHRASES.read_text(encoding="utf-8"))["answers"]
    keys = [(row["domain"], row["question"]) for row in rows]
    assert len(keys) == len(set(keys)) >= 40
    assert all(get_domain(domain).question(question) for domain, question in keys)
