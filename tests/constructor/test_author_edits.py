"""The author's own questions and the builder's words: a question added to a lesson's quiz bank
is checked like an edit (its lesson must exist, it must not give its answer away or repeat a kept
question), a refused edit says which field in the page's words, only the build's owner adds, and
the build's progress and replies read as plain sentences (counts in the right number, steps
instead of node names)."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from tests.conftest import register_and_login
from tests.constructor.sources import write_sources
from tutorgraph.constructor.build import build_course, uploads_from
from tutorgraph.constructor.coordinator import short_error
from tutorgraph.constructor.edits import QUIZ_EDITS, apply_quiz_edits
from tutorgraph.constructor.state import CourseStructure, ProgressEvent, QuizBank, QuizItem, Topic
from tutorgraph.constructor.state import Unit as CourseUnit
from tutorgraph.constructor.steps import STEPS, step_of
from tutorgraph.content.extract import ExtractionLimits
from tutorgraph.engines import offline_engine
from tutorgraph.errors import InputError

API = "/api/v1/constructor"


def _structure() -> CourseStructure:
    topics = [
        Topic(topic_id="loops", title="For loops", unit_id="u1", section_ids=[]),
        Topic(topic_id="functions", title="Defining functions", unit_id="u1", section_ids=[]),
    ]
    return CourseStructure(
        title="Python",
        units=[CourseUnit(unit_id="u1", title="Basics", topic_ids=["loops", "functions"])],
        topics=topics,
    )


def _bank() -> QuizBank:
    item = QuizItem(
        item_id="loops-q1",
        topic_id="loops",
        bloom_level="understand",
        type="conceptual",
        difficulty=2,
        text="What does a for loop repeat over?",
        reference_answer="It runs its body once for each item of an iterable.",
        key_points=["runs the body once for each item of an iterable"],
        evidence="A for loop runs its body once for each item.",
    )
    return QuizBank(items=[item], generated=1)


def _add(**fields: Any) -> list[Any]:
    edit = {
        "op": "add_item",
        "topic_id": "functions",
        "text": "Why give a repeated calculation a name with def?",
        "reference_answer": "The steps are written once and reused wherever the name is called.",
        **fields,
    }
    return QUIZ_EDITS.validate_python([edit])


def test_an_added_question_joins_its_lesson_with_its_answer_as_the_key_point() -> None:
    bank = apply_quiz_edits(_bank(), _add(bloom_level="apply"), _structure())
    added = bank.items[-1]
    assert [i.item_id for i in bank.kept()] == ["loops-q1", "functions-a1"]
    assert added.topic_id == "functions" and added.bloom_level == "apply"
    assert added.key_points == [added.reference_answer]  # no key points given: the answer
    again = apply_quiz_edits(
        bank,
        _add(
            text="What happens to the code in a function body until the function is called?",
            reference_answer="Nothing: the body runs only when the function is called.",
            key_points=["the body runs only when called", " "],
        ),
        _structure(),
    )
    assert again.items[-1].item_id == "functions-a2"
    assert again.items[-1].key_points == ["the body runs only when called"]


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"topic_id": "no-such-lesson"}, "choose the lesson"),
        ({"text": "What does a for loop repeat over?",
          "reference_answer": "It runs its body once for each item of an iterable.",
          "topic_id": "loops"}, "already has this question"),
        ({"text": "Explain: a function is a named block of code that runs when it is called.",
          "key_points": ["a function is a named block of code that runs when it is called"]},
         "gives its answer away"),
    ],
)  # fmt: skip
def test_an_added_question_that_does_not_fit_is_refused_with_the_reason(
    fields: dict[str, Any], reason: str
) -> None:
    with pytest.raises(InputError, match=reason):
        apply_quiz_edits(_bank(), _add(**fields), _structure())


def test_a_malformed_edit_names_its_field_as_the_page_does() -> None:
    with pytest.raises(ValidationError) as short:
        _add(text="Why?")
    assert short_error(short.value) == "the question needs at least 5 characters"
    with pytest.raises(ValidationError) as missing:
        QUIZ_EDITS.validate_python([{"op": "add_item", "topic_id": "loops", "text": "What is it?"}])
    assert short_error(missing.value) == "the model answer is missing"


async def test_the_builds_progress_and_replies_are_plain_sentences(tmp_path: Path) -> None:
    events: list[ProgressEvent] = []
    uploads = uploads_from(write_sources(tmp_path / "src"), ExtractionLimits())
    state = await build_course(uploads, model=offline_engine(), progress=events.append)
    words = [e.message for e in events] + [m["content"] for m in state["messages"]]
    words += [c.detail for c in state["report"].checks] if state.get("report") else []
    assert not [w for w in words if "(s)" in w], "a count reads 'file(s)'"
    assert not [w for w in words if re.search(r"\b\w+_\w+\b", w)], "a node or phase name shows"
    assert not [w for w in words if re.search(r"\b1 (files|questions|topics|units)\b", w)]
    assert any(w.startswith("I read 3 files") for w in words)
    # Every pipeline event belongs to one of the steps the page lists, in their order.
    seen = [step_of(e.stage) for e in events if step_of(e.stage)]
    assert set(seen) <= set(STEPS) and seen == sorted(seen, key=STEPS.index)
    assert {"Reading your files", "Building the lessons", "Writing quiz questions"} <= set(seen)


def _wait(client: TestClient, sid: str, who: dict[str, str]) -> dict[str, Any]:
    for _ in range(600):
        view = client.get(f"{API}/session/status/{sid}", headers=who).json()
        if view["status"] != "running":
            return view  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise AssertionError("the build did not finish")


def test_only_the_owner_adds_a_question_and_bad_input_is_a_clear_error(
    client: TestClient, tmp_path: Path
) -> None:
    ann = register_and_login(client, "ann@example.org")
    bo = register_and_login(client, "bo@example.org", name="Bo")
    sid = client.post(f"{API}/session/start", json={"title": "Py"}, headers=ann).json()[
        "session_id"
    ]
    for path in write_sources(tmp_path / "src")[:1]:  # the Markdown chapter is enough
        files = {"file": (path.name, path.read_bytes())}
        client.post(f"{API}/session/upload", data={"session_id": sid}, files=files, headers=ann)

    def turn(who: dict[str, str], **body: Any) -> Any:
        return client.post(f"{API}/session/chat", json={"session_id": sid, **body}, headers=who)

    for body in ({"action": "ingest"}, {"action": "build_structure"}, {"approve": True},
                 {"action": "generate_quiz"}):  # fmt: skip
        assert turn(ann, **body).status_code == 202
        view = _wait(client, sid, ann)
    assert view["review"]["kind"] == "quiz"
    topic = view["structure"]["topics"][0]
    before = len(view["quiz_bank"]["items"])
    add = {
        "op": "add_item",
        "topic_id": topic["topic_id"],
        "text": f"When would you reach for {topic['title'].lower()} in your own program?",
        "reference_answer": "When the same steps are needed in several places.",
    }

    assert turn(bo, edits=[add]).status_code == 404  # another author's build does not exist
    short = turn(ann, edits=[{**add, "text": "Why"}])
    assert short.status_code == 422
    assert short.json()["detail"] == (
        "That edit did not apply: the question needs at least 5 characters"
    )
    assert turn(ann, edits=[add]).status_code == 202
    view = _wait(client, sid, ann)
    items = view["quiz_bank"]["items"]
    assert len(items) == before + 1 and items[-1]["text"] == add["text"]
    assert view["review"] == {"kind": "quiz", "note": "1 edit applied."}
    assert turn(ann, edits=[add]).status_code == 202  # the same again: refused by the review
    view = _wait(client, sid, ann)
    assert len(view["quiz_bank"]["items"]) == before + 1
    assert "already has this question" in view["review"]["note"]
