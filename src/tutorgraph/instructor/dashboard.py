"""The dashboard of a course's cohort: mastery per concept, the most common misconceptions with
example answers, and the open alerts."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from tutorgraph.instructor.alerts import AlertView, alerts
from tutorgraph.instructor.scope import Scope
from tutorgraph.store import cohort as stored
from tutorgraph.store.models import ConceptMastery, utcnow

BUCKETS = 5  # mastery distribution: 0-20%, 20-40%, ... 80-100%
TOP_MISCONCEPTIONS = 10
EXAMPLES = 3
EXAMPLE_CHARS = 300


class ConceptCohort(BaseModel):
    concept: str
    title: str
    learners: int = Field(default=0, description="Learners with a mastery estimate on it.")
    mean: float | None = None
    buckets: list[int] = Field(
        default_factory=lambda: [0] * BUCKETS,
        description="Learners per mastery band: 0-20%, ..., 80-100%.",
    )


class Example(BaseModel):
    learner: str
    answer: str  # their words


class MisconceptionCohort(BaseModel):
    id: str
    concept: str
    description: str
    answers: int
    learners: int
    examples: list[Example]


class Dashboard(BaseModel):
    """A course's cohort (`GET /api/v1/teach/courses/{slug}`)."""

    course: str
    title: str
    learners: int
    concepts: list[ConceptCohort]
    misconceptions: list[MisconceptionCohort]
    alerts: list[AlertView]
    generated_at: datetime


def dashboard(session: Session, *, scope: Scope) -> Dashboard:
    return Dashboard(
        course=scope.course.slug,
        title=scope.course.title,
        learners=len(scope.learner_ids),
        concepts=_mastery_distribution(session, scope),
        misconceptions=_common_misconceptions(session, scope),
        alerts=alerts(session, scope=scope),
        generated_at=utcnow(),
    )


def mastery_rows(session: Session, scope: Scope) -> list[ConceptMastery]:
    """The mastery estimates of the course's learners on its concepts."""
    if scope.empty:
        return []
    return stored.mastery_rows(session, learners=scope.learner_ids, concepts=scope.concepts)


def _mastery_distribution(session: Session, scope: Scope) -> list[ConceptCohort]:
    cohorts = {c: ConceptCohort(concept=c, title=scope.concept_title(c)) for c in scope.concepts}
    totals: dict[str, float] = {}
    for row in mastery_rows(session, scope):
        cohort = cohorts[row.concept]
        cohort.learners += 1
        cohort.buckets[min(int(row.wma * BUCKETS), BUCKETS - 1)] += 1
        totals[row.concept] = totals.get(row.concept, 0.0) + row.wma
    for concept, cohort in cohorts.items():
        if cohort.learners:
            cohort.mean = round(totals[concept] / cohort.learners, 4)
    return list(cohorts.values())


def _common_misconceptions(session: Session, scope: Scope) -> list[MisconceptionCohort]:
    if scope.empty:
        return []
    rows = stored.events_with_learners(session, learners=scope.learner_ids, concepts=scope.concepts)
    found: dict[tuple[str, str], MisconceptionCohort] = {}
    learners: dict[tuple[str, str], set[int]] = {}
    for event, name in rows:
        for misconception in event.payload.get("misconceptions") or []:
            key = (event.concept, str(misconception))
            entry = found.get(key)
            if entry is None:
                entry = found[key] = MisconceptionCohort(
                    id=key[1],
                    concept=key[0],
                    description=scope.misconception_description(*key),
                    answers=0,
                    learners=0,
                    examples=[],
                )
                learners[key] = set()
            entry.answers += 1
            learners[key].add(int(event.user_id or 0))
            entry.learners = len(learners[key])
            answer = " ".join(str(event.payload.get("answer") or "").split())
            if answer and len(entry.examples) < EXAMPLES:
                entry.examples.append(Example(learner=name, answer=answer[:EXAMPLE_CHARS]))
    ranked = sorted(found.values(), key=lambda m: (-m.learners, -m.answers, m.id))
    return ranked[:TOP_MISCONCEPTIONS]
