"""The author's edits at the two review gates, as data: rename, merge, split, reorder and drop
topics, add and remove prerequisites and reorder units before quizzes are written; edit, drop and
add quiz items before publishing. Each edit is checked against the current structure or bank and
refused with a clear message when it does not fit; `edit_structure` says what each one did.

`read_review_message` reads what the author types at a review step ("looks good, approve",
"split Loops", "Functions needs Loops") into the same edits, deterministically: a topic is named
by its title (case and punctuation ignored, a unique prefix is enough); a message it cannot read
is refused with what can be said at that step, never ignored. It reads commands, not free prose:
"could you maybe join the first two" is refused, not guessed."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, model_validator

from tutorgraph.constructor.analysis import (
    find_cycle,
    key_points,
    structure_issues,
    suggestions,
    summary_of,
)
from tutorgraph.constructor.item_checks import duplicates, leaks
from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import (
    CourseStructure,
    QuizBank,
    QuizItem,
    SourceSection,
    Topic,
    Unit,
)
from tutorgraph.constructor.text import salient_terms, slugify
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


class AddPrerequisite(BaseModel):
    """The topic builds on another, earlier one."""

    op: Literal["add_prerequisite"] = "add_prerequisite"
    topic_id: str
    prerequisite_id: str


class RemovePrerequisite(BaseModel):
    op: Literal["remove_prerequisite"] = "remove_prerequisite"
    topic_id: str
    prerequisite_id: str


class SplitTopic(BaseModel):
    """Cut a topic in two at one of its own section boundaries: the section `at_section_id`,
    or the one whose heading is `heading`, starts the second topic (named after that heading
    unless `title` says otherwise)."""

    op: Literal["split_topic"] = "split_topic"
    topic_id: str
    at_section_id: str | None = None
    heading: str | None = Field(default=None, max_length=200)
    title: str | None = Field(default=None, min_length=1, max_length=200)

    @model_validator(mode="after")
    def _says_where(self) -> SplitTopic:
        if not self.at_section_id and not (self.heading or "").strip():
            raise ValueError("say where to split: a section (at_section_id) or a heading")
        return self


class MoveUnit(BaseModel):
    """Move a unit one place earlier (up) or later (down) in the course."""

    op: Literal["move_unit"] = "move_unit"
    unit_id: str
    direction: Literal["up", "down"]


StructureEdit = Annotated[
    RenameTopic
    | RenameUnit
    | MergeTopics
    | MoveTopic
    | DropTopic
    | AddPrerequisite
    | RemovePrerequisite
    | SplitTopic
    | MoveUnit,
    Field(discriminator="op"),
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


@dataclass
class StructureEdited:
    """A structure after the author's edits, and what each edit did or why it did not."""

    structure: CourseStructure
    notes: list[str] = field(default_factory=list)
    refused: int = 0


class _Draft:
    """The structure being edited: topics by id (in course order) and units in order."""

    def __init__(self, structure: CourseStructure, sections: Sequence[SourceSection]) -> None:
        self.topics = {t.topic_id: t.model_copy(deep=True) for t in structure.topics}
        self.units = [u.model_copy(deep=True) for u in structure.units]
        self.sections = {s.section_id: s for s in sections}

    def ordered(self) -> list[Topic]:
        return [self.topics[t] for u in self.units for t in u.topic_ids if t in self.topics]

    def unit(self, unit_id: str) -> Unit:
        for unit in self.units:
            if unit.unit_id == unit_id:
                return unit
        raise InputError(f"no unit {unit_id!r}")

    def topic(self, topic_id: str) -> Topic:
        if topic_id not in self.topics:
            raise InputError(f"no topic {topic_id!r} (it may have been merged or dropped)")
        return self.topics[topic_id]

    def forward_prerequisites_dropped(self) -> list[str]:
        """After a reordering: a prerequisite that now comes later is dropped (a lesson builds
        only on lessons before it), and each one dropped is said."""
        position = {t.topic_id: i for i, t in enumerate(self.ordered())}
        said = []
        for topic in self.ordered():
            kept = []
            for p in dict.fromkeys(topic.prerequisites):
                if p in position and position[p] < position[topic.topic_id]:
                    kept.append(p)
                elif p in self.topics:
                    said.append(
                        f"“{topic.title}” no longer builds on “{self.topics[p].title}”, "
                        "which now comes after it"
                    )
            topic.prerequisites = kept
        return said


