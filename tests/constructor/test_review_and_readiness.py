"""The author's review and a readiness they can believe (issue 36): prerequisites added and
removed (a circle refused), a topic split at a heading, units reordered, review chat that is
read (approved, split, or refused with what can be said), answerability that fails when the
material does not support a question's key points, a blank with its answer in its stem caught,
the share of questions that test understanding reported, publishing below the bar refused
without a confirmation, and a cosmetic edit that cannot make a course ready."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.conftest import register_and_login
from tests.constructor.sources import write_sources
from tutorgraph.constructor import readiness
from tutorgraph.constructor.edits import (
    STRUCTURE_EDITS,
    edit_structure,
    read_review_message,
)
from tutorgraph.constructor.item_checks import EvidenceIndex
from tutorgraph.constructor.readiness import assess, quiz_checks
from tutorgraph.constructor.state import (
    Check,
    CourseStructure,
    ItemAsks,
    QuizBank,
    QuizItem,
    SourceChunk,
    SourceFile,
    SourceSection,
    Topic,
    Unit,
)

API = "/api/v1/constructor"

SNAPSHOTS = (
    "Git models the history of a collection of files as a series of snapshots. A snapshot is "
    "the entire top-level tree being tracked. Each snapshot is called a commit in the vocabulary "
    "of Git. A commit records its parent commits, so the history forms a directed acyclic graph."
)
OBJECTS = (
    "Git stores every blob, tree and commit as an object addressed by the hash of its content. "
    "Because objects are addressed by content, storing the same file twice costs nothing. "
    "References are readable names, such as main, that point to commits in the object store."
)
BRANCHES = (
    "A branch is a reference that moves forward each time you commit on it. Switching branches "
    "rewrites the working tree to match the snapshot the branch points to, which is why "
    "uncommitted changes can block a switch."
)


def _sections() -> list[SourceSection]:
    texts = [
        ("s1", ["Data model", "Snapshots"], SNAPSHOTS),
        ("s2", ["Data model", "Objects"], OBJECTS),
        ("s3", ["Branches"], BRANCHES),
    ]
    return [
        SourceSection(
            section_id=sid,
            file_id="f1",
            level=len(path),
            heading_path=path,
            text=text,
            words=len(text.split()),
            has_code=False,
        )
        for sid, path, text in texts
    ]


def _chunks() -> list[SourceChunk]:
    return [
        SourceChunk(chunk_id=f"f1-{s.section_id}", file_id="f1", heading_path=s.heading_path,
                    text=s.text)
        for s in _sections()
    ]  # fmt: skip


def _topic(topic_id: str, title: str, sections: list[str], needs: list[str]) -> Topic:
    return Topic(
        topic_id=topic_id,
        title=title,
        unit_id="u1",
        section_ids=sections,
        key_points=["a point of the topic"],
        prerequisites=needs,
        words=60,
    )


def _structure() -> CourseStructure:
    """Three topics in one unit: Branches builds on Objects, which builds on Snapshots."""
    return CourseStructure(
        title="Git",
        units=[Unit(unit_id="u1", title="Git", topic_ids=["snap", "obj", "branch"])],
        topics=[
            _topic("snap", "Snapshots", ["s1"], []),
            _topic("obj", "Objects", ["s2"], ["snap"]),
            _topic("branch", "Branches!", ["s3"], ["obj"]),
        ],
    )


def _edits(*edits: dict[str, Any]) -> Any:
    return STRUCTURE_EDITS.validate_python(list(edits))


def test_an_author_adds_and_removes_prerequisites_and_a_circle_is_refused() -> None:
    added = edit_structure(
        _structure(),
        _edits({"op": "add_prerequisite", "topic_id": "branch", "prerequisite_id": "snap"}),
    )
    assert added.structure.topic("branch").prerequisites == ["obj", "snap"]
    assert added.notes == ["“Branches!” now builds on “Snapshots”."]

    circle = edit_structure(
        _structure(),
        _edits({"op": "add_prerequisite", "topic_id": "snap", "prerequisite_id": "branch"}),
    )
    assert circle.refused == 1 and "circle" in circle.notes[0]
    assert circle.structure.topic("snap").prerequisites == []
    itself = edit_structure(
        _structure(),
        _edits({"op": "add_prerequisite", "topic_id": "obj", "prerequisite_id": "obj"}),
    )
    assert "cannot build on itself" in itself.notes[0]

    removed = edit_structure(
        _structure(),
        _edits({"op": "remove_prerequisite", "topic_id": "obj", "prerequisite_id": "snap"}),
    )
    assert removed.structure.topic("obj").prerequisites == []
    again = edit_structure(
        removed.structure,
        _edits({"op": "remove_prerequisite", "topic_id": "obj", "prerequisite_id": "snap"}),
    )
    assert again.refused == 1 and "does not build on" in again.notes[0]


def test_a_topic_is_split_at_a_heading_with_key_points_from_each_part() -> None:
    structure = CourseStructure(
        title="Git",
        units=[Unit(unit_id="u1", title="Git", topic_ids=["model", "branch"])],
        topics=[
            _topic("model", "Data model", ["s1", "s2"], []),
            _topic("branch", "Branches", ["s3"], ["model"]),
        ],
    )
    split = edit_structure(
        structure,
        _edits({"op": "split_topic", "topic_id": "model", "heading": "objects"}),
        _sections(),
    )
    first, second, third = split.structure.ordered_topics()
    assert (first.title, second.title, third.title) == ("Data model", "Objects", "Branches")
    assert first.section_ids == ["s1"] and second.section_ids == ["s2"]
    assert second.prerequisites == ["model"] and third.prerequisites == ["model"]
    assert first.key_points and all(p in SNAPSHOTS for p in first.key_points)
    assert second.key_points and all(p in OBJECTS for p in second.key_points)
    assert first.words == len(SNAPSHOTS.split()) and second.words == len(OBJECTS.split())
    assert split.notes[0].startswith("Split “Data model” in two")
    single = edit_structure(
        split.structure,
        _edits({"op": "split_topic", "topic_id": "branch", "heading": "x"}),
        _sections(),
    )
    assert single.refused == 1 and "no heading inside it" in single.notes[0]


def test_a_unit_moves_and_a_prerequisite_left_after_its_topic_is_dropped_with_a_note() -> None:
    structure = CourseStructure(
        title="Git",
        units=[
            Unit(unit_id="u1", title="Model", topic_ids=["snap"]),
            Unit(unit_id="u2", title="Branching", topic_ids=["branch"]),
        ],
        topics=[
            _topic("snap", "Snapshots", ["s1"], []),
            _topic("branch", "Branches", ["s3"], ["snap"]),
        ],
    )
    moved = edit_structure(
        structure, _edits({"op": "move_unit", "unit_id": "u2", "direction": "up"})
    )
    assert [u.unit_id for u in moved.structure.units] == ["u2", "u1"]
    assert moved.structure.topic("branch").prerequisites == []
    assert moved.notes == [
        "“Branching” is now unit 1 of 2.",
        "“Branches” no longer builds on “Snapshots”, which now comes after it",
    ]
    edge = edit_structure(
        moved.structure, _edits({"op": "move_unit", "unit_id": "u2", "direction": "up"})
    )
    assert edge.refused == 1 and "already the first unit" in edge.notes[0]


def test_review_chat_approves_edits_by_title_and_refuses_what_it_cannot_read() -> None:
    structure = _structure()
    assert read_review_message("Looks good, approve!", "structure", structure).approve
    assert read_review_message("ok publish it", "quiz", structure, QuizBank()).approve
    assert not read_review_message("this does not look good", "structure", structure).approve
    assert read_review_message("branches needs snapshots", "structure", structure).edits == [
        {"op": "add_prerequisite", "topic_id": "branch", "prerequisite_id": "snap"}
    ]
    assert read_review_message("Objects doesn't need Snapshots.", "structure", structure).edits == [
        {"op": "remove_prerequisite", "topic_id": "obj", "prerequisite_id": "snap"}
    ]
    assert read_review_message("merge snap and obj", "structure", structure).edits == [
        {"op": "merge", "topic_ids": ["snap", "obj"]}
    ]
    assert read_review_message("rename branches to Branching", "structure", structure).edits == [
        {"op": "rename", "topic_id": "branch", "title": "Branching"}
    ]
    titled = structure.model_copy(
        update={
            "topics": [*structure.topics[:2], _topic("branch", "Branches and tags", ["s3"], [])]
        }
    )
    merge_then_approve = read_review_message(
        "ok, please merge objects and branches and tags, then approve", "structure", titled
    )
    assert merge_then_approve.approve
    assert merge_then_approve.edits == [{"op": "merge", "topic_ids": ["obj", "branch"]}]
    gibberish = read_review_message("purple monkey dishwasher", "structure", structure)
    assert not gibberish.approve and not gibberish.edits
    assert "I did not understand" in gibberish.refusal
    for saying in ("approve", "split", "merge", "rename", "drop", "needs", "Approve structure"):
        assert saying in gibberish.refusal
    unknown = read_review_message("drop Rebasing", "structure", structure)
    assert "there is no topic called “Rebasing”" in unknown.refusal
    two = CourseStructure(
        title="Git",
        units=[Unit(unit_id="u1", title="Git", topic_ids=["model"])],
        topics=[_topic("model", "Data model", ["s1", "s2"], [])],
    )
    split = read_review_message("split data", "structure", two)
    assert split.edits == [{"op": "split_topic", "topic_id": "model", "at_section_id": "s2"}]
    done = edit_structure(two, _edits(*split.edits), _sections())
    assert [t.title for t in done.structure.ordered_topics()] == ["Data model", "Objects"]
    bank = QuizBank(items=[_item("obj-q1", "Why is a stored file free twice?", ["hashing"])])
    assert read_review_message("drop question 1", "quiz", structure, bank).edits == [
        {"op": "drop_item", "item_id": "obj-q1"}
    ]
    quiz_refusal = read_review_message("split Objects", "quiz", structure, bank).refusal
    assert "quiz bank review" in quiz_refusal and "Save and approve the quiz bank" in quiz_refusal


def _item(
    item_id: str,
    text: str,
    points: list[str],
    *,
    asks: ItemAsks = "why",
    topic: str = "obj",
    evidence: str = OBJECTS.split(". ")[0],
) -> QuizItem:
    return QuizItem(
        item_id=item_id, topic_id=topic, bloom_level="understand", type="conceptual",
        difficulty=2, text=text, reference_answer=points[0], key_points=points,
        evidence=evidence, asks=asks,
    )  # fmt: skip


def _check(checks: list[Any], name: str) -> Any:
    return next(c for c in checks if c.name == name)


def test_answerability_fails_when_the_material_does_not_support_the_key_points() -> None:
    supported = _item(
        "obj-q1",
        "Why does storing the same file twice in Git cost nothing?",
        ["objects are addressed by the hash of their content"],
    )
    unsupported = _item(  # its evidence is a real sentence; its key points are not in the text
        "obj-q2",
        "Why does Git compress objects with zlib before storing them?",
        ["zlib compression saves disk space and network bandwidth"],
    )
    bank = QuizBank(items=[supported, unsupported])
    checks = quiz_checks(_structure(), bank, EvidenceIndex(_chunks()), _sections())
    answerability = _check(checks, "answerability")
    assert answerability.score == 0.5 and not answerability.passed
    assert "1 of 2 questions (50%)" in answerability.detail
    assert "compress objects with zlib" in answerability.detail


def test_a_blank_whose_answer_is_in_its_own_stem_gives_it_away() -> None:
    blank = _item(
        "snap-q1",
        "Fill in the blank: each commit records its parent _____, so the history forms a "
        "directed acyclic graph.",
        ["commits"],
        asks="blank",
        topic="snap",
        evidence=SNAPSHOTS.split(". ")[3],
    )
    checks = quiz_checks(
        _structure(), QuizBank(items=[blank]), EvidenceIndex(_chunks()), _sections()
    )
    leak = _check(checks, "no leaks or duplicates")
    assert not leak.passed and "1 question giving the answer away" in leak.detail


def test_the_share_of_questions_that_test_understanding_is_reported() -> None:
    items = [
        _item("obj-q1", "Why does storing the same file twice in Git cost nothing?",
              ["objects are addressed by the hash of their content"]),
        _item("snap-q1", "What is a snapshot in Git?", ["the entire top-level tree being tracked"],
              asks="define", topic="snap"),
        _item("snap-q2", "What is a commit in Git?", ["a snapshot"], asks="define", topic="snap"),
        _item("branch-q1", "What is a branch?", ["a reference that moves forward"], asks="define",
              topic="branch"),
    ]  # fmt: skip
    checks = quiz_checks(_structure(), QuizBank(items=items), EvidenceIndex(_chunks()), _sections())
    understanding = _check(checks, "tests understanding")
    assert not understanding.passed and understanding.score < 1
    assert understanding.detail.startswith("1 of 4 questions (25%) ask why, how")
    assert "3 ask to define a term or fill in a blank" in understanding.detail


def test_a_cosmetic_rename_or_merge_does_not_make_a_not_ready_course_ready() -> None:
    recall = [
        _item(f"{t}-q{n}", f"What is {word} number {n}?", [point], asks="define", topic=t)
        for t, word, point in (
            ("snap", "a snapshot", "the entire top-level tree being tracked"),
            ("obj", "an object", "addressed by the hash of its content"),
            ("branch", "a branch", "a reference that moves forward each time you commit"),
        )
        for n in (1, 2, 3)
    ]
    files = [SourceFile(file_id="f1", filename="git.md", kind="markdown", title="Git",
                        markdown="", pages=1, words=200)]  # fmt: skip

    def report(structure: CourseStructure) -> Any:
        return assess(files=files, failures=[], structure=structure, sections=_sections(),
                      chunks=_chunks(), bank=QuizBank(items=recall))  # fmt: skip

    before = report(_structure())
    assert not before.ready
    renamed = edit_structure(
        _structure(), _edits({"op": "rename", "topic_id": "snap", "title": "Git snapshots"})
    )
    after = report(renamed.structure)
    assert not after.ready and after.readiness == before.readiness
    merged = edit_structure(_structure(), _edits({"op": "merge", "topic_ids": ["snap", "obj"]}))
    recomputed = report(merged.structure)
    assert not recomputed.ready
    assert recomputed.items_per_topic != before.items_per_topic  # computed from the merge


def _wait(client: TestClient, sid: str, who: dict[str, str]) -> dict[str, Any]:
    for _ in range(600):
        view = client.get(f"{API}/session/status/{sid}", headers=who).json()
        if view["status"] != "running":
            return view  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise AssertionError("the build did not finish")


def test_chat_at_review_is_read_and_publishing_below_the_bar_needs_a_confirmation(
    client: TestClient, tmp_path: Path
) -> None:
    ann = register_and_login(client, "ann@example.org")
    sid = client.post(f"{API}/session/start", json={"title": "Py"}, headers=ann).json()[
        "session_id"
    ]
    path = write_sources(tmp_path / "src")[0]  # the Markdown chapter
    files = {"file": (path.name, path.read_bytes())}
    client.post(f"{API}/session/upload", data={"session_id": sid}, files=files, headers=ann)

    def turn(**body: Any) -> dict[str, Any]:
        answer = client.post(f"{API}/session/chat", json={"session_id": sid, **body}, headers=ann)
        assert answer.status_code == 202, answer.text
        return _wait(client, sid, ann)

    turn(action="ingest")
    view = turn(action="build_structure")
    assert view["review"]["kind"] == "structure"
    view = turn(message="purple monkey dishwasher")
    assert view["phase"] == "structure_review"
    assert view["messages"][-2] == {"role": "user", "content": "purple monkey dishwasher"}
    assert "I did not understand" in view["messages"][-1]["content"]
    assert "Approve structure" in view["review"]["note"]
    view = turn(message="looks good, approve")
    assert view["phase"] == "structure_approved"
    assert view["messages"][-1]["content"].startswith("Structure approved")

    view = turn(action="generate_quiz")
    drop_all = [{"op": "drop_item", "item_id": i["item_id"]} for i in view["quiz_bank"]["items"]]
    view = turn(edits=drop_all, approve=True)  # a bank with no question is below any bar
    assert view["phase"] == "validated" and not view["report"]["ready"]

    refused = client.post(
        f"{API}/session/chat", json={"session_id": sid, "action": "publish"}, headers=ann
    )
    assert refused.status_code == 409
    assert "Answers found in your material" in refused.json()["detail"]
    view = turn(message="publish it")
    assert view["phase"] == "validated" and view["course_slug"] is None
    assert view["messages"][-1]["content"].startswith("Not published yet")
    view = turn(message="publish it anyway")
    assert view["phase"] == "published" and view["course_slug"]
    view = turn(action="publish", confirm=True)  # publishing again, confirmed by the page
    assert view["phase"] == "published"


def test_the_cli_publishes_a_course_below_the_bar_only_when_told_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from tutorgraph.cli import app

    real = readiness.assess_state

    def below_the_bar(state: Any) -> Any:
        """The build's own report with one blocking check failed, however good its bank."""
        report = real(state)
        failed = Check(name="tests understanding", passed=False, score=0.2, weight=0.1,
                       detail="1 of 5 questions (20%) ask why")  # fmt: skip
        checks = [c for c in report.checks if c.name != failed.name] + [failed]
        return report.model_copy(update={"ready": False, "checks": checks})

    monkeypatch.setattr(readiness, "assess_state", below_the_bar)
    runner = CliRunner()
    assert runner.invoke(app, ["db", "upgrade"]).exit_code == 0
    user = ["users", "create", "--email", "ann@example.org", "--name", "Ann"]
    assert runner.invoke(app, [*user, "--password", "plenty long enough"]).exit_code == 0
    notes = tmp_path / "git.md"
    notes.write_text(f"# Git\n\n## Snapshots\n\n{SNAPSHOTS}\n\n## Objects\n\n{OBJECTS}\n")
    build = ["course", "build", str(notes), "--owner", "ann@example.org"]
    held = runner.invoke(app, build)
    assert held.exit_code == 1, held.output
    assert "Not published: the course is below the readiness bar" in held.output
    assert "--publish-anyway" in held.output and "not published" in held.output
    assert "Questions that test understanding: 1 of 5 questions (20%) ask why" in held.output
    published = runner.invoke(app, [*build, "--publish-anyway"])
    assert published.exit_code == 0, published.output
    assert "published as /courses/" in published.output
