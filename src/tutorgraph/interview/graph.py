"""Assembly of the interview graph: the spec's diagram, one line per node and edge.

    START -> initialize -> user_input -> grade_answer -> detect_user_intent -> decide
    decide -> greeting | question | followup | transition | evaluation | closing
    greeting -> decide; question, followup -> user_input; transition -> question;
    evaluation -> closing -> END

Only `decide` has conditional edges. `grade_answer` is the spec's answer-quality step made a node
of its own, so a grading model call is checkpointed apart from waiting for the candidate."""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from tutorgraph.interview import nodes
from tutorgraph.interview.context import InterviewContext
from tutorgraph.interview.state import InterviewInput, InterviewState

InterviewGraph = CompiledStateGraph[
    InterviewState, InterviewContext, InterviewInput, InterviewState
]


def build_graph() -> StateGraph[InterviewState, InterviewContext, InterviewInput, InterviewState]:
    graph = StateGraph(InterviewState, context_schema=InterviewContext, input_schema=InterviewInput)
    graph.add_node("initialize", nodes.initialize)
    graph.add_node("user_input", nodes.user_input)
    graph.add_node("grade_answer", nodes.grade_answer)
    graph.add_node("detect_user_intent", nodes.detect_user_intent)
    graph.add_node("decide", nodes.decide)
    graph.add_node("greeting", nodes.greeting)
    graph.add_node("question", nodes.question)
    graph.add_node("followup", nodes.followup)
    graph.add_node("transition", nodes.transition)
    graph.add_node("evaluation", nodes.evaluation_node)
    graph.add_node("closing", nodes.closing)

    graph.add_edge(START, "initialize")
    graph.add_edge("initialize", "user_input")
    graph.add_edge("user_input", "grade_answer")
    graph.add_edge("grade_answer", "detect_user_intent")
    graph.add_edge("detect_user_intent", "decide")
    graph.add_conditional_edges(
        "decide",
        nodes.route,
        {
            "greeting": "greeting",
            "question": "question",
            "followup": "followup",
            "transition": "transition",
            "evaluation": "evaluation",
            "closing": "closing",
        },
    )
    graph.add_edge("greeting", "decide")
    graph.add_edge("question", "user_input")
    graph.add_edge("followup", "user_input")
    graph.add_edge("transition", "question")
    graph.add_edge("evaluation", "closing")
    graph.add_edge("closing", END)
    return graph


def compile_graph(checkpointer: BaseCheckpointSaver[str] | None) -> InterviewGraph:
    return build_graph().compile(checkpointer=checkpointer, name="interview")
