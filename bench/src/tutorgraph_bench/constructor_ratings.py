"""Aggregate the reviewers' ratings of the constructor's courses
(`benchmarks/constructor/ratings/<source>.<reviewer>.yaml`, rubric in `RUBRIC.md`).

Per source and criterion: the share of "yes" over every judgement (each reviewer's rating of
each item or topic counts once) with its 95% Wilson interval, against the issue's target; and
inter-rater agreement over the items two reviewers both rated: percent agreement and Cohen's
kappa, averaged over the pairs when there are more than two reviewers. A source needs ratings
from at least `MIN_REVIEWERS` reviewers to be reported as measured; with fewer its row says so.
Ratings are matched to the current sheet by key (a hash of the wording), so a rating of an
item whose wording has changed since is counted as stale, not applied to the new wording.

Answers other than yes/no (blank, "unsure") are left out of the share and counted as unrated.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tutorgraph.errors import InputError
from tutorgraph_bench.constructor_sheet import ITEM_CRITERIA, TOPIC_CRITERIA
from tutorgraph_bench.metrics import Interval, wilson

MIN_REVIEWERS = 2
TARGETS: dict[str, float] = {
    "answerable": 0.95,
    "well_formed": 0.90,
    "tests_understanding": 0.60,
    "reference_correct": 0.90,
    "section_matched": 0.95,
}
NOT_RATINGS = (".sheet.yaml", ".template.yaml")


def yes_no(value: Any) -> bool | None:
    """A rating as a flag: yes/true -> True, no/false -> False, anything else -> None."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if value is not None else ""
    return {"yes": True, "y": True, "true": True, "no": False, "n": False, "false": False}.get(text)


@dataclass(frozen=True)
class Ratings:
    """One reviewer's ratings of one source: criterion -> key -> flag."""

    source: str
    reviewer: str
    flags: dict[str, dict[str, bool]]
    unrated: int


def load_ratings(path: Path) -> Ratings:
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    stem = path.name.removesuffix(".yaml")
    source, _, reviewer = stem.rpartition(".")
    reviewer = str(raw.get("reviewer") or reviewer)
    if not source or not reviewer:
        raise InputError(f"{path}: name it <source>.<reviewer>.yaml")
    flags: dict[str, dict[str, bool]] = {c: {} for c in (*ITEM_CRITERIA, *TOPIC_CRITERIA)}
    unrated = 0
    for part, criteria in (("items", ITEM_CRITERIA), ("topics", TOPIC_CRITERIA)):
        for row in raw.get(part) or []:
            for criterion in criteria:
                flag = yes_no(row.get(criterion))
                if flag is None:
                    unrated += 1
                else:
                    flags[criterion][str(row["key"])] = flag
    return Ratings(str(raw.get("source") or source), reviewer, flags, unrated)


def ratings_files(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.glob("*.yaml")
        if not p.name.endswith(NOT_RATINGS) and p.name.count(".") >= 2
    )


def cohen_kappa(left: Sequence[bool], right: Sequence[bool]) -> float:
    """Cohen's kappa of two raters' yes/no judgements of the same things (NaN when chance
    agreement is total: both said the same single answer throughout)."""
    n = len(left)
    if n == 0 or n != len(right):
        return math.nan
    observed = sum(a == b for a, b in zip(left, right, strict=True)) / n
    yes_left, yes_right = sum(left) / n, sum(right) / n
    chance = yes_left * yes_right + (1 - yes_left) * (1 - yes_right)
    if chance >= 1.0:
        return math.nan
    return (observed - chance) / (1 - chance)


@dataclass
class Criterion:
    name: str
    share: Interval
    target: float
    agreement: float  # percent agreement over the pairs' shared judgements
    kappa: float
    shared: int  # judgements both of a pair made, summed over pairs

    @property
    def meets(self) -> bool:
        return not math.isnan(self.share.value) and self.share.value >= self.target


