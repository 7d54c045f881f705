"""The learner's knowledge graph: what we believe they know, with the evidence for it."""

from __future__ import annotations

from pydantic import BaseModel, Field

from tutorgraph.knowledge.bloom import BloomLevel


class KnowledgeNode(BaseModel):
    topic_id: str
    confidence: float = Field(ge=0.0, le=1.0)
    bloom_level: BloomLevel
    evidence: list[str] = Field(default_factory=list)
    prerequisites: list[str] = Field(default_factory=list)


class KnowledgeEdge(BaseModel):
    """`source` is a prerequisite of `target`."""

    source: str
    target: str


class LearnerKnowledgeGraph(BaseModel):
    nodes: dict[str, KnowledgeNode] = Field(default_factory=dict)
    edges: list[KnowledgeEdge] = Field(default_factory=list)

    def upsert(self, node: KnowledgeNode) -> None:
        """Insert or replace a node and add its prerequisite edges once."""
        self.nodes[node.topic_id] = node
        existing = {(e.source, e.target) for e in self.edges}
        for prerequisite in node.prerequisites:
            if (prerequisite, node.topic_id) not in existing:
                self.edges.append(KnowledgeEdge(source=prerequisite, target=node.topic_id))

    def confidence(self, topic_id: str) -> float:
        node = self.nodes.get(topic_id)
        return node.confidence if node else 0.0

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, payload: str) -> LearnerKnowledgeGraph:
        return cls.model_validate_json(payload)
