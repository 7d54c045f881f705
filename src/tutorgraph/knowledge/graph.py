"""The prerequisite DAG of a domain: validation, topological order, ancestors, agenda, targets."""

from __future__ import annotations

from collections.abc import Iterable

from tutorgraph.knowledge.bloom import TargetLevel
from tutorgraph.knowledge.schema import Domain, Question, Topic


class KnowledgeBase:
    """One validated domain with graph queries. Raises ValueError on structural errors."""

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self.topics: dict[str, Topic] = {}
        for topic in domain.topics:
            if topic.id in self.topics:
                raise ValueError(f"topic {topic.id}: duplicate topic id")
            self.topics[topic.id] = topic
        self._check_unique_ids()
        for topic in domain.topics:
            for prerequisite in topic.prerequisites:
                if prerequisite not in self.topics:
                    raise ValueError(f"topic {topic.id}: unknown prerequisite {prerequisite!r}")
                if prerequisite == topic.id:
                    raise ValueError(f"topic {topic.id}: lists itself as a prerequisite")
        self.order = self._topological_order()
        self._position = {topic_id: i for i, topic_id in enumerate(self.order)}

    @property
    def name(self) -> str:
        return self.domain.domain

    def _check_unique_ids(self) -> None:
        questions: set[str] = set()
        misconceptions: set[str] = set()
        for topic in self.domain.topics:
            for question in topic.questions:
                if question.id in questions:
                    raise ValueError(f"topic {topic.id}: duplicate question id {question.id!r}")
                questions.add(question.id)
            for misconception in topic.misconceptions:
                if misconception.id in misconceptions:
                    raise ValueError(
                        f"topic {topic.id}: duplicate misconception id {misconception.id!r}"
                    )
                misconceptions.add(misconception.id)

    def _topological_order(self) -> list[str]:
        """Kahn's algorithm that always takes the earliest ready topic in YAML order."""
        yaml_index = {t.id: i for i, t in enumerate(self.domain.topics)}
        remaining = {t.id: set(t.prerequisites) for t in self.domain.topics}
        order: list[str] = []
        while remaining:
            ready = [tid for tid, deps in remaining.items() if not deps]
            if not ready:
                cycle = self._find_cycle(remaining)
                raise ValueError(f"topic {cycle[0]}: prerequisite cycle {' -> '.join(cycle)}")
            chosen = min(ready, key=yaml_index.__getitem__)
            order.append(chosen)
            del remaining[chosen]
            for deps in remaining.values():
                deps.discard(chosen)
        return order

    def _find_cycle(self, remaining: dict[str, set[str]]) -> list[str]:
        start = next(iter(remaining))
        path = [start]
        seen = {start}
        node = start
        while True:
            node = next(iter(remaining[node]))
            if node in seen:
                return [*path[path.index(node) :], node]
            path.append(node)
            seen.add(node)

    def topic(self, topic_id: str) -> Topic:
        return self.topics[topic_id]

    def sort(self, topic_ids: Iterable[str]) -> list[str]:
        """Topic ids in prerequisite order (unknown ids last, in the order given)."""
        ids = list(dict.fromkeys(topic_ids))
        return sorted(ids, key=lambda t: self._position.get(t, len(self.order)))

    def ancestors(self, topic_id: str) -> list[str]:
        """Every direct and indirect prerequisite, in topological order."""
        found: set[str] = set()
        stack = list(self.topics[topic_id].prerequisites)
        while stack:
            current = stack.pop()
            if current not in found:
                found.add(current)
                stack.extend(self.topics[current].prerequisites)
        return self.sort(found)

    def descendants(self, topic_id: str) -> list[str]:
        """Every topic that depends on this one, directly or not, in topological order."""
        found: set[str] = set()
        frontier = {topic_id}
        while frontier:
            frontier = {
                t.id
                for t in self.domain.topics
                if t.id not in found and frontier.intersection(t.prerequisites)
            }
            found |= frontier
        return self.sort(found)

    def agenda(self, target_level: TargetLevel) -> list[str]:
        """Topics a candidate at this level is assessed on, in prerequisite order."""
        return [tid for tid in self.order if target_level in self.topics[tid].target_levels]

    def target_graph(self, target_level: TargetLevel) -> dict[str, float]:
        """Target confidence per agenda topic for a level."""
        return {
            tid: self.topics[tid].target_confidence[target_level]
            for tid in self.agenda(target_level)
        }

    def question(self, question_id: str) -> tuple[Topic, Question] | None:
        for topic in self.domain.topics:
            found = topic.question(question_id)
            if found is not None:
                return topic, found
        return None
