from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from tutorgraph.cli import app
from tutorgraph.knowledge import (
    TARGET_LEVELS,
    BloomLevel,
    KnowledgeBaseError,
    load_domain_file,
    shipped_domains,
)


def topic(
    topic_id: str, prerequisites: list[str] | None = None, **extra: object
) -> dict[str, object]:
    return {
        "id": topic_id,
        "title": topic_id.title(),
        "summary": "A topic.",
        "target_levels": ["junior"],
        "prerequisites": prerequisites or [],
        "target_confidence": {"junior": 0.7},
        "difficulty": 2,
        "key_points": ["a point"],
        "misconceptions": [{"id": f"{topic_id}-m", "description": "wrong", "cues": ["oops"]}],
        "questions": [
            {
                "id": f"{topic_id}-q1",
                "bloom_level": "remember",
                "type": "conceptual",
                "difficulty": 1,
                "text": "What is it?",
                "reference_answer": "It is a thing.",
                "rubric": ["a thing"],
                "misconceptions": [f"{topic_id}-m"],
            }
        ],
        **extra,
    }


def write(tmp_path: Path, topics: list[dict[str, object]]) -> Path:
    path = tmp_path / "demo.yaml"
    path.write_text(yaml.safe_dump({"domain": "demo", "title": "Demo", "topics": topics}))
    return path


def test_a_valid_domain_loads_in_prerequisite_order_keeping_yaml_order(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        [topic("c", ["b"]), topic("a"), topic("b", ["a"]), topic("d", ["a"])],
    )
    kb = load_domain_file(path)
    assert kb.order == ["a", "b", "c", "d"]
    assert kb.ancestors("c") == ["a", "b"]
    assert kb.descendants("a") == ["b", "c", "d"]
    assert kb.agenda("junior") == ["a", "b", "c", "d"]
    assert kb.target_graph("junior")["c"] == 0.7


@pytest.mark.parametrize(
    ("topics", "message"),
    [
        ([topic("a", ["zzz"])], "topic a: unknown prerequisite 'zzz'"),
        ([topic("a", ["b"]), topic("b", ["a"])], "topic a: prerequisite cycle a -> b -> a"),
        ([topic("a"), topic("a")], "topic a: duplicate topic id"),
        (
            [{k: v for k, v in topic("a").items() if k != "summary"}],
            "topic a: summary: Field required",
        ),
        (
            [topic("a", questions=[{"id": "q", "bloom_level": "memorise"}])],
            "topic a: question q: bloom_level",
        ),
        (
            [topic("a", target_confidence={"mid": 0.5})],
            "topic a: target_confidence has no value for junior",
        ),
    ],
)
def test_broken_domains_fail_naming_file_and_topic(
    tmp_path: Path, topics: list[dict[str, object]], message: str
) -> None:
    path = write(tmp_path, topics)
    with pytest.raises(KnowledgeBaseError) as info:
        load_domain_file(path)
    assert info.value.message.startswith(str(path))
    assert message in info.value.message


def test_kb_validate_cli_accepts_good_and_rejects_broken_yaml(tmp_path: Path) -> None:
    runner = CliRunner()
    good = write(tmp_path, [topic("a")])
    result = runner.invoke(app, ["kb", "validate", str(good)])
    assert result.exit_code == 0 and "1 topics" in result.output
    broken = tmp_path / "broken.yaml"
    broken.write_text("domain: demo\ntitle: Demo\ntopics:\n  - id: a\n    title: [unclosed\n")
    result = runner.invoke(app, ["kb", "validate", str(broken)])
    assert result.exit_code != 0
    assert isinstance(result.exception, KnowledgeBaseError)
    assert "not valid YAML" in result.exception.message


@pytest.mark.parametrize("name", ["python", "machine-learning"])
def test_shipped_domains_meet_the_content_bar(name: str) -> None:
    kb = shipped_domains()[name]
    assert len(kb.topics) >= 12
    levels_covered = {lvl for t in kb.topics.values() for lvl in t.target_levels}
    assert levels_covered == set(TARGET_LEVELS)
    for topic_ in kb.topics.values():
        assert len(topic_.misconceptions) >= 2, topic_.id
        assert len(topic_.resources) >= 3, topic_.id
        assert {q.bloom_level for q in topic_.questions} == set(BloomLevel), topic_.id
    types = {q.type for t in kb.topics.values() for q in t.questions}
    assert types == {"conceptual", "scenario", "debugging", "design"}


def write_examples(tmp_path: Path, examples: object) -> None:
    (tmp_path / "examples").mkdir(exist_ok=True)
    (tmp_path / "examples" / "demo.yaml").write_text(yaml.safe_dump({"examples": examples}))


def test_graded_examples_beside_a_domain_join_their_questions(tmp_path: Path) -> None:
    path = write(tmp_path, [topic("a")])
    write_examples(
        tmp_path,
        {
            "a-q1": [
                {"grade": "correct", "answer": "A thing it is."},
                {"grade": "wrong", "answer": "Nothing at all.", "misconception": "a-m"},
            ]
        },
    )
    question = load_domain_file(path).topic("a").questions[0]
    assert [(e.grade, e.misconception) for e in question.examples] == [
        ("correct", None),
        ("wrong", "a-m"),
    ]


@pytest.mark.parametrize(
    ("examples", "message"),
    [
        ({"zzz-q9": [{"grade": "correct", "answer": "x"}]}, "examples for unknown question"),
        ({"a-q1": [{"grade": "great", "answer": "x"}]}, "topic a: question a-q1: examples"),
        ({"a-q1": [{"grade": "correct", "answer": ""}]}, "topic a: question a-q1: examples"),
        (
            {"a-q1": [{"grade": "wrong", "answer": "x", "misconception": "b-m"}]},
            "names unknown misconception(s) b-m",
        ),
        (["not", "a", "mapping"], "expected 'examples:' mapping question ids to answers"),
    ],
)
def test_broken_graded_examples_fail_naming_their_place(
    tmp_path: Path, examples: object, message: str
) -> None:
    path = write(tmp_path, [topic("a")])
    write_examples(tmp_path, examples)
    with pytest.raises(KnowledgeBaseError) as info:
        load_domain_file(path)
    assert message in info.value.message


def test_every_shipped_question_has_graded_examples_of_each_grade() -> None:
    for kb in shipped_domains().values():
        for topic_ in kb.topics.values():
            for question in topic_.questions:
                grades = {e.grade for e in question.examples}
                assert grades == {"correct", "partial", "wrong"}, question.id
