"""The readiness report: weighted checks of content, structure and quiz bank, a 0-100 score,
and the reasons behind it. The weights and bars are parameters (`readiness` in
constructor/parameters.yaml; shipped values in brackets):

| check          | weight                       | passes when                                   |
|----------------|------------------------------|-----------------------------------------------|
| content        | content_weight [0.10]        | every uploaded file was read                  |
| structure      | structure_weight [0.20]      | no structure issues (no cycles, no empty      |
|                |                              | unit, key points everywhere)                  |
| answerability  | answerability_weight [0.25]  | >= answerability_target [95%] of kept items   |
|                |                              | are found by a search of the sources          |
| no leaks/dupes | leaks_weight [0.10]          | no kept item gives its answer away or repeats |
|                |                              | another                                       |
| topic coverage | topic_coverage_weight [0.15] | every topic has >= min_items_per_topic [2]    |
|                |                              | kept items                                    |
| bloom coverage | bloom_coverage_weight [0.10] | every topic's items reach >= min_bloom_levels |
|                |                              | [2] Bloom levels                              |
| objectives     | objectives_weight [0.10]     | >= objective_share [60%] of each topic's key  |
|                |                              | points are asked about by some item           |

A course is ready at `ready_at` [70] with no failed blocking check (structure, answerability)."""

from __future__ import annotations

from collections.abc import Sequence

from tutorgraph.constructor.analysis import structure_issues
from tutorgraph.constructor.item_checks import EvidenceIndex, duplicates, leaks
from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import (
    Check,
    CourseStructure,
    FileFailure,
    QuizBank,
    QuizItem,
    ReadinessReport,
    SourceFile,
)
from tutorgraph.constructor.text import overlap, stems_of
from tutorgraph.wording import counted

BLOCKING = frozenset({"structure", "answerability"})
SHOWN = 5  # issues or topics a check's detail names, at most


def rubric_points(item: QuizItem) -> list[str]:
    """An item's key points as a rubric: trimmed, without repeats, at most
    `rubrics.max_points`."""
    q = constructor_parameters().rubrics
    points: list[str] = []
    for point in item.key_points:
        point = point.strip().rstrip(".")
        if point and all(overlap(stems_of(point), stems_of(p)) < q.repeat_share for p in points):
            points.append(point)
    return points[: q.max_points] or [item.reference_answer.strip().rstrip(".")]


def content_check(files: Sequence[SourceFile], failures: Sequence[FileFailure]) -> Check:
    q = constructor_parameters().readiness
    total = len(files) + len(failures)
    share = len(files) / total if total else 0.0
    detail = f"{len(files)} of {counted(total, 'file')} read"
    if failures:
        detail += "; not read: " + ", ".join(f.filename for f in failures)
    empty = [f.filename for f in files if f.words < q.empty_file_words]
    if empty:
        detail += "; almost no text in: " + ", ".join(empty)
        share *= q.empty_file_factor
    return Check(
        name="content", passed=share == 1.0, score=share, weight=q.content_weight, detail=detail
    )


def structure_check(structure: CourseStructure) -> Check:
    q = constructor_parameters().readiness
    issues = structure_issues(structure)
    score = max(0.0, 1.0 - q.structure_issue_cost * len(issues))
    detail = "no issues" if not issues else "; ".join(issues[:SHOWN])
    return Check(
        name="structure", passed=not issues, score=score, weight=q.structure_weight, detail=detail
    )


def answerable_share(items: Sequence[QuizItem], index: EvidenceIndex) -> float:
    if not items:
        return 0.0
    return sum(1 for i in items if index.evidence_for(i) is not None) / len(items)


def quiz_checks(structure: CourseStructure, bank: QuizBank, index: EvidenceIndex) -> list[Check]:
    q = constructor_parameters().readiness
    kept = bank.kept()
    answerable = answerable_share(kept, index)
    leaking = [i.item_id for i in kept if leaks(i)]
    repeated = len(duplicates(kept))
    by_topic = {t.topic_id: [i for i in kept if i.topic_id == t.topic_id] for t in structure.topics}
    covered = [t for t, items in by_topic.items() if len(items) >= q.min_items_per_topic]
    bloomed = [
        t
        for t, items in by_topic.items()
        if len({i.bloom_level for i in items}) >= q.min_bloom_levels
    ]
    objective_scores = [
        _objective_share(structure.topic(t).key_points, items) for t, items in by_topic.items()
    ]
    topics = max(1, len(structure.topics))
    objectives = sum(objective_scores) / len(objective_scores) if objective_scores else 0.0
    thin = [structure.topic(t).title for t in by_topic if t not in covered]
    return [
        Check(
            name="answerability",
            passed=answerable >= q.answerability_target and bool(kept),
            score=answerable,
            weight=q.answerability_weight,
            detail=f"{answerable:.0%} of {counted(len(kept), 'question')} found in the sources",
        ),
        Check(
            name="no leaks or duplicates",
            passed=not leaking and not repeated,
            score=1.0 - (len(leaking) + repeated) / max(1, len(kept)),
            weight=q.leaks_weight,
            detail=f"{counted(len(leaking), 'question')} giving the answer away, "
            f"{counted(repeated, 'question')} repeating another",
        ),
        Check(
            name="topic coverage",
            passed=len(covered) == len(structure.topics),
            score=len(covered) / topics,
            weight=q.topic_coverage_weight,
            detail=f"{len(covered)} of {counted(len(structure.topics), 'topic')} have at least "
            f"{counted(q.min_items_per_topic, 'question')}"
            + (f"; too few on: {', '.join(thin[:SHOWN])}" if thin else ""),
        ),
        Check(
            name="bloom coverage",
            passed=len(bloomed) == len(structure.topics),
            score=len(bloomed) / topics,
            weight=q.bloom_coverage_weight,
            detail=f"{len(bloomed)} of {counted(len(structure.topics), 'topic')} ask at "
            f"{q.min_bloom_levels} or more Bloom levels",
        ),
        Check(
            name="objectives",
            passed=objectives >= q.objective_share,
            score=min(1.0, objectives / q.objective_share),
            weight=q.objectives_weight,
            detail=f"{objectives:.0%} of key points asked about",
        ),
    ]


def _objective_share(points: Sequence[str], items: Sequence[QuizItem]) -> float:
    if not points:
        return 0.0
    share = constructor_parameters().readiness.objective_asked_share
    asked = [stems_of(" ".join(i.key_points) + " " + i.evidence) for i in items]
    hit = sum(1 for p in points if any(overlap(stems_of(p), a) >= share for a in asked))
    return hit / len(points)


def score(checks: Sequence[Check], structure: CourseStructure, bank: QuizBank) -> ReadinessReport:
    total_weight = sum(c.weight for c in checks) or 1.0
    value = round(100 * sum(c.weight * c.score for c in checks) / total_weight)
    failed = [c for c in checks if not c.passed]
    blocked = [c for c in failed if c.name in BLOCKING]
    reasons = [f"{c.name}: {c.detail}" for c in failed] or ["every check passed"]
    kept = bank.kept()
    return ReadinessReport(
        readiness=value,
        ready=value >= constructor_parameters().readiness.ready_at and not blocked,
        checks=list(checks),
        reasons=reasons,
        answerability=next((c.score for c in checks if c.name == "answerability"), 0.0),
        items_per_topic=len(kept) / max(1, len(structure.topics)),
    )
