"""The Socratic tutor: context, prompts, tools, the agent loop, the offline tutor, persistence."""

from tutorgraph.tutor.agent_loop import MAX_STEPS, AgentEvent, run_agent
from tutorgraph.tutor.context import MODES, Mode, TutorContext
from tutorgraph.tutor.offline_tutor import EXPLORE_AGENT, TUTOR_AGENT, register_offline_tutor
from tutorgraph.tutor.service import TurnRequest, TutorRuntime
from tutorgraph.tutor.tools import TUTOR_TOOLS, tools_for

__all__ = [
    "EXPLORE_AGENT",
    "MAX_STEPS",
    "MODES",
    "TUTOR_AGENT",
    "TUTOR_TOOLS",
    "AgentEvent",
    "Mode",
    "TurnRequest",
    "TutorContext",
    "TutorRuntime",
    "register_offline_tutor",
    "run_agent",
    "tools_for",
]
