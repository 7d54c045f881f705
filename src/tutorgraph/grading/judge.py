"""The reference-guided judge (JudgeLM, "reference as prior"): the reference is Assistant 1, the
learner is Assistant 2; the reply's first line is `10.0 X`, then JSON reasoning. With
`reference_first=False` the two change places (learner = Assistant 1, reply `X 10.0`): the spec's
position-bias measurement compares the learner's score under both orders.

The score is X / 10 whenever the `10.0 X` line is there; the JSON's per-criterion marks are then
shown, never recomputed into another score. Without the line, a JSON `score` is used, and without
that the JSON's criteria weighted by the configured rubric weights. A model judge is asked
`grading.judge_runs` times (3 by default, the spec's mitigation for LLM variance) and the median
verdict is kept; the runs' spread sets the verdict's certainty.

The offline grader answers through the same channel (as the offline engine's `judge` agent), so
both paths go through one parser."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import statistics
from collections.abc import AsyncIterator, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError, field_validator

from tutorgraph.errors import StructuredOutputError
from tutorgraph.grading import prompts
from tutorgraph.grading.parameters import grading_parameters
from tutorgraph.grading.types import ErrorType, GradingRequest, RubricScores, Verdict
from tutorgraph.llm import Finish, Message, Model, OfflineEngine, StreamEvent, TextDelta, ToolSpec
from tutorgraph.offload import run_cpu_bound
from tutorgraph.settings import RubricWeights

log = logging.getLogger(__name__)

JUDGE_AGENT = "judge"
_NOTATION = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*[,;/ ]\s*(-?\d+(?:\.\d+)?)\s*$")
_ERROR_TYPES = {"CONCEPTUAL", "PROCEDURAL", "INCOMPLETE", "CARELESS"}


class JudgeParseError(StructuredOutputError):
    """The judge's reply had neither the `10.0 X` notation nor a usable JSON score."""


