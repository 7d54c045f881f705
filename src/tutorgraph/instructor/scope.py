"""What one instructor may see of one course: its enrolled learners, on the concepts its lessons
teach. The privacy rule of the instructor's view is decided here and nowhere else."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from tutorgraph.errors import NotFoundError
from tutorgraph.knowledge import VisibleKnowledge, visible_knowledge
from tutorgraph.store import cohort
from tutorgraph.store.courses import course_concepts
from tutorgraph.store.models import LearningPath, User


@dataclass(frozen=True)
class Scope:
    """What one instructor may see of one course."""

    course: LearningPath
    learner_ids: frozenset[int]
    concepts: tuple[str, ...]  # in lesson order
    knowledge: VisibleKnowledge  # the domains the instructor may see: titles, misconceptions

    @property
    def empty(self) -> bool:
        return not self.learner_ids or not self.concepts

    def includes(self, user_id: int, concept: str) -> bool:
        return user_id in self.learner_ids and concept in self.concepts


def scope_of(session: Session, *, user: User, slug: str) -> Scope:
    """The course's scope for this instructor; a course they do not teach does not exist."""
    course = next((c for c in cohort.taught_courses(session, user=user) if c.slug == slug), None)
    if course is None:
        raise NotFoundError(f"you teach no course {slug!r}")
    return _scope(session, course, visible_knowledge(session=session, user=user))


def _scope(session: Session, course: LearningPath, knowledge: VisibleKnowledge) -> Scope:
    learners = cohort.learner_ids(session, course=course)
    return Scope(course, learners, course_concepts(course), knowledge)


def scopes(session: Session, *, user: User) -> list[Scope]:
    knowledge = visible_knowledge(session=session, user=user)
    return [
        _scope(session, course, knowledge) for course in cohort.taught_courses(session, user=user)
    ]