def edit_structure(
    structure: CourseStructure,
    edits: Sequence[StructureEdit],
    sections: Sequence[SourceSection] = (),
) -> StructureEdited:
    """Apply each edit that fits, in order; one that does not is skipped with its reason (the
    others still apply). `sections` (the sources' text) is what a split reads."""
    draft = _Draft(structure, sections)
    notes: list[str] = []
    refused = 0
    for edit in edits:
        try:
            notes.append(_apply(draft, edit))
        except InputError as exc:
            refused += 1
            notes.append(f"That edit did not apply: {exc.message}")
            continue
        notes += draft.forward_prerequisites_dropped()
    draft.units = [u for u in draft.units if u.topic_ids]
    ordered = draft.ordered()
    edited = structure.model_copy(update={"units": draft.units, "topics": ordered})
    edited = edited.model_copy(
        update={"issues": structure_issues(edited), "suggestions": suggestions(edited)}
    )
    return StructureEdited(edited, notes, refused)


def apply_structure_edits(
    structure: CourseStructure,
    edits: Sequence[StructureEdit],
    sections: Sequence[SourceSection] = (),
) -> CourseStructure:
    """All the edits or none: the first that does not fit raises InputError with its reason."""
    draft = _Draft(structure, sections)
    for edit in edits:
        _apply(draft, edit)
        draft.forward_prerequisites_dropped()
    draft.units = [u for u in draft.units if u.topic_ids]
    edited = structure.model_copy(update={"units": draft.units, "topics": draft.ordered()})
    return edited.model_copy(
        update={"issues": structure_issues(edited), "suggestions": suggestions(edited)}
    )


def _apply(draft: _Draft, edit: StructureEdit) -> str:
    """Apply one edit to the draft; what it did, in the author's words (InputError if it does
    not fit)."""
    if isinstance(edit, RenameUnit):
        unit = draft.unit(edit.unit_id)
        old, unit.title = unit.title, edit.title.strip()
        return f"Unit “{old}” is now “{unit.title}”."
    if isinstance(edit, MoveUnit):
        return _move_unit(draft, edit)
    if isinstance(edit, MergeTopics):
        return _merge(draft, edit)
    if isinstance(edit, SplitTopic):
        return _split(draft, edit)
    if isinstance(edit, AddPrerequisite | RemovePrerequisite):
        return _prerequisite(draft, edit)
    topic = draft.topic(edit.topic_id)
    if isinstance(edit, RenameTopic):
        old, topic.title = topic.title, edit.title.strip()
        return f"“{old}” is now “{topic.title}”."
    if isinstance(edit, DropTopic):
        del draft.topics[edit.topic_id]
        for unit in draft.units:
            unit.topic_ids = [t for t in unit.topic_ids if t != edit.topic_id]
        for other in draft.topics.values():
            other.prerequisites = [p for p in other.prerequisites if p != edit.topic_id]
        return f"Dropped “{topic.title}”."
    target = draft.unit(edit.unit_id)
    for unit in draft.units:
        unit.topic_ids = [t for t in unit.topic_ids if t != edit.topic_id]
    target.topic_ids.insert(min(edit.position, len(target.topic_ids)), edit.topic_id)
    topic.unit_id = edit.unit_id
    place = target.topic_ids.index(edit.topic_id) + 1
    return f"Moved “{topic.title}” to place {place} of “{target.title}”."


def _merge(draft: _Draft, edit: MergeTopics) -> str:
    named = [draft.topic(t) for t in dict.fromkeys(edit.topic_ids)]
    if len(named) < 2:
        raise InputError("choose two or more different topics to merge")
    keep = named[0]
    for other in named[1:]:
        del draft.topics[other.topic_id]
        keep.section_ids += other.section_ids
        keep.key_points += [p for p in other.key_points if p not in keep.key_points]
        keep.key_terms += [t for t in other.key_terms if t not in keep.key_terms]
        keep.prerequisites += other.prerequisites
        keep.words += other.words
        keep.has_code = keep.has_code or other.has_code
        for unit in draft.units:
            unit.topic_ids = [t for t in unit.topic_ids if t != other.topic_id]
        for topic in draft.topics.values():
            topic.prerequisites = [
                keep.topic_id if p == other.topic_id else p for p in topic.prerequisites
            ]
    keep.prerequisites = [
        p for p in dict.fromkeys(keep.prerequisites) if p in draft.topics and p != keep.topic_id
    ]
    for topic in draft.topics.values():
        topic.prerequisites = [p for p in dict.fromkeys(topic.prerequisites) if p != topic.topic_id]
    others = ", ".join(f"“{t.title}”" for t in named[1:])
    return f"Merged {others} into “{keep.title}”."


