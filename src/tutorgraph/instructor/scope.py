"""What one instructor may see of one course: its enrolled learners, on the concepts its lessons
teach. The privacy rule of the instructor's view is decided here and nowhere else.

Who sees a course's cohort: its instructors (an `instructor` enrolment), admins (every course),
and its owner, the author who published it, whatever their role: an author sees who studies
the courses they wrote, and only those."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
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

    def concept_title(self, concept: str) -> str:
        """A concept's title; one no visible domain names reads as words, not as its id."""
        title = self.knowledge.concept_title(concept)
        return plain_words(concept) if title == concept else title

    def misconception_description(self, concept: str, misconception: str) -> str:
        found = self.knowledge.misconception_description(concept, misconception)
        return plain_words(misconception) if found == misconception else found


def plain_words(identifier: str) -> str:
    """An id such as `self-attention` or `heads_add_parameters` as words."""
    words = identifier.split("/")[-1].replace("-", " ").replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def courses_seen(session: Session, *, user: User) -> list[LearningPath]:
    """The courses whose cohort the user sees: those they teach, then those they own."""
    taught = cohort.taught_courses(session, user=user)
    known = {c.id for c in taught}
    owned = session.scalars(
        select(LearningPath)
        .where(LearningPath.created_by == user.id)
        .order_by(LearningPath.order_index, LearningPath.title)
    )
    return [*taught, *(c for c in owned if c.id not in known)]


def scope_of(session: Session, *, user: User, slug: str) -> Scope:
    """The course's scope for this user; a course they neither teach nor own does not exist."""
    course = next((c for c in courses_seen(session, user=user) if c.slug == slug), None)
    if course is None:
        raise NotFoundError(f"you teach no course {slug!r}")
    return _scope(session, course, visible_knowledge(session=session, user=user))


def _scope(session: Session, course: LearningPath, knowledge: VisibleKnowledge) -> Scope:
    learners = cohort.learner_ids(session, course=course)
    return Scope(course, learners, course_concepts(course), knowledge)


def scopes(session: Session, *, user: User) -> list[Scope]:
    knowledge = visible_knowledge(session=session, user=user)
    return [_scope(session, course, knowledge) for course in courses_seen(session, user=user)]
