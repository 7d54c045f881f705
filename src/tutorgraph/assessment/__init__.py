"""Adaptive Bloom-level skill assessment (spec: assessment-pipeline): the LangGraph graph, its
agents, gap analysis, learning plan, and the service the API, CLI and web pages share."""

from tutorgraph.assessment.agents import register_offline_assessment
from tutorgraph.assessment.context import AssessmentContext
from tutorgraph.assessment.graph import build_graph, compile_graph
from tutorgraph.assessment.router import Route, decide_route, route_after_update
from tutorgraph.assessment.service import (
    AssessmentReport,
    AssessmentService,
    AssessmentSummary,
    AssessmentView,
)
from tutorgraph.assessment.state import AssessmentInterrupt, AssessmentState

__all__ = [
    "AssessmentContext",
    "AssessmentInterrupt",
    "AssessmentReport",
    "AssessmentService",
    "AssessmentState",
    "AssessmentSummary",
    "AssessmentView",
    "Route",
    "build_graph",
    "compile_graph",
    "decide_route",
    "register_offline_assessment",
    "route_after_update",
]
