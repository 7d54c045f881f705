"""Knowledge-base domains (YAML), Bloom levels, the prerequisite graph, learner knowledge graphs."""

from tutorgraph.knowledge.bloom import (
    QUESTION_TYPES,
    STARTING_BLOOM,
    TARGET_LEVELS,
    BloomLevel,
    QuestionType,
    TargetLevel,
    starting_bloom,
)
from tutorgraph.knowledge.graph import KnowledgeBase
from tutorgraph.knowledge.learner_graph import KnowledgeEdge, KnowledgeNode, LearnerKnowledgeGraph
from tutorgraph.knowledge.loader import (
    KnowledgeBaseError,
    all_domains,
    authored_domains,
    concept_title,
    find_topic,
    get_domain,
    load_domain_file,
    misconception_description,
    parse_domain,
    register_authored,
    shipped_domains,
)
from tutorgraph.knowledge.schema import Domain, Misconception, Question, Resource, Topic
from tutorgraph.knowledge.visibility import (
    VisibleKnowledge,
    may_read,
    public_domain,
    visible_domain,
    visible_knowledge,
)

__all__ = [
    "QUESTION_TYPES",
    "STARTING_BLOOM",
    "TARGET_LEVELS",
    "BloomLevel",
    "Domain",
    "KnowledgeBase",
    "KnowledgeBaseError",
    "KnowledgeEdge",
    "KnowledgeNode",
    "LearnerKnowledgeGraph",
    "Misconception",
    "Question",
    "QuestionType",
    "Resource",
    "TargetLevel",
    "Topic",
    "VisibleKnowledge",
    "all_domains",
    "authored_domains",
    "concept_title",
    "find_topic",
    "get_domain",
    "load_domain_file",
    "may_read",
    "misconception_description",
    "parse_domain",
    "public_domain",
    "register_authored",
    "shipped_domains",
    "starting_bloom",
    "visible_domain",
    "visible_knowledge",
]
