"""Question similarity by embeddings (dedup's third layer when `llm.embeddings_model` is set):
the cosine of two questions' embeddings, from the same embedder course search uses, each
question embedded once per process."""

from __future__ import annotations

import math
from collections.abc import Sequence

import anyio

from tutorgraph.content.embeddings import Embedder, embedder_from
from tutorgraph.settings import Settings

MAX_CACHED = 4096


class EmbeddingSimilarity:
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._vectors: dict[str, list[float]] = {}

    async def scores(self, text: str, others: Sequence[str]) -> list[float]:
        """The cosine between `text` and each of `others`."""
        wanted = [t for t in dict.fromkeys([text, *others]) if t not in self._vectors]
        if wanted:
            vectors = await anyio.to_thread.run_sync(self.embedder.embed, wanted)
            if len(self._vectors) > MAX_CACHED:
                self._vectors.clear()
            self._vectors.update(zip(wanted, vectors, strict=True))
        mine = self._vectors[text]
        return [_cosine(mine, self._vectors[other]) for other in others]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def embedding_similarity(settings: Settings) -> EmbeddingSimilarity | None:
    """Embeddings on the configured model server when `llm.embeddings_model` is set and the
    engine is `openai`; None (word overlap) otherwise."""
    embedder = embedder_from(settings.llm)
    return EmbeddingSimilarity(embedder) if embedder is not None else None
