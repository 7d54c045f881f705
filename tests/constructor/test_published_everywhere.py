"""A course built from uploads and published works everywhere a shipped course does (issue 36,
decision record 0055): its lessons carry the quiz bank's multiple-choice items as quiz cards (the
tutor's "quiz me", typed answers graded), the unit's introduction and exercises stay with the
unit, the tutor grades an attempt at its own question with the grader (not by shared words), and
a learner who joined the course practises, is assessed, reviews and sees progress on it while its
instructor sees them and exports its bank as QTI and Moodle XML."""

from __future__ import annotations

import asyncio
import io
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from tests.api.owner_world import user_with_role
from tests.conftest import register_and_login
from tests.tutor.conftest import chat
from tutorgraph.constructor.build import build_course, uploads_from
from tutorgraph.constructor.publish import build_course as published_course
from tutorgraph.constructor.publish import build_domain, publish_course
from tutorgraph.constructor.state import (
    ConstructorState,
    CourseStructure,
    QuizBank,
    QuizItem,
    SourceFile,
    SourceSection,
    Topic,
    Unit,
)
from tutorgraph.content.extract import ExtractionLimits
from tutorgraph.content.manifest import QuizItem as ManifestCard
from tutorgraph.engines import offline_engine
from tutorgraph.knowledge import get_domain, register_authored
from tutorgraph.knowledge.bloom import BloomLevel
from tutorgraph.knowledge.loader import forget_authored
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import User
from tutorgraph.tutor import _follow_up
from tutorgraph.tutor.compose import quiz_text
from tutorgraph.tutor.context import QuizCard, TutorContext
from tutorgraph.tutor.dialogue import Dialogue

API = "/api/v1"
Headers = dict[str, str]

GIT_MD = """---
title: Version control with Git
description: How git records the history of a project, and how branches name it.
---

# Version control with Git

Version control systems keep track of how a set of files changes over time. This lecture looks
at the model git uses to store that history.

## Snapshots and commits

Git does not store a list of changes to each file. A commit is a snapshot of the tree of files
at one moment, together with its author, its time and a message. Because every commit records
the whole tree, git can restore any earlier state of the project exactly. A commit also records
its parent commit, so the history forms a chain of snapshots. Files that did not change between
two commits are not copied again: the new tree points to the same stored blob, which keeps the
repository small. When you run `git commit`, git builds the tree from the staging area, writes
the commit object and moves the current branch to it. A commit is identified by the SHA-1 hash
of its content, so changing anything in the past would change every later hash, which is why
history in git is hard to rewrite silently. Merging two lines of work creates a commit with two
parents.

## Branches and references

A branch is a named reference to a commit, not a copy of the files. Creating a branch is cheap
because git only writes a small file holding a commit hash. When you commit on a branch, the
reference moves forward to the new commit, so the branch always names the newest snapshot of
that line of work. HEAD is a reference to the current branch, which is how git knows where the
next commit goes. Deleting a branch removes only the name: the commits stay in the repository
until garbage collection removes those that nothing refers to. Because branches are only names,
switching between them changes the working files to match the snapshot the branch names. A
detached HEAD points at a commit directly instead of a branch, so new commits there belong to no
branch and are easy to lose.

## Exercises

1. Create a repository and make three commits, then look at them with `git log`.
2. Create a branch, commit on it, and switch back.
"""

COMMIT = "A commit is a snapshot of the tree of files at one moment."
SECTION = [
    "Git does not store a list of changes to each file.",
    "A commit is a snapshot of the tree of files at one moment, together with its author, its "
    "time and a message.",
    "A commit also records its parent commit, so the history forms a chain of snapshots.",
]


# ---- the published lesson: quiz cards, the unit's introduction and exercises ----------------


def _item(item_id: str, topic_id: str, text: str, answer: str, **choice: Any) -> QuizItem:
    return QuizItem(
        item_id=item_id,
        topic_id=topic_id,
        bloom_level=BloomLevel.UNDERSTAND,
        type="conceptual",
        difficulty=2,
        text=text,
        reference_answer=answer,
        key_points=[answer],
        evidence=answer,
        asks="why",
        **choice,
    )


