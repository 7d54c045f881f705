"""Bloom levels, target levels, question types: the shared vocabulary of the platform."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class BloomLevel(StrEnum):
    """Bloom's revised taxonomy, ordered from recall to creation."""

    REMEMBER = "remember"
    UNDERSTAND = "understand"
    APPLY = "apply"
    ANALYZE = "analyze"
    EVALUATE = "evaluate"
    CREATE = "create"

    @property
    def rank(self) -> int:
        return _ORDER.index(self)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, BloomLevel):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: object) -> bool:
        if not isinstance(other, BloomLevel):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, BloomLevel):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, BloomLevel):
            return NotImplemented
        return self.rank >= other.rank

    def next(self) -> BloomLevel:
        """The next level up; `create` stays `create`."""
        return _ORDER[min(self.rank + 1, len(_ORDER) - 1)]

    def distance(self, other: BloomLevel) -> int:
        return abs(self.rank - other.rank)


_ORDER: tuple[BloomLevel, ...] = tuple(BloomLevel)

TargetLevel = Literal["junior", "mid", "senior", "staff"]
TARGET_LEVELS: tuple[TargetLevel, ...] = ("junior", "mid", "senior", "staff")

STARTING_BLOOM: dict[TargetLevel, BloomLevel] = {
    "junior": BloomLevel.UNDERSTAND,
    "mid": BloomLevel.APPLY,
    "senior": BloomLevel.ANALYZE,
    "staff": BloomLevel.EVALUATE,
}

QuestionType = Literal["conceptual", "scenario", "debugging", "design"]
QUESTION_TYPES: tuple[QuestionType, ...] = ("conceptual", "scenario", "debugging", "design")

ResourceType = Literal["article", "video", "project", "exercise", "book", "docs"]


def starting_bloom(target_level: TargetLevel) -> BloomLevel:
    return STARTING_BLOOM[target_level]
