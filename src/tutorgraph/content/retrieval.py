"""Retrieval over lesson content and reference KBs: one persisted bm25s index per course,
rebuilt whenever the course's lessons change.

With an embeddings model configured (`llm.embeddings_model`), search is hybrid: each chunk's
embedding is stored beside its BM25 index (`vectors.npy`, with the model's name; course-sized,
so an exact cosine scan is fast), and the BM25 and vector rankings are fused by reciprocal rank
(RRF_K). A hit's `score` stays its BM25 score (0 for a passage found by meaning alone), which the
offline tutor's thresholds read; `fused` orders the hits. If the embeddings endpoint fails, the
search is BM25 alone and says so in the log."""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import bm25s
import numpy as np
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

from tutorgraph.content.chunking import chunk_markdown
from tutorgraph.content.embeddings import Embedder
from tutorgraph.store.models import LearningPath, Lesson, Module
from tutorgraph.text.notation import with_notation
from tutorgraph.text.stemming import stem_words

log = logging.getLogger(__name__)

Source = Literal["lesson", "reference_kb"]
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
    score: float  # BM25
    fused: float = 0.0  # the ranking key: the BM25 score, or the hybrid's reciprocal-rank score


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
        [with_notation(t) for t in texts], stopwords="en", stemmer=stem_words, show_progress=False
    )


def _index_text(chunk: IndexedChunk) -> str:
    # Headings and the lesson title are the densest summary of a chunk: count them twice.
    heads = " ".join(chunk.heading_path)
    return f"{chunk.lesson_title} {heads} {heads}\n{chunk.text}"


INDEX_VERSION = "3"  # bump when chunking or indexing changes: every index is rebuilt
RRF_K = 60  # reciprocal rank fusion: 1 / (RRF_K + rank) from each ranking
CANDIDATES = 3  # each ranking contributes k * CANDIDATES candidates to the fusion
EMBED_RETRY_SECONDS = 300.0  # after embedding a course failed, BM25 alone until then


def fingerprint(lessons: Sequence[LessonDoc]) -> str:
    joined = "|".join(f"{doc.id}:{doc.content_hash}" for doc in sorted(lessons, key=lambda d: d.id))
    return hashlib.sha256(f"{INDEX_VERSION}|{joined}".encode()).hexdigest()


class CourseIndex:
    """A course's chunks and their BM25 index."""

    def __init__(self, retriever: bm25s.BM25, chunks: list[IndexedChunk], print_: str) -> None:
        self.retriever = retriever
        self.chunks = chunks
        self.fingerprint = print_
        self.vectors: np.ndarray | None = None  # unit rows, one per chunk
        self.vector_model = ""

    def embed_chunks(self, embedder: Embedder) -> None:
        """Compute (or keep) the chunks' embeddings for `embedder`'s model."""
        if self.vector_model == embedder.name or not self.chunks:
            return
        raw = np.asarray(embedder.embed([_index_text(c) for c in self.chunks]), dtype=np.float32)
        self.vectors = _unit(raw)
        self.vector_model = embedder.name

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
        if self.vectors is not None:
            np.save(tmp / "vectors.npy", self.vectors)
            (tmp / "vector_model").write_text(self.vector_model)
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
        index = cls(retriever, chunks, print_)
        if (directory / "vectors.npy").is_file():
            try:
                vectors = np.load(directory / "vectors.npy", allow_pickle=False)
                if vectors.shape[0] == len(chunks):
                    index.vectors = vectors
                    index.vector_model = (directory / "vector_model").read_text()
            except (OSError, ValueError) as exc:
                log.warning("vectors at %s unreadable (%s); they will be rebuilt", directory, exc)
        return index

    def search(
        self,
        query: str,
        *,
        k: int,
        lesson: str | None = None,
        query_vector: np.ndarray | None = None,
    ) -> list[SearchHit]:
        """The best `k` chunks: by BM25, or, given the query's embedding and stored vectors,
        by the fusion of the BM25 and the vector rankings."""
        if not self.chunks or not query.strip():
            return []
        mask = None
        if lesson is not None:
            mask = np.array([c.lesson == lesson for c in self.chunks], dtype=float)
            if not mask.any():
                return []
        hybrid = query_vector is not None and self.vectors is not None
        bm25 = self._bm25(query, k * CANDIDATES if hybrid else k, mask)
        if not hybrid:
            return [self._hit(i, score, score) for i, score in bm25]
        assert query_vector is not None and self.vectors is not None
        similarity = self.vectors @ _unit(query_vector.reshape(1, -1))[0]
        if mask is not None:
            similarity = np.where(mask > 0, similarity, -np.inf)
        order = np.argsort(-similarity)[: k * CANDIDATES]
        by_meaning = [int(i) for i in order if np.isfinite(similarity[i])]
        fused: dict[int, float] = {}
        for rank, (index, _score) in enumerate(bm25):
            fused[index] = fused.get(index, 0.0) + 1.0 / (RRF_K + rank + 1)
        for rank, index in enumerate(by_meaning):
            fused[index] = fused.get(index, 0.0) + 1.0 / (RRF_K + rank + 1)
        lexical = dict(bm25)
        best = sorted(fused, key=lambda i: -fused[i])[:k]
        return [self._hit(i, lexical.get(i, 0.0), fused[i]) for i in best]

    def _bm25(self, query: str, k: int, mask: np.ndarray | None) -> list[tuple[int, float]]:
        tokens = _tokenize([query])
        if not tokens.vocab:
            return []
        n = min(k, len(self.chunks))
        ids, scores = self.retriever.retrieve(
            tokens, k=n, show_progress=False, weight_mask=mask, n_threads=0
        )
        return [
            (int(i), float(score)) for i, score in zip(ids[0], scores[0], strict=True) if score > 0
        ]

    def _hit(self, index: int, score: float, fused: float) -> SearchHit:
        return SearchHit(**self.chunks[index].model_dump(), score=score, fused=fused)

    def known(self, term: str) -> bool:
        """Whether a (stemmed) term occurs anywhere in the course."""
        return term in self.retriever.vocab_dict if self.chunks else False


