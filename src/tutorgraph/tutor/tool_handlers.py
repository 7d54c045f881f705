"""Executing the tutor's tools. Every result is a JSON object; a failure becomes `{"error": ...}`
so the model can carry on. Database and index work runs in worker threads."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import anyio
from sqlalchemy.orm import Session

from tutorgraph.content.retrieval import SearchIndexes
from tutorgraph.errors import InputError, NotFoundError, TutorgraphError
from tutorgraph.knowledge import Resource, Topic, shipped_domains
from tutorgraph.llm import ToolCall
from tutorgraph.settings import SearchSettings
from tutorgraph.store import courses
from tutorgraph.store.db import Database
from tutorgraph.store.models import Lesson, User
from tutorgraph.store.users import get_user
from tutorgraph.text.markdown import shorten
from tutorgraph.text.query import expand, stem_set
from tutorgraph.tutor.context import TutorContext, is_quiz
from tutorgraph.tutor.web_search import search_web

log = logging.getLogger(__name__)

MAX_RESOURCES = 8
MAX_IMAGES = 6
MAX_CONTENT_CHARS = 12_000
MAX_KB_CHARS = 20_000
MAX_PASSAGE_CHARS = 1_500
RESULT_CHARS = 16_000
SHORTEST_CUT = 200  # a text field is never shortened below this many characters

T = TypeVar("T")


def result_json(result: dict[str, Any]) -> str:
    """A tool result as the JSON the model reads, within RESULT_CHARS: its longest texts are
    shortened until it fits, so it stays valid JSON with every field (a lesson's quiz after its
    long content) rather than being cut off mid-way."""
    text = json.dumps(result, ensure_ascii=False, default=str)
    trimmed = dict(result)
    while len(text) > RESULT_CHARS:
        texts = [k for k, v in trimmed.items() if isinstance(v, str) and len(v) > SHORTEST_CUT]
        if not texts:
            return text[:RESULT_CHARS] + "…(truncated)"  # no long text to shorten: cut
        key = max(texts, key=lambda k: len(trimmed[k]))
        value = trimmed[key]
        trimmed[key] = shorten(
            value, max(SHORTEST_CUT, len(value) - (len(text) - RESULT_CHARS) - 100)
        )
        text = json.dumps(trimmed, ensure_ascii=False, default=str)
    return text


class ToolExecutor:
    """Runs the tools of one turn for one learner, within what that learner may see."""

    def __init__(
        self,
        *,
        context: TutorContext,
        database: Database,
        indexes: SearchIndexes,
        search: SearchSettings,
        allowed: Sequence[str],
    ) -> None:
        self.context = context
        self.database = database
        self.indexes = indexes
        self.search = search
        self.allowed = set(allowed)

    async def execute(self, call: ToolCall) -> dict[str, Any]:
        if call.name not in self.allowed:
            return {"error": f"there is no tool named {call.name!r} in this conversation"}
        try:
            arguments = json.loads(call.arguments or "{}")
        except json.JSONDecodeError:
            return {"error": "the tool arguments were not valid JSON"}
        if not isinstance(arguments, dict):
            return {"error": "the tool arguments must be a JSON object"}
        try:
            return await self._dispatch(call.name, arguments)
        except TutorgraphError as exc:
            return {"error": exc.message}
        except Exception:
            log.exception("tool %s failed", call.name)
            return {"error": f"the tool {call.name} failed unexpectedly"}

    async def _dispatch(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name == "search_web":
            return await search_web(_text_arg(args, "query", required=True), self.search)
        if name == "get_user_progress":
            return self._progress()
        if name == "get_curated_resources":
            return {"resources": curated_resources(self._concepts(args), _text_arg(args, "query"))}
        if name == "get_relevant_images":
            return {"images": self._images(self._concepts(args), _text_arg(args, "query"))}
        handlers: dict[str, Callable[[Session, dict[str, Any]], dict[str, Any]]] = {
            "get_lesson_context": self._lesson_context,
            "get_lesson_transcript": self._transcript,
            "get_lesson_reference_kb": self._reference_kb,
            "search_course": self._search_course,
        }
        handler = handlers[name]
        return await self._in_thread(lambda session: handler(session, args))

    async def _in_thread(self, work: Callable[[Session], T]) -> T:
        def run() -> T:
            with self.database.session() as session:
                return work(session)

        return await anyio.to_thread.run_sync(run)

    # --- database tools ---------------------------------------------------------------------------

    def _user(self, session: Session) -> User | None:
        user_id = self.context.user_id
        return get_user(session=session, user_id=user_id) if user_id else None

    def _lesson(self, session: Session, slug: str | None) -> Lesson:
        """A lesson by slug among the courses the learner can see (the current course first)."""
        slug = slug or self.context.lesson_slug
        if not slug:
            raise InputError("lesson_slug: name a lesson (there is no current lesson here)")
        user = self._user(session)
        candidates = courses.lessons_with_slug(session=session, slug=slug)
        visible = [
            lesson
            for lesson in candidates
            if courses.can_see(session=session, user=user, course=lesson.module.learning_path)
        ]
        if not visible:
            raise NotFoundError(f"no lesson {slug!r} in the courses you can see")
        visible.sort(key=lambda item: item.module.learning_path.slug != self.context.course_slug)
        return visible[0]

    def _lesson_context(self, session: Session, args: dict[str, Any]) -> dict[str, Any]:
        lesson = self._lesson(session, _text_arg(args, "lesson_slug", required=True))
        return {
            "lesson_slug": lesson.slug,
            "title": lesson.title,
            "course": lesson.module.learning_path.slug,
            "summary": lesson.summary,
            "concepts": list(lesson.concepts),
            "content": shorten(lesson.content, MAX_CONTENT_CHARS),
            # The lesson's own checks (answers included: the stream never shows them, see
            # quiz_stream), so a tutor can ask one outside the lesson too.
            "quiz": [item for item in lesson.quiz if is_quiz(item)],
        }

    def _transcript(self, session: Session, args: dict[str, Any]) -> dict[str, Any]:
        lesson = self._lesson(session, _text_arg(args, "lesson_slug"))
        transcript = lesson.transcript or ""
        result: dict[str, Any] = {
            "lesson_slug": lesson.slug,
            "title": lesson.title,
            "available": bool(transcript),
            "transcript": shorten(transcript, MAX_CONTENT_CHARS),
        }
        if not transcript:
            result["note"] = "this lesson has no video transcript"
        return result

    def _reference_kb(self, session: Session, args: dict[str, Any]) -> dict[str, Any]:
        lesson = self._lesson(session, _text_arg(args, "lesson_slug"))
        result: dict[str, Any] = {
            "lesson_slug": lesson.slug,
            "title": lesson.title,
            "available": bool(lesson.reference_kb),
            "reference_kb": shorten(lesson.reference_kb, MAX_KB_CHARS),
        }
        if not lesson.reference_kb:
            result["note"] = "this lesson has no reference article"
        return result

    def _search_course(self, session: Session, args: dict[str, Any]) -> dict[str, Any]:
        query = _text_arg(args, "query", required=True)
        lesson_slug = _text_arg(args, "lesson_slug") or None
        k = args.get("k", 5)
        k = max(1, min(8, k)) if isinstance(k, int) else 5
        user = self._user(session)
        scope = [v.course for v in courses.visible_courses(session=session, user=user)]
        own = [c for c in scope if c.slug == self.context.course_slug]
        if lesson_slug is not None and lesson_slug in self._course_lesson_slugs():
            scope = own or scope
        searched = expand(query)  # learners' symbols and abbreviations, spelled out
        hits = self.indexes.search(
            session=session, query=searched, courses=own or scope, lesson=lesson_slug, k=k
        )
        if own and len(scope) > len(own):
            # The current course first, then the others: each course has its own index, whose
            # scores do not compare with another's (a small uploaded course scores low on words
            # a big course repeats), so one merged ranking would bury the course being studied.
            others = [c for c in scope if c not in own]
            hits += self.indexes.search(
                session=session, query=searched, courses=others, lesson=lesson_slug, k=k
            )
        unknown = self.indexes.unknown_terms(session=session, query=searched, courses=scope)
        return {
            "query": query,
            "unknown_terms": unknown,
            "results": [
                {
                    "course": hit.course,
                    "lesson": hit.lesson,
                    "lesson_title": hit.lesson_title,
                    "source": hit.source,
                    "heading_path": hit.heading_path,
                    "text": shorten(hit.text, MAX_PASSAGE_CHARS),
                    "score": round(hit.score, 3),
                }
                for hit in hits
            ],
        }

    def _course_lesson_slugs(self) -> set[str]:
        slugs = {entry.slug for entry in self.context.curriculum_index}
        return slugs | {self.context.lesson_slug} if self.context.lesson_slug else slugs

    # --- context tools ----------------------------------------------------------------------------

    def _progress(self) -> dict[str, Any]:
        context = self.context
        result: dict[str, Any] = {
            "completed_lessons": list(context.completed_lesson_titles),
            "completed_count": len(context.completed_lesson_titles),
        }
        if not context.exploration_mode:
            in_course = [e for e in context.curriculum_index if e.completed]
            result["current_lesson"] = context.lesson_title
            result["course"] = context.course_title
            result["course_lesson_count"] = len(context.curriculum_index) + 1
            result["course_completed_count"] = len(in_course)
        return result

    def _concepts(self, args: dict[str, Any]) -> list[str]:
        given = args.get("concepts")
        if isinstance(given, list) and given:
            return [str(c) for c in given]
        return list(self.context.concepts)

    def _images(self, concepts: list[str], query: str) -> list[dict[str, Any]]:
        wanted = set(concepts)
        words = stem_set(query)
        scored = []
        for position, image in enumerate(self.context.available_images):
            score = 3 * len(wanted & set(image.concepts)) + len(
                words & stem_set(f"{image.caption} {image.when_to_show}")
            )
            if score:
                scored.append((-score, position, image))
        scored.sort(key=lambda item: item[:2])
        return [image.model_dump() for _, _, image in scored[:MAX_IMAGES]]


def curated_resources(concepts: Sequence[str], query: str = "") -> list[dict[str, Any]]:
    """Knowledge-base resources of the topics that share concepts (or words) with the request."""
    wanted = set(concepts)
    words = stem_set(query)
    scored: list[tuple[int, int, Resource, Topic]] = []
    for domain in shipped_domains().values():
        for order, topic in enumerate(domain.domain.topics):
            score = 3 * (topic.id in wanted) + len(words & stem_set(f"{topic.title} {topic.id}"))
            if score:
                scored.extend((-score, order, resource, topic) for resource in topic.resources)
    scored.sort(key=lambda item: item[:2])
    seen: set[str] = set()
    resources = []
    for _, _, resource, topic in scored:
        url = str(resource.url)
        if url in seen:
            continue
        seen.add(url)
        resources.append(
            {
                "title": resource.title,
                "url": url,
                "type": resource.type,
                "description": resource.why,
                "why_relevant": f"curated for {topic.title}",
                "concept": topic.id,
            }
        )
    return resources[:MAX_RESOURCES]


def _text_arg(args: dict[str, Any], name: str, *, required: bool = False) -> str:
    value = args.get(name)
    if value is None or value == "":
        if required:
            raise InputError(f"{name}: required")
        return ""
    if not isinstance(value, str):
        raise InputError(f"{name}: must be a string")
    return value.strip()[:1000]
