"""The quiz checks, whichever engine wrote the items (used by quiz generation and validation):
an item is answerable when a BM25 search of the sources with the question alone finds its
evidence in the top results; it leaks when the question states most of its own key points; two
items duplicate when their content words mostly coincide. How many results, how much and how
mostly are parameters: `item_checks` in constructor/parameters.yaml."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import bm25s

from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import QuizItem, SourceChunk
from tutorgraph.constructor.text import FENCE_BLOCK, overlap, stems_of
from tutorgraph.text.stemming import stem_words
from tutorgraph.text.tokens import normalise


class EvidenceIndex:
    """BM25 over the source chunks: the answerability check's search."""

    _recent: ClassVar[dict[tuple[str, ...], EvidenceIndex]] = {}

    @classmethod
    def of(cls, chunks: Sequence[SourceChunk]) -> EvidenceIndex:
        """The index of these chunks, built once: quiz generation checks every topic's items
        and validation checks them all again against the same sources. (Chunk ids name an
        upload and a position, so the same ids are the same text.)"""
        key = tuple(c.chunk_id for c in chunks)
        index = cls._recent.get(key)
        if index is None:
            index = cls(chunks)
            cls._recent.clear()  # one build's sources at a time
            cls._recent[key] = index
        return index

    def __init__(self, chunks: Sequence[SourceChunk]) -> None:
        self.chunks = list(chunks)
        self._retriever = bm25s.BM25()
        if self.chunks:
            self._retriever.index(self._tokens([c.text for c in self.chunks]), show_progress=False)

    @staticmethod
    def _tokens(texts: Sequence[str]) -> bm25s.tokenization.Tokenized:
        return bm25s.tokenize(list(texts), stopwords="en", stemmer=stem_words, show_progress=False)

    def search(self, query: str, *, k: int) -> list[SourceChunk]:
        if not self.chunks:
            return []
        tokens = self._tokens([query])
        if not tokens.vocab:
            return []
        ids, scores = self._retriever.retrieve(
            tokens, k=min(k, len(self.chunks)), show_progress=False, n_threads=0
        )
        return [self.chunks[int(i)] for i, s in zip(ids[0], scores[0], strict=True) if float(s) > 0]

    def evidence_for(self, item: QuizItem) -> SourceChunk | None:
        """The retrieved chunk that holds the item's evidence, searching with the question
        only (the reference answer is not part of the query)."""
        q = constructor_parameters().item_checks
        wanted = normalise(item.evidence)
        wanted_stems = stems_of(item.evidence)
        for chunk in self.search(item.text, k=q.answerable_top_k):
            text = normalise(chunk.text)
            if wanted and wanted in text:
                return chunk
            if overlap(wanted_stems, stems_of(chunk.text)) >= q.answerable_coverage:
                return chunk
        return None


def leaks(item: QuizItem) -> bool:
    """The question's words state most of one of its own key points. A code block in the
    question is left out: a program's output repeats its print statements' words without
    giving away what it computes."""
    q = constructor_parameters().item_checks
    asked = stems_of(FENCE_BLOCK.sub(" ", item.text))
    for point in item.key_points:
        point_stems = stems_of(point)
        if len(point_stems) >= q.leak_min_stems and overlap(point_stems, asked) >= q.leak_share:
            return True
    return False


def duplicates(items: Sequence[QuizItem]) -> dict[str, str]:
    """item id -> the earlier item it duplicates."""
    same = constructor_parameters().item_checks.duplicate_share
    seen: list[tuple[str, set[str], set[str]]] = []
    found: dict[str, str] = {}
    for item in items:
        question, answer = stems_of(item.text), stems_of(item.reference_answer)
        for other_id, other_q, other_a in seen:
            same_question = question == other_q or (
                overlap(question, other_q) >= same and overlap(other_q, question) >= same
            )
            if same_question and overlap(answer, other_a) >= same:
                found[item.item_id] = other_id
                break
        else:
            seen.append((item.item_id, question, answer))
    return found


def check_items(items: Sequence[QuizItem], index: EvidenceIndex) -> list[QuizItem]:
    """Each item with its problems listed (an empty list keeps it)."""
    dupes = duplicates(items)
    checked = []
    for item in items:
        problems = []
        if index.evidence_for(item) is None:
            problems.append("not answerable: a search of the sources with the question misses it")
        if leaks(item):
            problems.append("leaks its answer: the question states its key point")
        if item.item_id in dupes:
            problems.append(f"duplicates {dupes[item.item_id]}")
        if not item.key_points:
            problems.append("has no key points to grade against")
        checked.append(item.model_copy(update={"problems": problems}))
    return checked