class JudgeDetails(BaseModel):
    """The JSON part of a judge reply; everything optional, scores on a 0-10 scale."""

    score: float | None = None
    correctness: float | None = None
    completeness: float | None = None
    clarity: float | None = None
    error_type: ErrorType | None = None
    misconceptions: list[str] = []
    covered_key_points: list[str] = []
    missing_key_points: list[str] = []
    reasoning: str = ""
    grader: str = "llm"

    @field_validator("error_type", mode="before")
    @classmethod
    def _known_error(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().upper() in _ERROR_TYPES:
            return value.strip().upper()
        return None


def _clamp10(value: float) -> float:
    return min(10.0, max(0.0, value))


def _json_object(text: str) -> dict[str, Any] | None:
    start, end = text.find("{"), text.rfind("}")
    if start == -1 or end <= start:
        return None
    try:
        value = json.loads(text[start : end + 1])
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def parse_judge_reply(
    text: str, weights: RubricWeights | None = None, *, reference_first: bool = True
) -> Verdict:
    """Parse `10.0 X` + JSON (see the module doc for which score wins); clamp to range.
    `reference_first=False`: the prompt showed the learner first, so the line reads `X 10.0`."""
    weights = weights or RubricWeights()
    lines = [line for line in text.strip().splitlines() if line.strip()]
    notation: float | None = None
    if lines:
        match = _NOTATION.match(lines[0])
        if match:
            notation = _clamp10(float(match.group(2 if reference_first else 1)))
    raw = _json_object(text)
    details = JudgeDetails()
    if raw is not None:
        try:
            details = JudgeDetails.model_validate(raw)
        except ValidationError:
            details = JudgeDetails(reasoning=str(raw.get("reasoning", "")))
    parts = (details.correctness, details.completeness, details.clarity)
    overall = notation if notation is not None else details.score
    if overall is None and all(part is not None for part in parts):
        overall = 10 * RubricScores(
            correctness=_clamp10(parts[0] or 0.0) / 10,
            completeness=_clamp10(parts[1] or 0.0) / 10,
            clarity=_clamp10(parts[2] or 0.0) / 10,
        ).weighted(weights)
    if overall is None:
        raise JudgeParseError(
            "the judge's reply had no '10.0 X' score line and no JSON score: "
            + (text[:120].replace("\n", " ") or "(empty reply)")
        )
    overall = _clamp10(overall)
    rubric = RubricScores(
        correctness=_clamp10(parts[0] if parts[0] is not None else overall) / 10,
        completeness=_clamp10(parts[1] if parts[1] is not None else overall) / 10,
        clarity=_clamp10(parts[2] if parts[2] is not None else overall) / 10,
    )
    certainty = raw.get("certainty") if raw is not None else None
    return Verdict(
        score=round(overall / 10, 4),
        rubric=rubric,
        error_type=details.error_type,
        misconceptions=details.misconceptions,
        covered_key_points=details.covered_key_points,
        missing_key_points=details.missing_key_points,
        reasoning=details.reasoning,
        grader="offline" if details.grader == "offline" else "llm",
        certainty=min(1.0, max(0.0, float(certainty)))
        if isinstance(certainty, (int, float))
        else 1.0,
    )


def judge_messages(request: GradingRequest, *, reference_first: bool = True) -> list[Message]:
    """The judge prompt; `reference_first=False` shows the learner's answer as Assistant 1 and the
    reference as Assistant 2 (the spec's position-bias measurement swaps the two)."""
    reference, answer = request.reference_answer, request.answer
    first, second = (reference, answer) if reference_first else (answer, reference)
    rubric_block = (
        prompts.RUBRIC_BLOCK.format(
            points="\n".join(
                f"- {p}{prompts.SUPPORTING_MARK if p in request.supporting else ''}"
                for p in request.rubric
            )
        )
        if request.rubric
        else ""
    )
    misconception_block = (
        prompts.MISCONCEPTION_BLOCK.format(
            items="\n".join(f"- {m.id}: {m.description}" for m in request.misconceptions)
        )
        if request.misconceptions
        else ""
    )
    user = prompts.JUDGE_USER.format(
        question=request.question,
        first=first,
        second=second,
        reference_n=1 if reference_first else 2,
        answer_n=2 if reference_first else 1,
        example="10.0 6.5" if reference_first else "6.5 10.0",
        rubric_block=rubric_block,
        misconception_block=misconception_block,
    )
    return [Message.system(prompts.JUDGE_SYSTEM), Message.user(user)]


async def judge_once(
    model: Model,
    request: GradingRequest,
    weights: RubricWeights | None = None,
    *,
    reference_first: bool = True,
) -> Verdict:
    """Ask the model for one verdict and parse it (raises JudgeParseError on an unusable reply).
    The offline judge grades the request's roles, whatever the prompt's order."""
    text: list[str] = []
    messages = judge_messages(request, reference_first=reference_first)
    async for event in model.stream_chat(messages, agent=JUDGE_AGENT, inputs=request):
        if isinstance(event, TextDelta):
            text.append(event.delta)
    return parse_judge_reply("".join(text), weights, reference_first=reference_first)


async def judge(
    model: Model,
    request: GradingRequest,
    *,
    runs: int = 1,
    weights: RubricWeights | None = None,
) -> Verdict:
    """The median verdict of `runs` judge calls (one call when the offline grader answers)."""
    first = await judge_once(model, request, weights)
    if runs <= 1 or first.grader == "offline":
        return first
    rest = await asyncio.gather(*(judge_once(model, request, weights) for _ in range(runs - 1)))
    verdicts = sorted([first, *rest], key=lambda v: v.score)
    median = verdicts[(len(verdicts) - 1) // 2]
    scores = [v.score for v in verdicts]
    spread = statistics.pstdev(scores)
    # certainty reaches 0.5 at a spread of `run_spread_for_doubt` (a standard deviation)
    doubt_at = grading_parameters().model_verdicts.run_spread_for_doubt
    agreement = max(0.0, 1.0 - 0.5 * spread / doubt_at)
    return median.model_copy(
        update={
            "score": round(statistics.median(scores), 4),
            "judge_scores": scores,
            "certainty": round(min(median.certainty, agreement), 4),
        }
    )


def verdict_reply(verdict: Verdict, *, reference_first: bool = True) -> str:
    """Render a verdict in the judge's reply format (what the offline judge 'says')."""
    details = {
        "correctness": round(verdict.rubric.correctness * 10, 3),
        "completeness": round(verdict.rubric.completeness * 10, 3),
        "clarity": round(verdict.rubric.clarity * 10, 3),
        "error_type": verdict.error_type,
        "misconceptions": verdict.misconceptions,
        "covered_key_points": verdict.covered_key_points,
        "missing_key_points": verdict.missing_key_points,
        "reasoning": verdict.reasoning,
        "grader": "offline",
        "certainty": verdict.certainty,
    }
    scores = ("10.0", f"{verdict.score * 10:.3f}")
    first, second = scores if reference_first else scores[::-1]
    return f"{first} {second}\n{json.dumps(details)}"


def _shows_reference_first(messages: Sequence[Message]) -> bool:
    """Whether a judge prompt shows the reference as Assistant 1 (see `judge_messages`)."""
    user = next((m.content or "" for m in reversed(messages) if m.role == "user"), "")
    return "Assistant 2's answer is the golden reference" not in user


def register_offline_judge(engine: OfflineEngine, *, weights: RubricWeights | None = None) -> None:
    """Let the offline engine answer the `judge` agent with the offline grader."""
    from tutorgraph.grading.offline import OfflineGrader

    grader = OfflineGrader(weights=weights)

    async def handler(
        messages: Sequence[Message], tools: Sequence[ToolSpec], inputs: Any
    ) -> AsyncIterator[StreamEvent]:
        if not isinstance(inputs, GradingRequest):
            raise StructuredOutputError("the offline judge needs the GradingRequest as inputs")
        verdict = await run_cpu_bound(grader.grade, inputs)  # CPU work: off the event loop
        reply = verdict_reply(verdict, reference_first=_shows_reference_first(messages))
        yield TextDelta(delta=reply)
        yield Finish(reason="stop")

    engine.register_chat(JUDGE_AGENT, handler)
