"""BM25 retrieval over lesson content and reference KBs: one persisted bm25s index per course,
rebuilt whenever the course's lessons change."""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import bm25s
import numpy as np
import Stemmer
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from tutorgraph.content.chunking import chunk_markdown
from tutorgraph.content.notation import with_notation
from tutorgraph.store.models import LearningPath, Lesson, Module

log = logging.getLogger(__name__)

Source = Literal["lesson", "reference_kb"]
_stemmer = Stemmer.Stemmer("english")
logging.getLogger("bm25s").setLevel(logging.WARNING)


class IndexedChunk(BaseModel):
    course: str
    lesson: str
    lesson_id: int
    lesson_title: str
    source: Source
    heading_path: list[str]
    text: str


class SearchHit(IndexedChunk):
    score: float


@dataclass(frozen=True)
class LessonDoc:
    id: int
    slug: str
    title: str
    content: str
    reference_kb: str
    content_hash: str


def _tokenize(texts: Sequence[str]) -> bm25s.tokenization.Tokenized:
    return bm25s.tokenize(
        [with_notation(t) for t in texts], stopwords="en", stemmer=_stemmer, show_progress=False
    )


def _index_text(chunk: IndexedChunk) -> str:
    # Headings and the lesson title are the densest summary of a chunk: count them twice.
    heads = " ".join(chunk.heading_path)
    return f"{chunk.lesson_title} {heads} {heads}\n{chunk.text}"


INDEX_VERSION = "3"  # bump when chunking or indexing changes: every index is rebuilt


def fingerprint(lessons: Sequence[LessonDoc]) -> str:
    joined = "|".join(f"{doc.id}:{doc.content_hash}" for doc in sorted(lessons, key=lambda d: d.id))
    return hashlib.sha256(f"{INDEX_VERSION}|{joined}".encode()).hexdigest()


class CourseIndex:
    """A course's chunks and their BM25 index."""

    def __init__(self, retriever: bm25s.BM25, chunks: list[IndexedChunk], print_: str) -> None:
        self.retriever = retriever
        self.chunks = chunks
        self.fingerprint = print_

    @classmethod
    def build(cls, course: str, lessons: Sequence[LessonDoc]) -> CourseIndex:
        chunks: list[IndexedChunk] = []
        for doc in lessons:
            pairs: tuple[tuple[Source, str], ...] = (
                ("lesson", doc.content),
                ("reference_kb", doc.reference_kb),
            )
            for source, body in pairs:
                for chunk in chunk_markdown(body):
                    chunks.append(
                        IndexedChunk(
                            course=course,
                            lesson=doc.slug,
                            lesson_id=doc.id,
                            lesson_title=doc.title,
                            source=source,
                            heading_path=list(chunk.heading_path),
                            text=chunk.text,
                        )
                    )
        retriever = bm25s.BM25()
        if chunks:
            retriever.index(_tokenize([_index_text(c) for c in chunks]), show_progress=False)
        return cls(retriever, chunks, fingerprint(lessons))

    def save(self, directory: Path) -> None:
        tmp = directory.with_name(directory.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        if self.chunks:
            self.retriever.save(str(tmp), show_progress=False)
        (tmp / "chunks.json").write_text(json.dumps([c.model_dump() for c in self.chunks]))
        (tmp / "fingerprint").write_text(self.fingerprint)
        shutil.rmtree(directory, ignore_errors=True)
        tmp.rename(directory)

    @classmethod
    def load(cls, directory: Path) -> CourseIndex | None:
        try:
            chunks = [
                IndexedChunk(**c) for c in json.loads((directory / "chunks.json").read_text())
            ]
            print_ = (directory / "fingerprint").read_text()
            retriever = (
                bm25s.BM25.load(str(directory), show_progress=False) if chunks else bm25s.BM25()
            )
        except (OSError, ValueError) as exc:
            log.warning("index at %s unreadable (%s); it will be rebuilt", directory, exc)
            return None
        return cls(retriever, chunks, print_)

    def search(self, query: str, *, k: int, lesson: str | None = None) -> list[SearchHit]:
        if not self.chunks or not query.strip():
            return []
        tokens = _tokenize([query])
        if not tokens.vocab:
            return []
        mask = None
        if lesson is not None:
            mask = np.array([c.lesson == lesson for c in self.chunks], dtype=float)
            if not mask.any():
                return []
        n = min(k, len(self.chunks))
        ids, scores = self.retriever.retrieve(
            tokens, k=n, show_progress=False, weight_mask=mask, n_threads=0
        )
        hits = []
        for index, score in zip(ids[0], scores[0], strict=True):
            if score <= 0:
                continue
            hits.append(SearchHit(**self.chunks[int(index)].model_dump(), score=float(score)))
        return hits

    def known(self, term: str) -> bool:
        """Whether a (stemmed) term occurs anywhere in the course."""
        return term in self.retriever.vocab_dict if self.chunks else False


def query_terms(query: str) -> list[str]:
    """The stemmed, stopword-free terms search reads in a query."""
    tokens = _tokenize([query])
    return list(tokens.vocab)


class SearchIndexes:
    """Per-process cache of course indexes persisted under `index_dir`."""

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = index_dir
        self._cache: dict[str, CourseIndex] = {}
        self._lock = threading.Lock()

    def course_index(self, *, session: Session, course: LearningPath) -> CourseIndex:
        """The course's index, loaded from disk or rebuilt if the lessons changed."""
        lessons = lesson_docs(session=session, course_id=course.id)
        wanted = fingerprint(lessons)
        with self._lock:
            cached = self._cache.get(course.slug)
            if cached is not None and cached.fingerprint == wanted:
                return cached
            directory = self.index_dir / course.slug
            loaded = CourseIndex.load(directory) if directory.exists() else None
            if loaded is None or loaded.fingerprint != wanted:
                log.info("building search index for course %s", course.slug)
                loaded = CourseIndex.build(course.slug, lessons)
                loaded.save(directory)
            self._cache[course.slug] = loaded
            return loaded

    def search(
        self,
        *,
        session: Session,
        query: str,
        courses: Sequence[LearningPath],
        lesson: str | None = None,
        k: int = 5,
    ) -> list[SearchHit]:
        hits: list[SearchHit] = []
        for course in courses:
            hits.extend(
                self.course_index(session=session, course=course).search(query, k=k, lesson=lesson)
            )
        hits.sort(key=lambda h: h.score, reverse=True)
        return hits[:k]

    def unknown_terms(
        self, *, session: Session, query: str, courses: Sequence[LearningPath]
    ) -> list[str]:
        """The query's terms that no course in scope contains ("selenium", "sourdough"): how
        much of a question is about something the courses do not teach."""
        indexes = [self.course_index(session=session, course=c) for c in courses]
        return [t for t in query_terms(query) if not any(i.known(t) for i in indexes)]


def lesson_docs(*, session: Session, course_id: int) -> list[LessonDoc]:
    rows = session.execute(
        select(
            Lesson.id,
            Lesson.slug,
            Lesson.title,
            Lesson.content,
            Lesson.reference_kb,
            Lesson.content_hash,
        )
        .join(Module, Lesson.module_id == Module.id)
        .where(Module.learning_path_id == course_id)
        .order_by(Module.order_index, Lesson.order_index)
    ).all()
    return [LessonDoc(*row) for row in rows]