def _move_unit(draft: _Draft, edit: MoveUnit) -> str:
    unit = draft.unit(edit.unit_id)
    at = draft.units.index(unit)
    to = at - 1 if edit.direction == "up" else at + 1
    if not 0 <= to < len(draft.units):
        edge = "first" if edit.direction == "up" else "last"
        raise InputError(f"“{unit.title}” is already the {edge} unit")
    draft.units[at], draft.units[to] = draft.units[to], draft.units[at]
    return f"“{unit.title}” is now unit {to + 1} of {len(draft.units)}."


def _depends_on(draft: _Draft, topic_id: str, other_id: str) -> bool:
    """Whether `topic_id` builds on `other_id`, directly or through other topics."""
    seen: set[str] = set()
    stack = [topic_id]
    while stack:
        current = stack.pop()
        for p in draft.topics[current].prerequisites if current in draft.topics else []:
            if p == other_id:
                return True
            if p not in seen:
                seen.add(p)
                stack.append(p)
    return False


def _prerequisite(draft: _Draft, edit: AddPrerequisite | RemovePrerequisite) -> str:
    topic, needed = draft.topic(edit.topic_id), draft.topic(edit.prerequisite_id)
    if isinstance(edit, RemovePrerequisite):
        if needed.topic_id not in topic.prerequisites:
            raise InputError(f"“{topic.title}” does not build on “{needed.title}”")
        topic.prerequisites = [p for p in topic.prerequisites if p != needed.topic_id]
        return f"“{topic.title}” no longer builds on “{needed.title}”."
    if topic.topic_id == needed.topic_id:
        raise InputError(f"“{topic.title}” cannot build on itself")
    if needed.topic_id in topic.prerequisites:
        raise InputError(f"“{topic.title}” already builds on “{needed.title}”")
    if _depends_on(draft, needed.topic_id, topic.topic_id):
        raise InputError(
            f"“{needed.title}” already builds on “{topic.title}” (directly or through other "
            "topics): adding this would make a circle"
        )
    position = {t.topic_id: i for i, t in enumerate(draft.ordered())}
    if position.get(needed.topic_id, 0) > position.get(topic.topic_id, 0):
        raise InputError(
            f"“{needed.title}” comes after “{topic.title}” in the course: move it earlier first "
            "(a lesson builds only on lessons the learner has already seen)"
        )
    topic.prerequisites.append(needed.topic_id)
    if find_cycle(list(draft.topics.values())):  # cannot happen after the checks above
        topic.prerequisites.pop()
        raise InputError("adding this would make a circle of topics")
    return f"“{topic.title}” now builds on “{needed.title}”."


def _split(draft: _Draft, edit: SplitTopic) -> str:
    topic = draft.topic(edit.topic_id)
    if len(topic.section_ids) < 2:
        raise InputError(
            f"“{topic.title}” is a single section of your file: there is no heading inside it "
            "to split at"
        )
    at = _split_point(draft, topic, edit)
    parts = [topic.section_ids[:at], topic.section_ids[at:]]
    texts = ["\n\n".join(draft.sections[s].text for s in part) for part in parts]
    terms = salient_terms(texts, top=constructor_parameters().topics.key_terms)
    first_heading = draft.sections[parts[1][0]].heading_path
    title = (edit.title or "").strip() or (first_heading[-1] if first_heading else "Part 2")
    new_id = _free_id(draft, f"{topic.topic_id}-{slugify(title, limit=40)}")
    halves = [
        {
            "section_ids": part,
            "key_terms": part_terms,
            "key_points": key_points(text, part_terms),
            "summary": summary_of(text),
            "words": sum(draft.sections[s].words for s in part),
            "has_code": any(draft.sections[s].has_code for s in part),
        }
        for part, text, part_terms in zip(parts, texts, terms, strict=True)
    ]
    first = topic.model_copy(update=halves[0])
    second = Topic(
        topic_id=new_id,
        title=title,
        unit_id=topic.unit_id,
        prerequisites=[topic.topic_id],
        **halves[1],
    )
    draft.topics = {
        key: value
        for tid, t in draft.topics.items()
        for key, value in (
            [(tid, first), (new_id, second)] if tid == topic.topic_id else [(tid, t)]
        )
    }
    for unit in draft.units:
        if topic.topic_id in unit.topic_ids:
            unit.topic_ids.insert(unit.topic_ids.index(topic.topic_id) + 1, new_id)
    return (
        f"Split “{topic.title}” in two: “{first.title}” ({first.words} words, "
        f"{len(first.key_points)} key points) and “{second.title}” ({second.words} words, "
        f"{len(second.key_points)} key points), which builds on the first."
    )