@dataclass
class SourceRatings:
    source: str
    reviewers: list[str]
    criteria: list[Criterion] = field(default_factory=list)
    stale: int = 0  # ratings of keys the current sheet no longer has
    unrated: int = 0

    @property
    def enough(self) -> bool:
        return len(self.reviewers) >= MIN_REVIEWERS


def aggregate(
    ratings: Sequence[Ratings], current: dict[str, set[str]] | None = None
) -> SourceRatings:
    """One source's criteria over its reviewers. `current`: the sheet's keys per criterion
    family ("items", "topics"); ratings of other keys are stale and left out."""
    result = SourceRatings(
        ratings[0].source if ratings else "", sorted(r.reviewer for r in ratings)
    )
    result.unrated = sum(r.unrated for r in ratings)
    for criterion in (*ITEM_CRITERIA, *TOPIC_CRITERIA):
        family = "topics" if criterion in TOPIC_CRITERIA else "items"
        keep = current.get(family) if current is not None else None
        per_reviewer: list[dict[str, bool]] = []
        for r in ratings:
            flags = r.flags[criterion]
            if keep is not None:
                result.stale += sum(1 for k in flags if k not in keep)
                flags = {k: v for k, v in flags.items() if k in keep}
            per_reviewer.append(flags)
        judgements = [v for flags in per_reviewer for v in flags.values()]
        agreements, kappas, shared = [], [], 0
        for left, right in itertools.combinations(per_reviewer, 2):
            keys = sorted(set(left) & set(right))
            if not keys:
                continue
            a, b = [left[k] for k in keys], [right[k] for k in keys]
            shared += len(keys)
            agreements.append(sum(x == y for x, y in zip(a, b, strict=True)) / len(keys))
            kappas.append(cohen_kappa(a, b))
        finite = [k for k in kappas if not math.isnan(k)]
        result.criteria.append(
            Criterion(
                criterion,
                wilson(sum(judgements), len(judgements)),
                TARGETS[criterion],
                sum(agreements) / len(agreements) if agreements else math.nan,
                sum(finite) / len(finite) if finite else math.nan,
                shared,
            )
        )
    return result


def sheet_keys(sheet_file: Path) -> dict[str, set[str]] | None:
    if not sheet_file.is_file():
        return None
    raw = yaml.safe_load(sheet_file.read_text(encoding="utf-8")) or {}
    return {
        "items": {str(row["key"]) for row in raw.get("items") or []},
        "topics": {str(row["key"]) for row in raw.get("topics") or []},
    }


def aggregate_folder(folder: Path) -> list[SourceRatings]:
    """Every source with ratings in the folder, matched to its current sheet."""
    by_source: dict[str, list[Ratings]] = {}
    for path in ratings_files(folder):
        loaded = load_ratings(path)
        by_source.setdefault(loaded.source, []).append(loaded)
    return [
        aggregate(rows, sheet_keys(folder / f"{source}.sheet.yaml"))
        for source, rows in sorted(by_source.items())
    ]


def _number(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.2f}"


def markdown(results: Sequence[SourceRatings]) -> str:
    if not results:
        return "No ratings yet (`benchmarks/constructor/ratings/<source>.<reviewer>.yaml`)."
    lines = [
        "| source | reviewers | criterion | share yes [95% CI] (n) | target | met | agreement | "
        "Cohen's kappa |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        who = ", ".join(result.reviewers) + ("" if result.enough else " (needs 2+)")
        for c in result.criteria:
            lines.append(
                f"| {result.source} | {who} | {c.name} | {c.share.percent()} ({c.share.n}) | "
                f">= {c.target:.0%} | {'yes' if c.meets and result.enough else 'no'} | "
                f"{_number(c.agreement)} | {_number(c.kappa)} |"
            )
        if result.stale or result.unrated:
            lines.append(
                f"| {result.source} | | ({result.stale} stale ratings of changed wording, "
                f"{result.unrated} unrated) | | | | | |"
            )
    return "\n".join(lines)