def authored_state() -> ConstructorState:
    """A built course by hand: one unit with an introduction, two topics and exercises."""

    def section(sid: str, heading: list[str], text: str, role: Any = "lesson") -> SourceSection:
        return SourceSection(
            section_id=sid,
            file_id="f1",
            level=len(heading),
            heading_path=heading,
            text=text,
            words=len(text.split()),
            has_code=False,
            role=role,
        )

    title = "Version control with Git"
    sections = [
        section("s0", [title], "Version control keeps track of how files change over time."),
        section("s1", [title, "Snapshots and commits"], " ".join(SECTION)),
        section("s2", [title, "Branches"], "A branch is a named reference to a commit."),
        section("s3", [title, "Exercises"], "1. Make three commits.", role="exercises"),
    ]
    structure = CourseStructure(
        title=title,
        units=[
            Unit(
                unit_id="u1",
                title=title,
                topic_ids=["commits", "branches"],
                intro_section_ids=["s0"],
                exercise_section_ids=["s3"],
            )
        ],
        topics=[
            Topic(
                topic_id="commits",
                title="Snapshots and commits",
                unit_id="u1",
                section_ids=["s1"],
                key_points=[COMMIT],
            ),
            Topic(
                topic_id="branches",
                title="Branches",
                unit_id="u1",
                section_ids=["s2"],
                key_points=["A branch is a named reference to a commit."],
            ),
        ],
    )
    options = [
        "A list of the changes made to each file since the last commit",
        "A snapshot of the tree of files, with its author, time and message",
        "A named reference that moves forward with new work",
    ]
    bank = QuizBank(
        items=[
            _item(
                "q1",
                "commits",
                "Why can git restore any earlier state of a project exactly?",
                "Because every commit is a snapshot of the whole tree of files.",
                options=options,
                correct_index=1,
                why_wrong=["Git stores snapshots, not changes.", "", "That is a branch."],
            ),
            _item(
                "q2",
                "commits",
                "How does a commit know the history before it?",
                "It records its parent commit, so the history forms a chain.",
            ),
            _item(
                "q3",
                "branches",
                "Why is creating a branch cheap in git?",
                "Git only writes a small file holding a commit hash.",
                options=[
                    "It copies only changed files",
                    "It writes one small file",
                    "It shares the parent's files",
                ],
                correct_index=1,
                why_wrong=["", "", ""],  # the text gives no reasons: the card keeps none
            ),
        ]
    )
    files = [
        SourceFile(
            file_id="f1",
            filename="git.md",
            kind="markdown",
            title=title,
            markdown="",
            pages=1,
            words=100,
        )
    ]
    return {
        "structure": structure,
        "quiz_bank": bank,
        "sections": sections,
        "files": files,
        "course_title": title,
        "course_description": "How git records history.",
    }


def test_a_published_lesson_carries_its_topics_multiple_choice_items_as_quiz_cards() -> None:
    course = published_course(authored_state(), "git-basics")
    commits, branches = course.lessons
    assert [c.id for c in commits.manifest.quiz] == ["git-basics_q1"]  # q2 has no options
    card = commits.manifest.quiz[0]
    assert card.correct_index == 1 and card.options[1].startswith("A snapshot")
    assert card.concept == "git-basics_commits" == commits.manifest.concepts[0]
    assert card.explanation == "Because every commit is a snapshot of the whole tree of files."
    assert card.why_wrong == ["Git stores snapshots, not changes.", "", "That is a branch."]
    # a distractor without a reason: the card is kept, its reasons are not
    assert [c.id for c in branches.manifest.quiz] == ["git-basics_q3"]
    assert branches.manifest.quiz[0].why_wrong == []
    assert course.manifest.description == "How git records history."
    # the card and its knowledge-base question are one item
    kb = build_domain(authored_state(), "git-basics")
    assert card.id in {q.id for t in kb.domain.topics for q in t.questions}


