"""Phase 4: feedback that names the learner's misconceptions and the missing key points.

The LLM writes it when a model server is configured; the offline version composes it from the
knowledge base's misconception descriptions and the rubric, and is the fallback."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from tutorgraph.errors import StructuredOutputError
from tutorgraph.grading import prompts, uncertainty
from tutorgraph.grading.parameters import grading_parameters
from tutorgraph.grading.types import (
    ChecksSummary,
    GradingRequest,
    PathDecision,
    Verdict,
)
from tutorgraph.llm import Message, Model, OfflineEngine

FEEDBACK_AGENT = "feedback"


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
    elif uncertainty.is_unsure(verdict.certainty) and verdict.score < p.good_answer_from:
        pass  # the doubt sentence before it says what was credited (`uncertainty.explain`)
    elif verdict.score >= p.good_answer_from:
        parts.append("Good answer: it matches the reference on the essentials.")
    elif verdict.checks is not None:
        pass  # what ran or was computed says what was right and what was not
    elif verdict.covered_key_points:
        covered = "; ".join(verdict.covered_key_points[: p.points_listed])
        parts.append(f"You got part of it right ({covered}).")
    else:
        parts.append("This answer does not yet match the reference.")
    if verdict.checks is not None:
        parts += checks_feedback(verdict.checks, p.points_listed)
    known = {m.id: m for m in request.misconceptions}
    for misconception_id in verdict.misconceptions:
        misconception = known.get(misconception_id)
        if misconception is not None:
            parts.append(misconception_warning(misconception.description))
    decided = set(verdict.checks.points) if verdict.checks is not None else set()
    to_say = [point for point in verdict.missing_key_points if point not in decided]
    to_say = [point for point in to_say if point not in request.supporting]
    if to_say and verdict.score < p.missing_points_below:
        missing = "; ".join(to_say[: p.points_listed])
        parts.append(f"A complete answer also covers: {missing}.")
    if verdict.error_type == "CARELESS":
        parts.append("You seem to know this; re-read your answer for slips.")
    # What to do next is the one next step's to say (learning/next_step.py), not the feedback's:
    # a second, different suggestion here would compete with it (decision 0047).
    return " ".join(parts)


def _checks_line(verdict: Verdict) -> str:
    checks = verdict.checks
    if checks is None:
        return "none"
    failing = [line.message for line in checks.lines if not line.passed and line.message]
    parts = [f"{checks.passed}/{checks.total} passed" + ("" if checks.ran else " (not run)")]
    parts += [checks.message] if checks.message else []
    return "; ".join(parts + checks.slips + failing[:3])


def checks_feedback(checks: ChecksSummary, points_listed: int) -> list[str]:
    """What running the code or computing with the numbers found, said to the learner: the
    failing cases and slips by name, never the reference."""
    parts: list[str] = []
    if checks.kind == "numbers":
        parts.append(f"Your numbers reach {checks.passed} of the {checks.total} values checked.")
        missed = [line.name for line in checks.lines if not line.passed and not line.slip]
        if missed:
            parts.append(f"Not found among your numbers: {', '.join(missed)}.")
    elif not checks.ran or checks.problem is not None:
        parts.append(checks.message)
    else:
        parts.append(f"Your code ran against {checks.total} checks and passed {checks.passed}.")
    parts += [f"{slip[0].upper()}{slip[1:]}.".replace("..", ".") for slip in checks.slips]
    if checks.kind != "numbers" and checks.ran and checks.problem is None:
        failing = [line for line in checks.lines if not line.passed and line.message]
        failing = [line for line in failing if line.message not in checks.slips]
        for line in failing[:points_listed]:
            message = line.message.rstrip(".")
            parts.append(f"{line.name[0].upper()}{line.name[1:]}: {message}.")
    return parts


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
        checks=_checks_line(verdict),
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
