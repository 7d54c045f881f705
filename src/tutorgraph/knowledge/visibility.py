"""Who may read a knowledge-base domain: the one check every reader of a domain, a topic or a
question makes on a user's behalf (practice, assessment, grading by question id, the path
planner, the quiz-bank export, the instructor's views, the interview).

A shipped domain is public. A published course's domain is visible exactly when its course is
(`store.courses.may_see`: public, or yours, shared with you, taught by you, or you are an admin).
An unknown domain and a hidden one are the same 404, whose message names nothing else."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy.orm import Session

from tutorgraph.knowledge.graph import KnowledgeBase
from tutorgraph.knowledge.loader import all_domains, authored_domains, no_domain, shipped_domains
from tutorgraph.knowledge.schema import Question, Topic
from tutorgraph.store import courses
from tutorgraph.store.models import User


@dataclass(frozen=True)
class VisibleKnowledge:
    """The domains one user may see (shipped, then their visible courses'), looked up once."""

    domains: Mapping[str, KnowledgeBase]

    def domain(self, name: str) -> KnowledgeBase:
        found = self.domains.get(name)
        if found is None:
            raise no_domain(name)
        return found

    def topic(self, topic_id: str) -> tuple[KnowledgeBase, Topic] | None:
        for kb in self.domains.values():
            if topic_id in kb.topics:
                return kb, kb.topic(topic_id)
        return None

    def question(self, question_id: str) -> tuple[Topic, Question] | None:
        for kb in self.domains.values():
            found = kb.question(question_id)
            if found is not None:
                return found
        return None

    def concept_title(self, concept: str) -> str:
        """A concept's title (its id when no visible domain has it)."""
        found = self.topic(concept)
        return found[1].title if found else concept

    def misconception_description(self, concept: str, misconception: str) -> str:
        found = self.topic(concept)
        known = found[1].misconception(misconception) if found else None
        return known.description if known else misconception


def visible_knowledge(*, session: Session, user: User | None) -> VisibleKnowledge:
    names = courses.visible_domain_names(session=session, user=user)
    authored = {name: kb for name, kb in authored_domains().items() if name in names}
    return VisibleKnowledge({**shipped_domains(), **authored})


def visible_domain(*, session: Session, user: User | None, name: str) -> KnowledgeBase:
    """One domain the user may see, else `no_domain` (one query, for a single look-up)."""
    kb = all_domains().get(name)
    if kb is None or not may_read(session=session, user=user, name=name):
        raise no_domain(name)
    return kb


def may_read(*, session: Session, user: User | None, name: str) -> bool:
    """Whether the domain exists and the user may see it."""
    if name in shipped_domains():
        return True
    return name in authored_domains() and courses.domain_visible(
        session=session, user=user, name=name
    )


def public_domain(name: str) -> KnowledgeBase:
    """A domain every user may see without asking the store: a shipped one (the interview's
    technical questions come only from these)."""
    found = shipped_domains().get(name)
    if found is None:
        raise no_domain(name)
    return found
