"""Publishing: the approved structure and quiz bank become a course in the content model
(modules, lessons with markdown, a reference KB per lesson, one concept per lesson) and a
knowledge-base domain (topics, prerequisites, key points, questions) that assessment, practice,
grading and the quiz-bank export use. Publishing twice updates the same course in place.

What a published lesson carries, so it works everywhere a shipped one does (decision record 0055):
- its quiz cards: the topic's multiple-choice items of the bank (the tutor's "quiz me", its inline
  cards and the QTI/Moodle export read them); an item without a usable multiple-choice form
  stays a free-answer question of the domain only;
- the unit's introduction opens the unit's first lesson, and the unit's exercises and reading
  list close its last lesson, under their own headings. They are text to read, never a topic,
  a key point or a question (the content model has no module-level text to hold them).

It cannot write misconception ids on the cards: the generated domain has no misconceptions."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import ValidationError
from sqlalchemy.orm import Session

from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import (
    ConstructorState,
    CourseStructure,
    QuizBank,
    QuizItem,
    SourceSection,
    Unit,
)
from tutorgraph.constructor.text import slugify
from tutorgraph.content.manifest import (
    CourseManifest,
    LessonManifest,
    LoadedCourse,
    LoadedLesson,
    ModuleManifest,
)
from tutorgraph.content.manifest import QuizItem as QuizCard
from tutorgraph.content.seeding import SeedReport, upsert_course
from tutorgraph.errors import InputError
from tutorgraph.knowledge import Domain, KnowledgeBase, parse_domain, register_authored
from tutorgraph.knowledge.loader import KnowledgeBaseError, shipped_domains
from tutorgraph.store import constructor as stored
from tutorgraph.store import courses
from tutorgraph.store.models import LearningPath

T = TypeVar("T")
_IMAGE_REF = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")


def target_confidence() -> dict[str, float]:
    """The target confidence a published course sets for each level, junior first
    (`published_targets` in constructor/parameters.yaml)."""
    q = constructor_parameters().published_targets
    return {"junior": q.junior, "mid": q.mid, "senior": q.senior, "staff": q.staff}


def kb_topic_id(slug: str, topic_id: str) -> str:
    return f"{slug}_{topic_id}"


def lesson_markdown(
    title: str,
    section_ids: list[str],
    sections: dict[str, SourceSection],
    image_url: dict[str, str],
    *,
    opening: Sequence[str] = (),
    closing: Sequence[str] = (),
) -> str:
    """The lesson body: its sections in order, subheadings kept one level under the title,
    images pointed at where the published course serves them; the unit's introduction
    (`opening`) before them and its exercises and reading list (`closing`) after them, as
    `unit_text` gives them."""
    parts = [f"# {title}", *opening]
    for section_id in section_ids:
        section = sections.get(section_id)
        if section is None:
            continue
        heading = section.heading_path[-1] if section.heading_path else ""
        # After the unit's introduction the lesson's own text needs its heading back, or it
        # would read (and be cited) as part of the introduction.
        after_introduction = bool(opening) and len(parts) == len(opening) + 1
        if after_introduction or (heading and heading != title):
            heading = heading or title
            parts.append(f"{'#' * min(6, max(2, section.level))} {heading}")
        parts.append(section.text)
    parts += closing
    body = "\n\n".join(p for p in parts if p.strip())
    return _IMAGE_REF.sub(lambda m: f"![{m[1]}]({image_url.get(m[2], m[2])})", body)


def reference_kb(title: str, structure: CourseStructure, topic_id: str, files: list[str]) -> str:
    topic = structure.topic(topic_id)
    lines = [
        f"# Reference: {title}",
        "",
        f"The tutor's grounding notes for this lesson, built from the author's sources "
        f"({', '.join(files)}).",
        "",
        "## Key points",
        *[f"- {p}" for p in topic.key_points],
        "",
        "## Key terms",
        *[f"- {t}" for t in topic.key_terms],
    ]
    if topic.prerequisites:
        titles = [structure.topic(p).title for p in topic.prerequisites]
        lines += ["", "## Builds on", *[f"- {t}" for t in titles]]
    return "\n".join(lines) + "\n"


def quiz_cards(items: list[QuizItem], slug: str, concept: str) -> list[QuizCard]:
    """A lesson's quiz cards: its topic's kept items that have a multiple-choice form. Each card
    has the id of its knowledge-base question, so a card and the free-answer question it was
    written with are one item everywhere; its explanation is the item's reference answer (the
    evidence sentence when there is none). The wrong options' reasons are kept only when every
    distractor has one (the content model refuses a card that leaves one unexplained)."""
    cards: list[QuizCard] = []
    for item in items:
        if item.correct_index is None or not item.options:
            continue
        card = {
            "id": kb_topic_id(slug, item.item_id),
            "question": item.text,
            "options": item.options,
            "correct_index": item.correct_index,
            "explanation": item.reference_answer or item.evidence,
            "reference_answer": item.reference_answer,
            "concept": concept,
            "why_wrong": _why_wrong(item),
        }
        try:
            cards.append(QuizCard.model_validate(card))
        except ValidationError:
            continue  # not a usable card (option count, index): it stays a free-answer item
    return cards


def _why_wrong(item: QuizItem) -> list[str]:
    notes = item.why_wrong
    if len(notes) != len(item.options):
        return []
    right = item.correct_index
    distractors = [note for index, note in enumerate(notes) if index != right]
    if not all(note.strip() for note in distractors):
        return []
    return [("" if index == right else note) for index, note in enumerate(notes)]


def unit_text(
    unit: Unit,
    section_ids: list[str],
    sections: dict[str, SourceSection],
    fallback: str,
) -> list[str]:
    """The unit's own sections (its introduction, exercises or reading list) as lesson parts,
    each under its own heading (`fallback` when the section has none, or only the unit's)."""
    parts: list[str] = []
    for section_id in section_ids:
        section = sections.get(section_id)
        if section is None or not section.text.strip():
            continue
        heading = section.heading_path[-1] if section.heading_path else ""
        if not heading or heading == unit.title:
            heading = fallback
        parts += [f"## {heading}", section.text]
    return parts


def course_title(state: ConstructorState) -> str:
    """The course's title: the author's, else the one the material gives. A course nothing
    names is not published under a made-up title."""
    structure = state.get("structure")
    title = (state.get("course_title") or (structure.title if structure else "")).strip()
    if not title:
        raise InputError(
            "the course has no title: your files do not name it, so give it one "
            "(say “title: …” on /create, or pass --title)"
        )
    return title


def build_course(state: ConstructorState, slug: str, image_base: str = "") -> LoadedCourse:
    structure = _need(state.get("structure"), "there is no approved structure")
    bank: QuizBank = state.get("quiz_bank") or QuizBank()
    sections = {s.section_id: s for s in state.get("sections", [])}
    files = {f.file_id: f for f in state.get("files", [])}
    image_url = {
        image.name: f"{image_base}/{image.image_id}"
        for f in files.values()
        for image in f.images
        if image_base
    }
    modules: list[ModuleManifest] = []
    lessons: list[LoadedLesson] = []
    topics = {t.topic_id: t for t in structure.topics}
    for module_index, unit in enumerate(structure.units):
        manifests: list[LessonManifest] = []
        intro = unit_text(unit, unit.intro_section_ids, sections, "Introduction")
        closing = unit_text(unit, unit.exercise_section_ids, sections, "Exercises") + unit_text(
            unit, unit.reading_section_ids, sections, "Further reading"
        )
        present = [t for t in unit.topic_ids if t in topics]
        for order, topic_id in enumerate(present):
            topic = topics[topic_id]
            source_files = sorted(
                {files[sections[s].file_id].filename for s in topic.section_ids if s in sections}
            )
            concept = kb_topic_id(slug, topic_id)
            items = [i for i in bank.kept() if i.topic_id == topic_id]
            lesson = LessonManifest(
                slug=slugify(topic_id, limit=190),
                title=topic.title[:300],
                summary=topic.summary,
                concepts=[concept],
                sources=source_files,
                quiz=quiz_cards(items, slug, concept),
            )
            manifests.append(lesson)
            content = lesson_markdown(
                topic.title,
                topic.section_ids,
                sections,
                image_url,
                opening=intro if order == 0 else (),
                closing=closing if topic_id == present[-1] else (),
            )
            lessons.append(
                LoadedLesson(
                    manifest=lesson,
                    module_index=module_index,
                    order_index=order,
                    content=content,
                    reference_kb=reference_kb(topic.title, structure, topic_id, source_files),
                )
            )
        if manifests:
            modules.append(ModuleManifest(title=unit.title[:300], lessons=manifests))
    if not modules:
        raise InputError("the structure has no topics to publish")
    manifest = CourseManifest(
        slug=slug,
        title=course_title(state)[:300],
        description=state.get("course_description") or structure.description,
        domain=slug,
        modules=modules,
    )
    return LoadedCourse(manifest=manifest, lessons=lessons)


def build_domain(state: ConstructorState, slug: str) -> KnowledgeBase:
    structure = _need(state.get("structure"), "there is no approved structure")
    bank: QuizBank = state.get("quiz_bank") or QuizBank()
    ordered = structure.ordered_topics()
    targets = target_confidence()
    topics = []
    for position, topic in enumerate(ordered):
        items = [i for i in bank.kept() if i.topic_id == topic.topic_id]
        topics.append(
            {
                "id": kb_topic_id(slug, topic.topic_id),
                "title": topic.title,
                "summary": topic.summary or f"{topic.title}.",
                "target_levels": list(targets),
                "prerequisites": [kb_topic_id(slug, p) for p in topic.prerequisites],
                "target_confidence": targets,
                "difficulty": 1 + (4 * position) // max(1, len(ordered)),
                "key_points": topic.key_points or [topic.summary or topic.title],
                "questions": [
                    {
                        "id": kb_topic_id(slug, item.item_id),
                        "bloom_level": item.bloom_level.value,
                        "type": item.type,
                        "difficulty": item.difficulty,
                        "text": item.text,
                        "reference_answer": item.reference_answer,
                        "rubric": item.key_points or [item.reference_answer],
                        **(
                            {"checks": item.checks.model_dump(mode="json", exclude_defaults=True)}
                            if item.checks is not None
                            else {}
                        ),
                    }
                    for item in items
                ],
            }
        )
    title = course_title(state)
    document = {
        "domain": slug,
        "title": title,
        "description": state.get("course_description") or structure.description,
        "topics": topics,
    }
    try:
        return KnowledgeBase(Domain.model_validate(document))
    except ValueError as exc:
        raise KnowledgeBaseError(f"the generated knowledge base is not valid: {exc}") from exc


def domain_yaml(kb: KnowledgeBase) -> str:
    return "# Knowledge-base domain built by the course constructor\n" + yaml.safe_dump(
        kb.domain.model_dump(mode="json", exclude_defaults=True),
        sort_keys=False,
        allow_unicode=True,
        width=100,
    )


def choose_slug(session: Session, title: str, current: str | None) -> str:
    """The session's course slug: the one it published before, else a new one from the title
    (a counter avoids other courses and shipped domain names)."""
    if current:
        return current
    base = slugify(title or "course", limit=60)
    slug, n = base, 2
    while courses.slug_taken(session=session, slug=slug) or slug in shipped_domains():
        slug, n = f"{base}-{n}", n + 1
    return slug


def choose_slug_offline(state: ConstructorState, title: str = "") -> str:
    """A slug for a course that is exported, not stored."""
    structure = state.get("structure")
    return slugify(title or state.get("course_title") or (structure.title if structure else ""))


def publish_course(
    session: Session,
    state: ConstructorState,
    *,
    owner_id: int,
    slug: str,
    image_base: str = "",
) -> LearningPath:
    """Write (or update) the course and its domain in one transaction, then make the domain
    known to this process."""
    course = build_course(state, slug, image_base)
    kb = build_domain(state, slug)
    existing = courses.course_with_slug(session=session, slug=slug)
    if existing is not None and existing.created_by != owner_id:
        raise InputError(f"course {slug!r} belongs to someone else")
    path = upsert_course(session=session, course=course, report=SeedReport(), owner_id=owner_id)
    stored.save_authored_domain(session, name=slug, course_id=path.id, document=domain_yaml(kb))
    register_authored(kb)
    return path


def load_authored_domains(session: Session) -> int:
    """Register every published course's domain (at start-up); a broken one is skipped."""
    count = 0
    for row in stored.authored_domains(session):
        try:
            register_authored(parse_domain(row.document, source=f"authored domain {row.name}"))
            count += 1
        except KnowledgeBaseError:
            continue
    return count


def export_course(state: ConstructorState, out_dir: Path, slug: str) -> Path:
    """Write the course in the on-disk content format (course.json, lessons, reference KBs)
    and its domain YAML, for `tutorgraph seed` or version control."""
    course = build_course(state, slug)
    kb = build_domain(state, slug)
    root = out_dir / slug
    (root / "lessons").mkdir(parents=True, exist_ok=True)
    (root / "enrichment").mkdir(exist_ok=True)
    written = course.manifest.model_copy(deep=True)
    for module in written.modules:
        for lesson in module.lessons:
            loaded = next(x for x in course.lessons if x.manifest.slug == lesson.slug)
            (root / "lessons" / f"{lesson.slug}.md").write_text(loaded.content, encoding="utf-8")
            lesson.content_file = f"lessons/{lesson.slug}.md"
            (root / "enrichment" / f"{lesson.slug}_reference_kb.md").write_text(
                loaded.reference_kb, encoding="utf-8"
            )
    (root / "course.json").write_text(
        json.dumps(written.model_dump(mode="json", exclude_none=True), indent=2) + "\n",
        encoding="utf-8",
    )
    (root / f"{slug}.domain.yaml").write_text(domain_yaml(kb), encoding="utf-8")
    return root


def _need(value: T | None, message: str) -> T:
    if value is None:
        raise InputError(message)
    return value
