"""The author's edits at the two review gates, as data: rename, merge, reorder and drop topics
before quizzes are written; edit, drop and add quiz items before publishing. Each edit is checked
against the current structure or bank and refused with a clear message when it does not fit."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter

from tutorgraph.constructor.analysis import earlier_only, structure_issues, suggestions
from tutorgraph.constructor.item_checks import duplicates, leaks
from tutorgraph.constructor.state import CourseStructure, QuizBank, QuizItem
from tutorgraph.errors import InputError
from tutorgraph.grading.checks.spec import AnswerChecks
from tutorgraph.grading.checks.verify import verify
from tutorgraph.knowledge.bloom import BloomLevel, QuestionType

# A question the author adds: the difficulty it gets (1-5) when they do not say, the middle.
AUTHORED_DIFFICULTY = 3


class RenameTopic(BaseModel):
    op: Literal["rename"] = "rename"
    topic_id: str
    title: str = Field(min_length=1, max_length=200)


class RenameUnit(BaseModel):
    op: Literal["rename_unit"] = "rename_unit"
    unit_id: str
    title: str = Field(min_length=1, max_length=200)


class MergeTopics(BaseModel):
    """Fold the other topics into the first one (their sections and key points join it)."""

    op: Literal["merge"] = "merge"
    topic_ids: list[str] = Field(min_length=2)


class MoveTopic(BaseModel):
    """Put a topic at `position` (0-based) in a unit."""

    op: Literal["move"] = "move"
    topic_id: str
    unit_id: str
    position: int = Field(ge=0)


class DropTopic(BaseModel):
    op: Literal["drop"] = "drop"
    topic_id: str


StructureEdit = Annotated[
    RenameTopic | RenameUnit | MergeTopics | MoveTopic | DropTopic, Field(discriminator="op")
]
STRUCTURE_EDITS: TypeAdapter[list[StructureEdit]] = TypeAdapter(list[StructureEdit])


class EditItem(BaseModel):
    op: Literal["edit_item"] = "edit_item"
    item_id: str
    text: str | None = Field(default=None, min_length=5, max_length=4000)
    reference_answer: str | None = Field(default=None, min_length=3, max_length=4000)
    key_points: list[str] | None = Field(default=None, min_length=1, max_length=8)
    # Executable checks for a code, config or computation question (docs/answer-checks.md);
    # refused unless every case and value accepts the checks' solution.
    checks: AnswerChecks | None = None


class DropItem(BaseModel):
    op: Literal["drop_item"] = "drop_item"
    item_id: str


class AddItem(BaseModel):
    """A question the author writes for one topic (one lesson once published). Its key points
    are what the grader looks for; without any, the model answer is the one key point."""

    op: Literal["add_item"] = "add_item"
    topic_id: str
    text: str = Field(min_length=5, max_length=4000)
    reference_answer: str = Field(min_length=3, max_length=4000)
    key_points: list[str] = Field(default_factory=list, max_length=8)
    bloom_level: BloomLevel = BloomLevel.UNDERSTAND
    type: QuestionType = "conceptual"
    difficulty: int = Field(default=AUTHORED_DIFFICULTY, ge=1, le=5)


QuizEdit = Annotated[EditItem | DropItem | AddItem, Field(discriminator="op")]
QUIZ_EDITS: TypeAdapter[list[QuizEdit]] = TypeAdapter(list[QuizEdit])


def apply_structure_edits(
    structure: CourseStructure, edits: list[StructureEdit]
) -> CourseStructure:
    topics = {t.topic_id: t.model_copy() for t in structure.topics}
    units = [u.model_copy(update={"topic_ids": list(u.topic_ids)}) for u in structure.units]
    unit_ids = {u.unit_id for u in units}
    for edit in edits:
        if isinstance(edit, RenameUnit):
            if edit.unit_id not in unit_ids:
                raise InputError(f"no unit {edit.unit_id!r}")
            for unit in units:
                if unit.unit_id == edit.unit_id:
                    unit.title = edit.title.strip()
            continue
        named = [edit.topic_id] if not isinstance(edit, MergeTopics) else edit.topic_ids
        missing = [t for t in named if t not in topics]
        if missing:
            raise InputError(f"no topic {missing[0]!r} (it may have been merged or dropped)")
        if isinstance(edit, RenameTopic):
            topics[edit.topic_id].title = edit.title.strip()
        elif isinstance(edit, DropTopic):
            del topics[edit.topic_id]
            for unit in units:
                unit.topic_ids = [t for t in unit.topic_ids if t != edit.topic_id]
        elif isinstance(edit, MergeTopics):
            keep = topics[edit.topic_ids[0]]
            for other_id in edit.topic_ids[1:]:
                other = topics.pop(other_id)
                keep.section_ids += other.section_ids
                keep.key_points += [p for p in other.key_points if p not in keep.key_points]
                keep.key_terms += [t for t in other.key_terms if t not in keep.key_terms]
                keep.prerequisites += other.prerequisites
                keep.words += other.words
                keep.has_code = keep.has_code or other.has_code
                for unit in units:
                    unit.topic_ids = [t for t in unit.topic_ids if t != other_id]
            keep.prerequisites = [p for p in dict.fromkeys(keep.prerequisites) if p in topics]
        elif isinstance(edit, MoveTopic):
            if edit.unit_id not in unit_ids:
                raise InputError(f"no unit {edit.unit_id!r}")
            for unit in units:
                unit.topic_ids = [t for t in unit.topic_ids if t != edit.topic_id]
            target = next(u for u in units if u.unit_id == edit.unit_id)
            target.topic_ids.insert(min(edit.position, len(target.topic_ids)), edit.topic_id)
            topics[edit.topic_id].unit_id = edit.unit_id
    units = [u for u in units if u.topic_ids]
    ordered = [topics[t] for u in units for t in u.topic_ids]
    # Order may have changed: a prerequisite must still come first (no cycles by construction).
    kept = earlier_only(ordered, {t.topic_id: t.prerequisites for t in ordered})
    ordered = [t.model_copy(update={"prerequisites": kept[t.topic_id]}) for t in ordered]
    edited = structure.model_copy(update={"units": units, "topics": ordered})
    return edited.model_copy(
        update={"issues": structure_issues(edited), "suggestions": suggestions(edited)}
    )


def apply_quiz_edits(
    bank: QuizBank, edits: list[QuizEdit], structure: CourseStructure | None = None
) -> QuizBank:
    """The bank with the author's edits; an added question needs the structure (its topic)."""
    items = {i.item_id: i for i in bank.items}
    order = [i.item_id for i in bank.items]
    for edit in edits:
        if isinstance(edit, AddItem):
            added = _added(edit, structure, list(items.values()))
            items[added.item_id] = added
            order.append(added.item_id)
            continue
        if edit.item_id not in items:
            raise InputError(f"no quiz item {edit.item_id!r}")
        item = items[edit.item_id]
        if isinstance(edit, DropItem):
            items[edit.item_id] = item.model_copy(update={"problems": ["dropped by the author"]})
            continue
        update: dict[str, object] = {}
        if edit.text is not None:
            update["text"] = edit.text.strip()
        if edit.reference_answer is not None:
            update["reference_answer"] = edit.reference_answer.strip()
        if edit.key_points is not None:
            update["key_points"] = [p.strip() for p in edit.key_points if p.strip()]
        if edit.checks is not None:
            update["checks"] = _verified(edit.item_id, edit.checks, update.get("key_points"), item)
        items[edit.item_id] = item.model_copy(update=update)
    ordered = [items[i] for i in order]
    return bank.model_copy(
        update={"items": ordered, "dropped": sum(1 for i in ordered if not i.kept)}
    )


