"""The routing decision after each knowledge-graph update, as pure functions of state.

The decision tree of the spec, top to bottom (confidence is the latest evaluation's, node
confidence the merged value on the knowledge graph, evidence the node's evidence items, Bloom the
level the question was asked at):

| # | condition                                                        | route    |
|---|------------------------------------------------------------------|----------|
| 0 | the learner asked to finish now                                  | conclude |
| A | topics evaluated >= MAX_TOPICS or questions >= max questions     | conclude |
| B | confidence > 0.7 and Bloom < create and questions on topic < 4   | deeper   |
| C | confidence > 0.4 and evidence < 2 and questions on topic < 4     | probe    |
| D | node confidence > 0.7 or questions on topic >= 4                 | pivot    |
| E | confidence <= 0.4                                                | pivot    |
| - | otherwise                                                        | probe    |

A pivot needs somewhere to go: when no unevaluated agenda topic is left, the pivot becomes
`conclude`. Otherwise it goes on even when marking the current topic evaluated reaches MAX_TOPICS:
as in the spec, the next topic is then asked (its answer is evidence the report uses) and row A
concludes after that answer. (An earlier version concluded there, leaving the 11th agenda topic
of a long agenda unassessed.)

Finishing now (issue 35, decision record 0050): a waiting question is resumed with
`{"finish": true}` (and, optionally, an answer to it). `route_after_answer` sends a finish without
an answer straight to `conclude` (the question on screen is dropped: it was not answered); with an
answer, the answer is graded as usual and row 0 then concludes. The report covers what was asked.

`questions_left` is what the question page says is left: the honest range (each topic not settled
takes at least one more question and at most MAX_QUESTIONS_PER_TOPIC, within the question
budget) and an estimate inside it from the questions topics have taken so far."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tutorgraph.assessment.state import AssessmentState
from tutorgraph.knowledge import BloomLevel

Route = Literal["deeper", "probe", "pivot", "conclude"]
AnswerRoute = Literal["evaluate", "conclude"]

MAX_TOPICS = 10
HIGH_CONFIDENCE = 0.7
LOW_CONFIDENCE = 0.4
MAX_QUESTIONS_PER_TOPIC = 4
MIN_EVIDENCE_FOR_CONFIDENCE = 2
# Before any topic is settled, the estimate of questions per topic: a topic is left after a
# weak answer (1 question) or after a probe or a deeper question (2 or more), so 2 is the
# typical case until the learner's own answers show otherwise.
TYPICAL_QUESTIONS_PER_TOPIC = 2


def max_total_questions(agenda_length: int) -> int:
    """MAX_TOTAL_QUESTIONS: min(agenda length, MAX_TOPICS) * MAX_QUESTIONS_PER_TOPIC."""
    return min(agenda_length, MAX_TOPICS) * MAX_QUESTIONS_PER_TOPIC


@dataclass(frozen=True)
class QuestionsLeft:
    """What is left after the question on screen: at least `least`, at most `most`, and
    `estimate` (between them) from how many questions the settled topics took."""

    least: int
    estimate: int
    most: int
    topic_number: int
    topics: int


@dataclass(frozen=True)
class RouteInputs:
    """Everything the decision looks at, read off the state after `update_graph`."""

    topics_evaluated: int
    total_questions: int
    max_questions: int
    confidence: float
    bloom_level: BloomLevel
    questions_on_topic: int
    evidence: int
    node_confidence: float
    topics_remaining: int
    finish_requested: bool = False


def decide_route(inputs: RouteInputs) -> Route:
    """The spec's decision tree (module docstring), row by row."""
    if inputs.finish_requested:
        return "conclude"
    if inputs.topics_evaluated >= MAX_TOPICS or inputs.total_questions >= inputs.max_questions:
        return "conclude"
    room_on_topic = inputs.questions_on_topic < MAX_QUESTIONS_PER_TOPIC
    if (
        inputs.confidence > HIGH_CONFIDENCE
        and inputs.bloom_level < BloomLevel.CREATE
        and room_on_topic
    ):
        return "deeper"
    if (
        inputs.confidence > LOW_CONFIDENCE
        and inputs.evidence < MIN_EVIDENCE_FOR_CONFIDENCE
        and room_on_topic
    ):
        return "probe"
    if inputs.node_confidence > HIGH_CONFIDENCE or not room_on_topic:
        return _pivot(inputs)
    if inputs.confidence <= LOW_CONFIDENCE:
        return _pivot(inputs)
    return "probe"


def _pivot(inputs: RouteInputs) -> Route:
    if inputs.topics_remaining == 0:
        return "conclude"
    return "pivot"


def remaining_topics(state: AssessmentState) -> list[str]:
    """Agenda topics not evaluated yet, other than the current one, in prerequisite order."""
    done = {*state["evaluated_topics"], state["current_topic"]}
    return [topic for topic in state["agenda"] if topic not in done]


def route_inputs(state: AssessmentState) -> RouteInputs:
    evaluation = state["last_evaluation"]
    if evaluation is None:
        raise RuntimeError("routing needs an evaluated answer")
    topic = state["current_topic"]
    node = state["knowledge_graph"]["nodes"].get(topic)
    return RouteInputs(
        topics_evaluated=len(state["evaluated_topics"]),
        total_questions=len(state["questions"]),
        max_questions=state["max_questions"],
        confidence=evaluation["confidence"],
        bloom_level=BloomLevel(state["current_bloom"]),
        questions_on_topic=state["topic_questions"].get(topic, 0),
        evidence=len(node["evidence"]) if node else 0,
        node_confidence=node["confidence"] if node else 0.0,
        topics_remaining=len(remaining_topics(state)),
        finish_requested=state.get("finish_requested", False),
    )


def route_after_update(state: AssessmentState) -> Route:
    """The conditional edge out of `update_graph`."""
    return decide_route(route_inputs(state))


def route_after_answer(state: AssessmentState) -> AnswerRoute:
    """The conditional edge out of a waiting question: grade the answer, or, when the learner
    finished without answering it, conclude on what was answered so far."""
    if state.get("finish_requested", False) and not state["pending_answer"].strip():
        return "conclude"
    return "evaluate"


def questions_left(state: AssessmentState) -> QuestionsLeft:
    """How many questions may follow the one on screen (module docstring)."""
    asked = len(state["questions"])
    budget = max(state["max_questions"] - asked, 0)
    evaluated = state["evaluated_topics"]
    topics = min(len(state["agenda"]), MAX_TOPICS)
    # Topics still to start after the current one, within the topic limit.
    to_start = max(min(len(remaining_topics(state)), topics - len(evaluated) - 1), 0)
    on_current = state["topic_questions"].get(state["current_topic"], 0)
    room_on_current = max(MAX_QUESTIONS_PER_TOPIC - on_current, 0)
    least = min(to_start, budget)
    most = min(to_start * MAX_QUESTIONS_PER_TOPIC + room_on_current, budget)
    settled = sum(state["topic_questions"].get(topic, 0) for topic in evaluated)
    typical = settled / len(evaluated) if evaluated else TYPICAL_QUESTIONS_PER_TOPIC
    guess = round(to_start * typical + max(typical - on_current, 0))
    return QuestionsLeft(
        least=least,
        estimate=min(max(guess, least), most),
        most=most,
        topic_number=min(len(evaluated) + 1, topics),
        topics=topics,
    )
