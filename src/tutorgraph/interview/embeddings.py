"""Question similarity by embeddings (dedup's third layer when `llm.embeddings_model` is set):
the cosine of two questions' embeddings from the model server's `/embeddings` endpoint, each
question embedded once per process."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import openai

from tutorgraph.llm.openai_engine import make_client
from tutorgraph.settings import Settings

log = logging.getLogger(__name__)
MAX_CACHED = 4096


class EmbeddingSimilarity:
    def __init__(self, client: openai.AsyncOpenAI, model: str) -> None:
        self.client = client
        self.model = model
        self._vectors: dict[str, list[float]] = {}

    async def scores(self, text: str, others: Sequence[str]) -> list[float]:
        """The cosine between `text` and each of `others`."""
        wanted = [t for t in dict.fromkeys([text, *others]) if t not in self._vectors]
        if wanted:
            response = await self.client.embeddings.create(model=self.model, input=wanted)
            if len(self._vectors) > MAX_CACHED:
                self._vectors.clear()
            for item, vector in zip(wanted, response.data, strict=True):
                self._vectors[item] = list(vector.embedding)
        mine = self._vectors[text]
        return [_cosine(mine, self._vectors[other]) for other in others]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def embedding_similarity(settings: Settings) -> EmbeddingSimilarity | None:
    """Embeddings on the configured model server when `llm.embeddings_model` is set and
    the engine is `openai`; None (word overlap) otherwise."""
    model = settings.llm.embeddings_model
    if not model or settings.llm.engine != "openai":
        return None
    return EmbeddingSimilarity(make_client(settings.llm), model)
