"""The sealed halves of the learner-answers benchmark, read from `benchmarks/splits.yaml`.

The knowledge base's topics are split in two: the development half (the grader's rules, lexicon
and constants may be looked at against its answers) and the sealed half (measured once per
release by `tutorgraph bench release`, never during tuning). Splitting by topic, not by
question, keeps every per-topic cue, phrasing and example tuned on a development topic away from
the sealed answers. The file also names the answer sets and whether each was read while the
grader was tuned.
"""

from __future__ import annotations

import datetime
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

from tutorgraph.errors import InputError
from tutorgraph.knowledge import shipped_domains

DEFAULT_SPLITS = Path("benchmarks/splits.yaml")
TOPICS_PER_HALF = 7  # per domain

Half = Literal["dev", "sealed"]


class SplitError(InputError):
    """The split file does not cover the knowledge base's topics exactly once."""


@dataclass(frozen=True)
class AnswerSet:
    """One folder of answer files and what it may be used for."""

    name: str
    folder: Path
    tuned: bool  # read while the grader was tuned: its sealed figure is not clean
    note: str

    @property
    def present(self) -> bool:
        return any(self.folder.glob("*.yaml"))


@dataclass(frozen=True)
class TopicSplit:
    decided: datetime.date
    reason: str
    method: str
    dev: dict[str, tuple[str, ...]]  # domain -> topic ids
    sealed: dict[str, tuple[str, ...]]
    sets: tuple[AnswerSet, ...]

    def half_of(self, topic_id: str) -> Half:
        if any(topic_id in topics for topics in self.dev.values()):
            return "dev"
        if any(topic_id in topics for topics in self.sealed.values()):
            return "sealed"
        raise SplitError(f"topic {topic_id!r} is in neither half of the split")

    def topics(self, half: Half) -> set[str]:
        chosen = self.dev if half == "dev" else self.sealed
        return {topic for topics in chosen.values() for topic in topics}

    def present_sets(self) -> list[AnswerSet]:
        return [s for s in self.sets if s.present]


def hash_rank(topic_id: str) -> str:
    """The key the split's rule sorts topics by: the SHA-256 hex digest of the id."""
    return hashlib.sha256(topic_id.encode()).hexdigest()


def by_rule() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Per domain, (dev, sealed) as the documented rule draws them: the TOPICS_PER_HALF topics
    with the lowest digests are dev; each half in the knowledge base's topic order."""
    halves = {}
    for name, kb in shipped_domains().items():
        ids = [t.id for t in kb.domain.topics]
        dev = set(sorted(ids, key=hash_rank)[:TOPICS_PER_HALF])
        halves[name] = (
            tuple(i for i in ids if i in dev),
            tuple(i for i in ids if i not in dev),
        )
    return halves


def load_split(path: Path = DEFAULT_SPLITS) -> TopicSplit:
    """The learner-answers split, checked: every shipped topic in exactly one half."""
    if not path.is_file():
        raise SplitError(f"{path}: no split file (run from the repository root, or pass --splits)")
    raw = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("learner_answers") or {}
    dev = {str(d): tuple(map(str, t)) for d, t in (raw.get("dev") or {}).items()}
    sealed = {str(d): tuple(map(str, t)) for d, t in (raw.get("sealed") or {}).items()}
    listed = [t for topics in [*dev.values(), *sealed.values()] for t in topics]
    shipped = {t.id for kb in shipped_domains().values() for t in kb.domain.topics}
    if sorted(listed) != sorted(shipped):
        missing, twice = shipped - set(listed), {t for t in listed if listed.count(t) > 1}
        unknown = set(listed) - shipped
        raise SplitError(
            f"{path}: every topic must be in exactly one half (missing {sorted(missing)}, "
            f"twice {sorted(twice)}, unknown {sorted(unknown)})"
        )
    sets = tuple(
        AnswerSet(
            name=str(row["folder"]),
            folder=path.parent / str(row["folder"]),
            tuned=bool(row["tuned"]),
            note=" ".join(str(row.get("note", "")).split()),
        )
        for row in raw.get("sets") or []
    )
    if not sets:
        raise SplitError(f"{path}: no answer sets listed")
    decided = raw.get("decided")
    if not isinstance(decided, datetime.date):
        raise SplitError(f"{path}: `decided` must be a date (YYYY-MM-DD)")
    return TopicSplit(
        decided=decided,
        reason=" ".join(str(raw.get("reason", "")).split()),
        method=" ".join(str(raw.get("method", "")).split()),
        dev=dev,
        sealed=sealed,
        sets=sets,
    )
