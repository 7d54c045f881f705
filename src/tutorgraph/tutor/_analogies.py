"""Analogies from the knowledge base (`Topic.analogies`, authored per idea of a topic): the one
that fits what is asked, for the lesson's concepts, and how it reads in a reply."""

from __future__ import annotations

from collections.abc import Sequence

from tutorgraph.knowledge import find_topic
from tutorgraph.knowledge.schema import Analogy
from tutorgraph.text.query import stem_set
from tutorgraph.tutor.context import TutorContext


def find_analogy(context: TutorContext, about: str) -> Analogy | None:
    """The knowledge base's analogy whose idea and keywords best match `about`, for the lesson's
    concepts (None when it has none for them)."""
    wanted = stem_set(about)
    best: tuple[int, Analogy] | None = None
    for concept in context.concepts:
        found = find_topic(concept)
        if found is None:
            continue
        kb, topic_id = found
        for analogy in kb.topic(topic_id).analogies:
            score = len(wanted & stem_set(f"{analogy.idea} {' '.join(analogy.keywords)}"))
            if best is None or score > best[0]:
                best = (score, analogy)
    return best[1] if best is not None else None


def used_in(analogy: Analogy, replies: Sequence[str]) -> bool:
    """Whether an earlier reply already offered this analogy."""
    return any(analogy.picture[:60] in reply for reply in replies)


def analogy_text(analogy: Analogy) -> str:
    mapping = "\n".join(f"- {line}" for line in analogy.mapping)
    text = f"{analogy.picture}\n\n{mapping}"
    if analogy.breaks:
        text += f"\n\nWhere the picture breaks: {analogy.breaks}"
    return text


def building_on(analogy: Analogy, replies: Sequence[str], question: str) -> str:
    """The next step of a picture already in play (compounding analogies): its extension the
    first time, then the part of its mapping closest to what is asked."""
    said = "\n".join(replies)
    if analogy.extension and analogy.extension[:60] not in said:
        return f"Let's build on our picture of {analogy.idea}. {analogy.extension}"
    wanted = stem_set(question)
    line = max(analogy.mapping, key=lambda m: len(wanted & stem_set(m)))
    return f"Back to our picture of {analogy.idea}: {line.replace(' -> ', ' stands for ')}."