def test_the_units_introduction_opens_its_first_lesson_and_its_exercises_close_its_last() -> None:
    course = published_course(authored_state(), "git-basics")
    first, last = (lesson.content for lesson in course.lessons)
    assert first.startswith("# Snapshots and commits\n\n## Introduction\n\nVersion control keeps")
    # the lesson's own text is under its own heading again, not read as the introduction
    assert "keeps track of how files change over time.\n\n## Snapshots and commits\n\nGit does" in (
        first
    )
    assert "Make three commits" not in first and "Version control keeps" not in last
    assert last.rstrip().endswith("## Exercises\n\n1. Make three commits.")
    assert [m.title for m in course.manifest.modules] == ["Version control with Git"]
    assert all("Exercises" not in lesson.manifest.title for lesson in course.lessons)


# ---- the tutor's attempt check ------------------------------------------------------------


def _reply_asking(question: str) -> str:
    return f"{SECTION[1]}\n_(Source: Git › Snapshots and commits)_\n\n{question}"


def attempt(answer: str, last_reply: str, context: TutorContext | None = None) -> str:
    dialogue = Dialogue(["What does a commit record?"], [last_reply], None)
    context = context or TutorContext(lesson_title="Git", lesson_slug="git")
    reference = _follow_up.attempt_reference(context, dialogue, SECTION, dialogue.asked[0])
    return _follow_up._attempt(
        answer, SECTION, dialogue.asked[0], "_(Source: Git)_", "commits", set(), reference
    )


def test_an_attempt_that_only_shares_a_word_with_the_section_is_not_right() -> None:
    """Before: "I think it is the commit" said half its words ("commit") were the section's,
    and the tutor answered "Yes, your answer is right"."""
    asked = _reply_asking("What does a commit record?")
    assert attempt("I think it is the commit", asked).startswith("Not quite")
    assert attempt("I think it is a list of changes to each file", asked).startswith("Not quite")
    right = attempt("a snapshot of the tree of files at one moment", asked)
    assert right.startswith("Yes") and SECTION[1] in right  # what it was checked against


def test_an_attempt_at_a_bank_question_is_graded_against_its_key_points() -> None:
    kb = build_domain(authored_state(), "git-basics")
    register_authored(kb)
    try:
        question = next(q for t in kb.domain.topics for q in t.questions if q.id.endswith("q2"))
        context = TutorContext(lesson_title="Git", concepts=["git-basics_commits"])
        asked = _reply_asking(question.text)
        right = "It records its parent commit, so the history is a chain."
        assert attempt(right, asked, context).startswith("Yes")
        # words of the section that are not the question's answer
        assert attempt("I think it is a snapshot of the tree", asked, context).startswith("Not")
    finally:
        forget_authored("git-basics")


def test_a_typed_answer_to_a_quiz_card_is_graded_against_the_card() -> None:
    card = QuizCard(
        id="c1",
        question="What does a commit store?",
        options=["A list of changes", "A snapshot of the tree of files"],
        correct_index=1,
        explanation="A commit is a snapshot of the whole tree of files at one moment.",
    )
    context = TutorContext(lesson_title="Git", lesson_slug="git", quiz=[card])
    shown = quiz_text(card)
    assert attempt("I think it is the commit", shown, context).startswith("Not quite")
    assert attempt("a snapshot of the whole tree of files", shown, context).startswith("Yes")


# ---- end to end: built offline, published, learnt and taught ------------------------------


def with_choices(state: ConstructorState) -> ConstructorState:
    """Give each topic one multiple-choice item when the quiz writer wrote none for it: the
    right option is the item's reference answer, the others are other topics' (a learner who
    mixes the topics up picks them)."""
    bank = state["quiz_bank"]
    assert bank is not None
    kept = bank.kept()
    topics = {i.topic_id for i in kept}
    for topic in topics:
        mine = [i for i in kept if i.topic_id == topic]
        others = [i.reference_answer for i in kept if i.topic_id != topic][:2]
        if any(i.options for i in mine) or not others:
            continue
        item = mine[0]
        item.options = [others[0], item.reference_answer, *others[1:]]
        item.correct_index = 1
        item.why_wrong = [
            "" if i == 1 else "That is what the course says about another topic."
            for i in range(len(item.options))
        ]
    return state