def _added(edit: AddItem, structure: CourseStructure | None, items: list[QuizItem]) -> QuizItem:
    """The author's new question, refused when its lesson is unknown, it gives its answer away
    or it repeats a question the bank keeps."""
    topics = {t.topic_id: t.title for t in structure.topics} if structure else {}
    if edit.topic_id not in topics:
        raise InputError("choose the lesson the question is for (that one is not in the course)")
    answer = edit.reference_answer.strip()
    points = [p.strip() for p in edit.key_points if p.strip()] or [answer]
    taken = {i.item_id for i in items}
    number = 1 + sum(1 for i in items if i.topic_id == edit.topic_id)
    while f"{edit.topic_id}-a{number}" in taken:
        number += 1
    item = QuizItem(
        item_id=f"{edit.topic_id}-a{number}",
        topic_id=edit.topic_id,
        bloom_level=edit.bloom_level,
        type=edit.type,
        difficulty=edit.difficulty,
        text=edit.text.strip(),
        reference_answer=answer,
        key_points=points,
        evidence=answer,  # the author's own words are the source of its answer
    )
    if leaks(item):
        raise InputError("the question gives its answer away: ask without stating the key point")
    kept = [i for i in items if i.kept]
    if item.item_id in duplicates([*kept, item]):
        raise InputError(f"“{topics[edit.topic_id]}” already has this question")
    return item


def _verified(
    item_id: str, checks: AnswerChecks, key_points: object, item: QuizItem
) -> AnswerChecks:
    """Checks an author adds to an item: their points must be the item's key points, and they
    must accept their own solution and reject an empty answer (`verify`)."""
    points = key_points if isinstance(key_points, list) else item.key_points
    strays = [p for p in checks.points if p not in points]
    if strays:
        raise InputError(f"quiz item {item_id!r}: checks name points it does not have: {strays}")
    problems = verify(item_id, checks).problems
    if problems:
        raise InputError(f"quiz item {item_id!r}: the checks do not check: {'; '.join(problems)}")
    return checks