def _split_point(draft: _Draft, topic: Topic, edit: SplitTopic) -> int:
    """The index in the topic's sections where its second part starts."""
    missing = [s for s in topic.section_ids if s not in draft.sections]
    if missing:
        raise InputError(f"the text of “{topic.title}” is not available to split")
    inner = topic.section_ids[1:]
    if edit.at_section_id:
        if edit.at_section_id not in inner:
            raise InputError(f"that section is not a heading inside “{topic.title}”")
        return topic.section_ids.index(edit.at_section_id)
    headings = {s: (draft.sections[s].heading_path or [""])[-1] for s in inner}
    wanted = title_key(edit.heading or "")
    exact = [s for s, h in headings.items() if title_key(h) == wanted]
    found = exact or [s for s, h in headings.items() if title_key(h).startswith(wanted)]
    if len(found) != 1:
        listed = "; ".join(f"“{h}”" for h in headings.values())
        raise InputError(f"“{topic.title}” can be split at one of its headings: {listed}")
    return topic.section_ids.index(found[0])


def _free_id(draft: _Draft, base: str) -> str:
    candidate, n = base, 2
    while candidate in draft.topics:
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def split_points(
    structure: CourseStructure, sections: Sequence[SourceSection]
) -> dict[str, list[dict[str, str]]]:
    """For each topic of several sections, where it can be split: the section ids after its
    first and their headings (what the review page offers)."""
    by_id = {s.section_id: s for s in sections}
    points: dict[str, list[dict[str, str]]] = {}
    for topic in structure.topics:
        inner = [by_id[s] for s in topic.section_ids[1:] if s in by_id]
        if inner:
            points[topic.topic_id] = [
                {"section_id": s.section_id, "heading": (s.heading_path or [""])[-1]} for s in inner
            ]
    return points


# ---- the author's words at a review step ---------------------------------------------------


def title_key(title: str) -> str:
    """A title as matched: lower case, punctuation and extra spaces removed."""
    return " ".join(re.sub(r"[^\w\s]", " ", title.lower()).split())


def find_named(named: str, options: dict[str, str], what: str) -> str:
    """The id whose title the author named: the same title (case and punctuation ignored), or
    the only title that starts with their words."""
    wanted = title_key(named)
    if not wanted:
        raise InputError(f"name the {what}")
    exact = [i for i, t in options.items() if title_key(t) == wanted]
    if len(exact) == 1:
        return exact[0]
    starting = [i for i, t in options.items() if title_key(t).startswith(wanted)]
    if len(starting) == 1:
        return starting[0]
    if len(exact) > 1 or len(starting) > 1:
        listed = "; ".join(f"“{options[i]}”" for i in (exact or starting))
        raise InputError(f"“{named}” could be any of: {listed}; say more of the title")
    raise InputError(f"there is no {what} called “{named}”")


@dataclass
class ReviewReading:
    """What a message at a review step asks for: approval, edits (as the API takes them), or
    nothing understood (`refusal` says what can be said instead)."""

    approve: bool = False
    edits: list[dict[str, Any]] = field(default_factory=list)
    refusal: str = ""