def query_terms(query: str) -> list[str]:
    """The stemmed, stopword-free terms search reads in a query."""
    tokens = _tokenize([query])
    return list(tokens.vocab)


class SearchIndexes:
    """Per-process cache of course indexes persisted under `index_dir`."""

    def __init__(self, index_dir: Path, *, embedder: Embedder | None = None) -> None:
        self.index_dir = index_dir
        self.embedder = embedder
        self._cache: dict[str, CourseIndex] = {}
        self._lock = threading.Lock()
        self._embed_failed: dict[str, float] = {}  # course slug -> when embedding it failed

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
            changed = loaded is None or loaded.fingerprint != wanted
            if loaded is None or changed:
                log.info("building search index for course %s", course.slug)
                loaded = CourseIndex.build(course.slug, lessons)
            if self._should_embed(loaded, course.slug):
                changed = self._embed(loaded, course.slug) or changed
            if changed:
                loaded.save(directory)
            self._cache[course.slug] = loaded
            return loaded

    def _should_embed(self, index: CourseIndex, slug: str) -> bool:
        """Whether the index lacks this embedder's vectors and no recent attempt failed (a
        down endpoint is not asked again on every search)."""
        if self.embedder is None or index.vector_model == self.embedder.name:
            return False
        failed = self._embed_failed.get(slug)
        return failed is None or time.monotonic() - failed >= EMBED_RETRY_SECONDS

    def _embed(self, index: CourseIndex, slug: str) -> bool:
        assert self.embedder is not None
        try:
            index.embed_chunks(self.embedder)
        except Exception as exc:  # the endpoint is down or refuses: BM25 keeps working
            log.warning("embeddings for course %s failed (%s): BM25 only", slug, _reason(exc))
            self._embed_failed[slug] = time.monotonic()
            return False
        self._embed_failed.pop(slug, None)
        log.info("embedded %d chunks of course %s", len(index.chunks), slug)
        return True

    def _query_vector(self, query: str) -> np.ndarray | None:
        if self.embedder is None or not query.strip():
            return None
        try:
            return np.asarray(self.embedder.embed([query])[0], dtype=np.float32)
        except Exception as exc:
            log.warning("query embedding failed (%s): BM25 only", _reason(exc))
            return None

    def search(
        self,
        *,
        session: Session,
        query: str,
        courses: Sequence[LearningPath],
        lesson: str | None = None,
        k: int = 5,
    ) -> list[SearchHit]:
        indexes = [self.course_index(session=session, course=course) for course in courses]
        # The query is embedded only when some course in scope has vectors to compare it with.
        hybrid = any(index.vectors is not None for index in indexes)
        vector = self._query_vector(query) if hybrid else None
        hits: list[SearchHit] = []
        for index in indexes:
            hits.extend(index.search(query, k=k, lesson=lesson, query_vector=vector))
        hits.sort(key=lambda h: h.fused, reverse=True)
        return hits[:k]

    def unknown_terms(
        self, *, session: Session, query: str, courses: Sequence[LearningPath]
    ) -> list[str]:
        """The query's terms that no course in scope contains ("selenium", "sourdough"): how
        much of a question is about something the courses do not teach."""
        indexes = [self.course_index(session=session, course=c) for c in courses]
        return [t for t in query_terms(query) if not any(i.known(t) for i in indexes)]


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms == 0, 1.0, norms)


def _reason(exc: Exception) -> str:
    return f"{type(exc).__name__}: {str(exc)[:200]}"


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