@pytest.fixture
def git_state(tmp_path: Path) -> Iterator[ConstructorState]:
    source = tmp_path / "git.md"
    source.write_text(GIT_MD, encoding="utf-8")
    yield with_choices(
        _run(build_course(uploads_from([source], ExtractionLimits()), model=offline_engine()))
    )


def _run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json() if "json" in response.headers.get("content-type", "") else response


def publish_for(settings: Settings, state: ConstructorState, email: str, slug: str) -> None:
    database = Database(settings)
    try:
        with database.session() as session:
            owner = session.scalar(select(User).where(User.email == email))
            assert owner is not None
            publish_course(session, state, owner_id=owner.id, slug=slug)
            session.commit()
    finally:
        database.dispose()


def test_a_published_course_works_everywhere_a_shipped_one_does(
    client: TestClient, settings: Settings, git_state: ConstructorState
) -> None:
    slug = "git-basics"
    ann = register_and_login(client, "ann@example.org", name="Ann")
    user_with_role(settings, "ann@example.org", "instructor")
    publish_for(settings, git_state, "ann@example.org", slug)
    cards = {c.id: c for x in published_course(git_state, slug).lessons for c in x.manifest.quiz}
    try:
        _learn_and_teach(client, ann, slug, cards)
    finally:
        forget_authored(slug)