STRUCTURE_SAYINGS = (
    "“looks good, approve”; “rename Loops to For loops”; “merge Loops and Lists”; "
    "“split Loops” or “split Loops at While loops”; “drop Loops”; “Functions needs Loops”; "
    "“Functions doesn't need Loops”; “move unit Basics down”"
)
STRUCTURE_BUTTONS = (
    "The same edits are on the page under “2. Structure”: the title boxes, tick and "
    "“Apply renames and merge selected”, ↑ ↓, “Drop”, “Split at”, “Builds on”, the unit "
    "arrows, then “Approve structure”."
)
QUIZ_SAYINGS = "“looks good, approve”; “drop question 3”"
QUIZ_BUTTONS = (
    "To change a question, edit its fields under “3. Quiz bank”; “Add a question” and "
    "“Save and approve the quiz bank” are below the list."
)

_NEGATED = re.compile(r"\b(not|don'?t|doesn'?t|no|never|isn'?t|wait)\b", re.I)
_APPROVE = re.compile(
    r"\b(approved?|looks? (good|fine|great|right)|lgtm|ok(ay)?|fine|accept(ed)?|publish|"
    r"go ahead|good to go|all good|yes|sounds good|perfect|great|ship it|that'?s (it|fine|good))\b",
    re.I,
)
_SPLIT = re.compile(
    r"^split\s+(?:the\s+)?(?:topic\s+)?(?P<topic>.+?)(?:\s+at\s+(?P<at>.+))?$", re.I
)
_MERGE = re.compile(r"^(?:merge|combine|join)\s+(?P<topics>.+)$", re.I)
_RENAME = re.compile(
    r"^rename\s+(?:the\s+)?(?P<what>unit\s+|topic\s+)?(?P<old>.+?)\s+(?:to|as|into)\s+(?P<new>.+)$",
    re.I,
)
_DROP = re.compile(r"^(?:drop|remove|delete)\s+(?:the\s+)?(?:topic\s+)?(?P<topic>.+)$", re.I)
_DROP_ITEM = re.compile(r"^(?:drop|remove|delete)\s+question\s+(?:number\s+)?#?(?P<n>\d+)$", re.I)
_UNNEEDED = re.compile(
    r"^(?P<topic>.+?)\s+(?:does\s*n[o']?t|does not|doesn't|need\s*n[o']?t)\s+"
    r"(?:need|require|build on|depend on)\s+(?P<needed>.+)$",
    re.I,
)
_NEEDS = re.compile(
    r"^(?P<topic>.+?)\s+(?:needs|requires|builds on|depends on|comes after)\s+(?P<needed>.+)$",
    re.I,
)
_MOVE_UNIT = re.compile(
    r"^move\s+(?:the\s+)?unit\s+(?P<unit>.+?)\s+(?P<dir>up|down|earlier|later|first|last)$", re.I
)


def read_review_message(
    message: str, kind: str, structure: CourseStructure | None, bank: QuizBank | None = None
) -> ReviewReading:
    """The author's message at a review step (`kind` is "structure" or "quiz") as approval or
    edits, or a refusal listing what can be said there and where the buttons are."""
    text, then_approve = _command_text(message)
    sayings, buttons = (
        (STRUCTURE_SAYINGS, STRUCTURE_BUTTONS)
        if kind == "structure"
        else (QUIZ_SAYINGS, QUIZ_BUTTONS)
    )
    try:
        if kind == "structure" and structure is not None:
            edit = _structure_command(text, structure)
            if edit is not None:
                return ReviewReading(edits=[edit], approve=then_approve)
        if kind == "quiz" and bank is not None:
            match = _DROP_ITEM.match(text)
            if match:
                edits = [_drop_question(bank, int(match["n"]))]
                return ReviewReading(edits=edits, approve=then_approve)
    except InputError as exc:
        return ReviewReading(refusal=f"I could not do that: {exc.message}. You can say {sayings}.")
    if _APPROVE.search(message) and not _NEGATED.search(message):
        return ReviewReading(approve=True)
    step = "structure" if kind == "structure" else "quiz bank"
    return ReviewReading(
        refusal=f"I did not understand “{_quoted(message)}” at the {step} review. You can say "
        f"{sayings}. {buttons}"
    )


_LEADING = re.compile(
    r"^(?:(?:ok(?:ay)?|yes|sure|please|now|then|so|and|also|great|"
    r"(?:can|could|would|will) you)\b[\s,:;-]*)+",
    re.I,
)
_THEN_APPROVE = re.compile(
    r"[\s,;]*(?:(?:and|then|,)\s*)+approve(?: it| the structure| the quiz bank)?$", re.I
)


