"""Hybrid search: with an embeddings model, a passage found only by meaning joins the BM25
results (reciprocal rank fusion); the vectors persist beside the BM25 index; a failing endpoint
leaves BM25 working; and the OpenAI-compatible embedder really calls `/embeddings`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from tests.store.test_conformance import write_course
from tutorgraph.content.embeddings import OpenAIEmbedder, embedder_from
from tutorgraph.content.retrieval import SearchIndexes
from tutorgraph.content.seeding import seed_content
from tutorgraph.settings import LLMSettings
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath

# One concept per dimension: words of a concept embed alike, whatever they are spelled.
CONCEPTS = {
    "scale": ("divide", "sqrt", "scaling", "shrink", "normalise", "temperature"),
    "attend": ("queries", "keys", "attention", "lookup"),
    "greet": ("hello", "welcome", "intro"),
}


class ConceptEmbedder:
    name = "concepts-v1"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        vectors = []
        for text in texts:
            words = text.lower().replace(".", " ").split()
            vectors.append(
                [float(sum(w in cues for w in words)) for cues in CONCEPTS.values()] + [0.01]
            )
        return vectors


class BrokenEmbedder:
    name = "broken"

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        raise ConnectionError("the embeddings server is down")


def seeded(database: Database, tmp_path: Path) -> LearningPath:
    write_course(tmp_path / "content")
    with database.session() as session:
        seed_content(session=session, content_dir=tmp_path / "content")
    with database.session() as session:
        return session.scalars(select(LearningPath)).one()


def test_a_passage_found_by_meaning_joins_the_results(database: Database, tmp_path: Path) -> None:
    course = seeded(database, tmp_path)
    query = "how do I shrink and normalise the scores"  # no word of the Scaling section
    with database.session() as session:
        plain = SearchIndexes(tmp_path / "bm25").search(
            session=session, query=query, courses=[course], k=3
        )
        embedder = ConceptEmbedder()
        hybrid = SearchIndexes(tmp_path / "hybrid", embedder=embedder).search(
            session=session, query=query, courses=[course], k=3
        )
    assert all(h.heading_path != ["Scaling"] for h in plain)
    assert hybrid[0].heading_path == ["Scaling"] and hybrid[0].score == 0.0  # meaning alone
    assert hybrid[0].fused > 0
    assert (tmp_path / "hybrid" / "demo" / "vectors.npy").is_file()
    assert (tmp_path / "hybrid" / "demo" / "vector_model").read_text() == "concepts-v1"

    # Another process loads the vectors from disk: only the query is embedded.
    again = ConceptEmbedder()
    with database.session() as session:
        hits = SearchIndexes(tmp_path / "hybrid", embedder=again).search(
            session=session, query=query, courses=[course], k=3
        )
    assert hits[0].heading_path == ["Scaling"] and again.calls == [[query]]


def test_a_failing_embeddings_endpoint_leaves_bm25_working(
    database: Database, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    course = seeded(database, tmp_path)
    broken = BrokenEmbedder()
    indexes = SearchIndexes(tmp_path / "i", embedder=broken)
    with database.session() as session:
        hits = indexes.search(session=session, query="divide by sqrt", courses=[course], k=3)
        again = indexes.search(session=session, query="queries meet keys", courses=[course])
    assert hits and hits[0].heading_path == ["Scaling"] and hits[0].score > 0
    assert again and broken.calls == 1  # a down endpoint is not asked again on every search
    assert "BM25 only" in caplog.text
    assert not (tmp_path / "i" / "demo" / "vectors.npy").exists()


def test_the_openai_embedder_calls_the_servers_embeddings(fake_openai: Any) -> None:
    settings = LLMSettings(engine="openai", base_url=fake_openai.base_url, api_key="k")
    assert embedder_from(settings) is None  # no embeddings model: BM25 alone
    embedder = embedder_from(settings.model_copy(update={"embeddings_model": "embed-small"}))
    assert isinstance(embedder, OpenAIEmbedder)
    texts = [f"text number {i}" for i in range(70)]  # two batches
    vectors = embedder.embed(texts)
    embedder.client.close()
    assert len(vectors) == 70 and len(vectors[0]) == 64
    sent = [r for r in fake_openai.requests if r.get("model") == "embed-small"]
    assert [len(r["input"]) for r in sent] == [64, 6]