def _learn_and_teach(
    client: TestClient, ann: Headers, slug: str, cards: dict[str, ManifestCard]
) -> None:
    ok(
        client.post(
            f"{API}/courses/{slug}/instructors", json={"email": "ann@example.org"}, headers=ann
        )
    )
    token = ok(client.post(f"{API}/courses/{slug}/share", headers=ann))["share_token"]
    cy = register_and_login(client, "cy@example.org", name="Cy")
    ok(client.post(f"{API}/shares/{token}", headers=cy))
    course = ok(client.get(f"{API}/courses/{slug}", headers=cy))
    lessons = [
        ok(client.get(f"{API}/lessons/{ref['id']}", headers=cy))
        for module in course["modules"]
        for ref in module["lessons"]
    ]
    lesson = next(x for x in lessons if x.get("quiz") or x["concepts"])

    # the tutor's "quiz me": a card of the course's own bank; a typed answer is graded
    started = ok(
        client.post(f"{API}/tutor/session/start", json={"lesson_id": lesson["id"]}, headers=cy), 201
    )
    sid = started["session_id"]
    quizzed = ok(
        client.post(
            f"{API}/tutor/session/chat", json={"session_id": sid, "message": "quiz me"}, headers=cy
        )
    )
    shown = quizzed["replies"][-1].get("quiz")
    assert shown is not None, quizzed["replies"]  # before: "This lesson has no quiz questions yet"
    bank_ids = {q["id"] for q in _domain_questions(slug)}
    assert shown["id"] in bank_ids
    card = cards[shown["id"]]
    wrong = chr(65 + (card.correct_index + 1) % len(card.options))
    missed = ok(
        client.post(
            f"{API}/tutor/session/chat",
            json={"session_id": sid, "message": wrong, "type": "quiz_answer"},
            headers=cy,
        )
    )
    assert missed["status"]["last_answer_correct"] is False, missed
    quizzed = ok(
        client.post(
            f"{API}/tutor/session/chat", json={"session_id": sid, "message": "quiz me"}, headers=cy
        )
    )
    again = quizzed["replies"][-1]["quiz"]
    right = chr(65 + cards[again["id"]].correct_index)
    graded = ok(
        client.post(
            f"{API}/tutor/session/chat",
            json={"session_id": sid, "message": right, "type": "quiz_answer"},
            headers=cy,
        )
    )
    assert graded["status"]["last_answer_correct"] is True, graded

    # the lesson's tutor grades an attempt at its own question with the grader
    commits = next(x for x in lessons if "commit" in x["title"].lower())
    asked = chat(client, cy, "What is a commit?", lesson_id=commits["id"])
    assert asked.status == 200 and "snapshot" in asked.text, asked.text
    guess = chat(
        client, cy, "I think it is the commit", lesson_id=commits["id"], session_id=asked.session_id
    )
    assert "your answer is right" not in guess.text, guess.text  # before: "Yes, your answer..."
    inline = _shown_card_id(asked.text)  # the chat's inline check is a card of the bank too
    picked = ok(
        client.post(
            f"{API}/tutor/quiz-answer",
            json={
                "lesson_id": commits["id"],
                "session_id": asked.session_id,
                "quiz_id": inline,
                "selected_index": cards[inline].correct_index,
            },
            headers=cy,
        )
    )
    assert picked["correct"] is True and picked["mastery"]["concept"] == cards[inline].concept
    again = chat(client, cy, "What is a commit?", lesson_id=commits["id"])
    right_guess = chat(
        client,
        cy,
        "I think it is a snapshot of the tree of files at one moment, with its author, time "
        "and message",
        lesson_id=commits["id"],
        session_id=again.session_id,
    )
    assert "Yes, your answer is right" in right_guess.text, right_guess.text

    # Practice serves and grades a question of the course's domain; mastery moves
    concept = card.concept
    before = _mastery(client, cy, concept)
    round_ = ok(
        client.post(f"{API}/practice/rounds", json={"domain": slug, "topic": concept}, headers=cy),
        201,
    )
    answered = ok(
        client.post(
            f"{API}/practice/rounds/{round_['id']}/answers",
            json={"answer": "I have no idea."},
            headers=cy,
        )
    )
    assert answered["result"]["score"] < 0.5
    assert _mastery(client, cy, concept) != before

    # Assess starts on the course's domain and takes an answer
    assessment = ok(
        client.post(
            f"{API}/assessments", json={"domain": slug, "target_level": "junior"}, headers=cy
        ),
        201,
    )
    question = assessment["interrupt"]["question"]
    assert question["id"] in bank_ids
    ok(
        client.post(
            f"{API}/assessments/{assessment['id']}/answers",
            json={"answer": "A snapshot.", "question_id": question["id"]},
            headers=cy,
        )
    )

    # Review lists the concept after the miss; Progress shows it
    reviews = client.get(f"{API}/me/reviews", headers=cy)
    assert reviews.status_code == 200 and concept in reviews.text, reviews.text
    progress = client.get(f"{API}/me/progress", headers=cy)
    assert progress.status_code == 200 and concept in progress.text, progress.text

    # the instructor sees the learner, and exports the bank
    dashboard = ok(client.get(f"{API}/teach/courses/{slug}", headers=ann))
    assert "Cy" in str(dashboard), dashboard
    qti = client.get(f"{API}/teach/courses/{slug}/quiz-bank.qti.zip", headers=ann)
    assert qti.status_code == 200
    names = zipfile.ZipFile(io.BytesIO(qti.content)).namelist()
    assert any(card.id in name for name in names), names
    moodle = client.get(f"{API}/teach/courses/{slug}/quiz-bank.moodle.xml", headers=ann)
    assert moodle.status_code == 200 and 'type="multichoice"' in moodle.text
    assert card.options[card.correct_index] in moodle.text


def _domain_questions(slug: str) -> list[dict[str, Any]]:
    return [{"id": q.id} for t in get_domain(slug).domain.topics for q in t.questions]


def _shown_card_id(text: str) -> str:
    bodies = re.findall(r"<quiz>(.*?)</quiz>", text, flags=re.DOTALL)
    assert bodies, text
    return str(json.loads(bodies[-1])["id"])


def _texts(slug: str) -> set[str]:
    return {q.text for t in get_domain(slug).domain.topics for q in t.questions}


def _mastery(client: TestClient, headers: Headers, concept: str) -> Any:
    rows = ok(client.get(f"{API}/mastery", headers=headers))
    return [r for r in rows if r.get("concept") == concept]
