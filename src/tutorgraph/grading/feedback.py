"""Phase 4: feedback that names the learner's misconceptions and the missing key points.

The LLM writes it when a model server is configured; the offline version composes it from the
knowledge base's misconception descriptions and the rubric, and is the fallback."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from tutorgraph.errors import StructuredOutputError
from tutorgraph.grading import prompts
from tutorgraph.grading.parameters import grading_parameters
from tutorgraph.grading.types import GradingRequest, PathDecision, Verdict
from tutorgraph.llm import Message, Model, OfflineEngine

FEEDBACK_AGENT = "feedback"

_NEXT_STEP: dict[PathDecision, str] = {
    "MASTERED": "You can move ahead to the next concept.",
    "PROCEED": "Continue with the next concept; a quick review of the points above will help.",
    "ALTERNATE": "Try the concept from another angle: a worked example or a diagram.",
    "REMEDIATE": "Go back over the concept's core idea before trying again.",
    "RETRY": "Have another go at this question, taking the points above into account.",
}


class FeedbackInputs(BaseModel):
    request: GradingRequest
    verdict: Verdict
    decision: PathDecision


class FeedbackOutput(BaseModel):
    feedback: str


# The verbs misconception descriptions open with ("Believes ...", "Confuses ..."): only these are
# turned to the learner, so a caller's "Lists are copied" is never read as a verb.
_OPENING_VERBS = (
    "Believes|Thinks|Assumes|Expects|Treats|Confuses|Mistakes|Equates|Applies|Uses|Models|"
    "Misreads|Reads|Misstates|Misunderstands|Interprets|Ranks|Fits|Compares|Draws|Catches|"
    "Ignores|Forgets|Overlooks|Chooses|Calls|Puts|Writes|Sets|Relies|Does not"
)
_THIRD_PERSON = re.compile(rf"({_OPENING_VERBS})\s+(\S.*)", re.DOTALL)
_SECOND_VERB = re.compile(
    rf"(\(or|\bor|\band) ({_OPENING_VERBS.replace('|Does not', '').lower()})\b"
)


def misconception_warning(description: str) -> str:
    """A misconception's description ("Believes a variable is a box ...") said to the learner
    ("you seem to believe a variable is a box ..."); a description that does not open with one
    of the _OPENING_VERBS is quoted as it is. A second known verb joined by "or" / "and"
    ("..., or treats lower perplexity as ...") is turned to the learner too."""
    text = " ".join(description.split())
    match = _THIRD_PERSON.fullmatch(text)
    if match is None:
        return f"Watch out for a common misconception: {text}"
    verb, rest = match.groups()
    rest = _SECOND_VERB.sub(lambda m: f"{m[1]} {_base_form(m[2])}", rest)
    if verb == "Does not":
        return f"This sounds like a common misconception: you seem not to {rest}"
    return f"This sounds like a common misconception: you seem to {_base_form(verb)} {rest}"


def _base_form(verb: str) -> str:
    """ "Believes" -> "believe", "applies" -> "apply", "catches" -> "catch"."""
    verb = verb.lower()
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "sses", "xes", "zes")):
        return verb[:-2]
    return verb[:-1]


def offline_feedback(inputs: FeedbackInputs) -> str:
    """Deterministic feedback from the verdict and the knowledge base."""
    verdict, request = inputs.verdict, inputs.request
    p = grading_parameters().feedback
    parts: list[str] = []
    if not request.answer.strip():
        parts.append("No answer was given, so there is nothing to credit yet.")
    elif verdict.score >= p.good_answer_from:
        parts.append("Good answer: it matches the reference on the essentials.")
    elif verdict.covered_key_points:
        covered = "; ".join(verdict.covered_key_points[: p.points_listed])
        parts.append(f"You got part of it right ({covered}).")
    else:
        parts.append("This answer does not yet match the reference.")
    known = {m.id: m for m in request.misconceptions}
    for misconception_id in verdict.misconceptions:
        misconception = known.get(misconception_id)
        if misconception is not None:
            parts.append(misconception_warning(misconception.description))
    if verdict.missing_key_points and verdict.score < p.missing_points_below:
        missing = "; ".join(verdict.missing_key_points[: p.points_listed])
        parts.append(f"A complete answer also covers: {missing}.")
    if verdict.error_type == "CARELESS":
        parts.append("You seem to know this; re-read your answer for slips.")
    parts.append(_NEXT_STEP[inputs.decision])
    return " ".join(parts)


def feedback_messages(inputs: FeedbackInputs) -> list[Message]:
    request, verdict = inputs.request, inputs.verdict
    names = {m.id: m.description for m in request.misconceptions}
    user = prompts.FEEDBACK_USER.format(
        question=request.question,
        reference=request.reference_answer,
        answer=request.answer,
        score=verdict.score,
        decision=inputs.decision,
        error_type=verdict.error_type or "none",
        misconceptions="; ".join(names.get(m, m) for m in verdict.misconceptions) or "none",
        missing="; ".join(verdict.missing_key_points) or "none",
    )
    return [Message.system(prompts.FEEDBACK_SYSTEM), Message.user(user)]


async def generate_feedback(model: Model, inputs: FeedbackInputs) -> str:
    output = await model.structured(
        FeedbackOutput, feedback_messages(inputs), agent=FEEDBACK_AGENT, inputs=inputs
    )
    return output.feedback.strip() or offline_feedback(inputs)


def register_offline_feedback(engine: OfflineEngine) -> None:
    def handler(
        schema: type[BaseModel], messages: Sequence[Message], inputs: Any
    ) -> FeedbackOutput:
        if not isinstance(inputs, FeedbackInputs):
            raise StructuredOutputError("offline feedback needs FeedbackInputs")
        return FeedbackOutput(feedback=offline_feedback(inputs))

    engine.register_structured(FEEDBACK_AGENT, handler)
