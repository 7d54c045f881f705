"""Text embeddings for hybrid course search: an `Embedder` turns texts into vectors. The
OpenAI-compatible one calls the model server's `/embeddings` with `llm.embeddings_model`; with
no embeddings model configured there is none, and search is BM25 alone (the offline default)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from tutorgraph.llm.openai_engine import make_sync_client
from tutorgraph.settings import LLMSettings

BATCH = 64


class Embedder(Protocol):
    name: str  # the model: an index built with another model is rebuilt

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible server, in batches. Blocking: call from a thread."""

    def __init__(self, settings: LLMSettings, model: str) -> None:
        self.client = make_sync_client(settings)
        self.name = model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), BATCH):
            batch = list(texts[start : start + BATCH])
            response = self.client.embeddings.create(model=self.name, input=batch)
            ordered = sorted(response.data, key=lambda item: item.index)
            vectors.extend(list(item.embedding) for item in ordered)
        return vectors


def embedder_from(settings: LLMSettings) -> Embedder | None:
    if settings.engine != "openai" or not settings.embeddings_model:
        return None
    return OpenAIEmbedder(settings, settings.embeddings_model)