def _command_text(message: str) -> tuple[str, bool]:
    """The message without fillers around a command ("ok, please merge A and B"), and whether
    it ends by asking for approval ("..., then approve")."""
    text = message.strip().rstrip(".!").strip()
    text = re.sub(r"[\s,]*please$", "", text, flags=re.I)
    approve = bool(_THEN_APPROVE.search(text))
    text = _THEN_APPROVE.sub("", text)
    return _LEADING.sub("", text).strip(), approve


def _quoted(message: str) -> str:
    flat = " ".join(message.split())
    most = constructor_parameters().readiness.shown_question_chars
    return flat if len(flat) <= most else flat[: most - 1] + "…"


def _structure_command(text: str, structure: CourseStructure) -> dict[str, Any] | None:
    """One structure edit from a command, None when the text is no structure command."""
    topics = {t.topic_id: t.title for t in structure.topics}
    units = {u.unit_id: u.title for u in structure.units}

    def topic(named: str) -> str:
        return find_named(named, topics, "topic")

    if match := _MOVE_UNIT.match(text):
        up = match["dir"].lower() in ("up", "earlier", "first")
        return {
            "op": "move_unit",
            "unit_id": find_named(match["unit"], units, "unit"),
            "direction": "up" if up else "down",
        }
    if match := _SPLIT.match(text):
        edit: dict[str, Any] = {"op": "split_topic", "topic_id": topic(match["topic"])}
        if match["at"]:
            edit["heading"] = match["at"].strip()
        else:
            edit["at_section_id"] = ""  # the first inner heading (below)
            first = structure.topic(edit["topic_id"]).section_ids[1:2]
            if not first:
                raise InputError(
                    f"“{topics[edit['topic_id']]}” is a single section of your file: there is "
                    "no heading inside it to split at"
                )
            edit["at_section_id"] = first[0]
        return edit
    if match := _MERGE.match(text):
        named = _named_list(match["topics"], topics)
        if len(named) < 2:
            raise InputError("name two or more topics to merge, e.g. “merge Loops and Lists”")
        return {"op": "merge", "topic_ids": named}
    if match := _RENAME.match(text):
        if (match["what"] or "").strip().lower() == "unit":
            return {
                "op": "rename_unit",
                "unit_id": find_named(match["old"], units, "unit"),
                "title": match["new"].strip(),
            }
        try:
            return {"op": "rename", "topic_id": topic(match["old"]), "title": match["new"].strip()}
        except InputError:
            if match["what"]:
                raise
            return {
                "op": "rename_unit",
                "unit_id": find_named(match["old"], units, "unit"),
                "title": match["new"].strip(),
            }
    if match := _DROP.match(text):
        return {"op": "drop", "topic_id": topic(match["topic"])}
    if match := _UNNEEDED.match(text):
        return {
            "op": "remove_prerequisite",
            "topic_id": topic(match["topic"]),
            "prerequisite_id": topic(match["needed"]),
        }
    if match := _NEEDS.match(text):
        return {
            "op": "add_prerequisite",
            "topic_id": topic(match["topic"]),
            "prerequisite_id": topic(match["needed"]),
        }
    return None


def _named_list(text: str, topics: dict[str, str]) -> list[str]:
    """The topics a list names ("A, B and C"), a title that itself holds "and" or a comma
    ("Parameters and arguments") read whole: the longest run of pieces that is a title wins."""
    pieces = re.split(r"(\s*(?:,|;|&|\band\b|\bwith\b|\binto\b)\s*)", text, flags=re.I)
    words = pieces[0::2]
    joins = pieces[1::2]
    titles = {title_key(t): i for i, t in topics.items()}
    found: list[str] = []
    at = 0
    while at < len(words):
        for end in range(len(words), at, -1):
            run = "".join(
                w + (joins[k] if k < end - 1 else "") for k, w in enumerate(words) if at <= k < end
            )
            if title_key(run) in titles:
                found.append(titles[title_key(run)])
                at = end
                break
        else:
            if words[at].strip():
                found.append(find_named(words[at], topics, "topic"))
            at += 1
    return found


def _drop_question(bank: QuizBank, number: int) -> dict[str, Any]:
    kept = bank.kept()
    if not 1 <= number <= len(kept):
        raise InputError(f"there is no question {number}: the bank keeps {len(kept)}")
    return {"op": "drop_item", "item_id": kept[number - 1].item_id}


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
