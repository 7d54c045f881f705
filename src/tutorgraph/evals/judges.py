"""Scoring layers 2 (prompt alignment, six criteria) and 3 (outcome, five criteria): model judges
through the model interface, up to MAX_RETRIES retries with backoff on a provider or format
failure. The offline engine has no judge (`OfflineUnsupported`): the layer is reported as not
scored, never given invented numbers."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Literal

from pydantic import BaseModel, Field

from tutorgraph.errors import OfflineUnsupported, ProviderError
from tutorgraph.evals import prompts
from tutorgraph.evals.runner import Transcript
from tutorgraph.evals.scenario import Scenario
from tutorgraph.llm import Message, Model

log = logging.getLogger(__name__)

MAX_RETRIES = 2
BACKOFF_SECONDS = 1.0
ALIGNMENT_CRITERIA = (
    "socratic_method",
    "multimodal_teaching",
    "compound_analogies",
    "factual_grounding",
    "adaptive_mode",
    "image_discipline",
)
OUTCOME_CRITERIA = (
    "learning_arc",
    "conversational_craft",
    "technical_accuracy",
    "intellectual_engagement",
    "adaptive_responsiveness",
)


class Criterion(BaseModel):
    score: int = Field(ge=1, le=5)
    reason: str = ""


class AlignmentScores(BaseModel):
    socratic_method: Criterion
    multimodal_teaching: Criterion
    compound_analogies: Criterion
    factual_grounding: Criterion
    adaptive_mode: Criterion
    image_discipline: Criterion


class OutcomeScores(BaseModel):
    learning_arc: Criterion
    conversational_craft: Criterion
    technical_accuracy: Criterion
    intellectual_engagement: Criterion
    adaptive_responsiveness: Criterion


class JudgeResult(BaseModel):
    layer: Literal["alignment", "outcome"]
    scored: bool
    scores: dict[str, int] = Field(default_factory=dict)
    reasons: dict[str, str] = Field(default_factory=dict)
    note: str = ""


def render_transcript(transcript: Transcript) -> str:
    lines = []
    for number, turn in enumerate(transcript.turns, start=1):
        lines.append(f"[{number}] LEARNER: {turn.learner}")
        for tool in turn.tools:
            result = json.dumps(tool.result, default=str)[:600]
            lines.append(f"    TOOL {tool.name}({json.dumps(tool.arguments)}) -> {result}")
        lines.append(f"[{number}] TUTOR: {turn.reply}")
    return "\n".join(lines)


async def judge(
    model: Model, scenario: Scenario, transcript: Transcript, layer: Literal["alignment", "outcome"]
) -> JudgeResult:
    schema: type[AlignmentScores] | type[OutcomeScores]
    if layer == "alignment":
        schema, system = AlignmentScores, prompts.ALIGNMENT_SYSTEM.format(mode=scenario.mode)
    else:
        schema, system = OutcomeScores, prompts.OUTCOME_SYSTEM
    user = prompts.JUDGE_USER.format(
        title=scenario.title,
        persona_kind=scenario.persona.kind,
        persona=scenario.persona.description,
        lesson=scenario.lesson,
        mode=scenario.mode,
        transcript=render_transcript(transcript),
    )
    messages = [Message.system(system), Message.user(user)]
    for attempt in range(MAX_RETRIES + 1):
        try:
            found = await model.structured(schema, messages, agent=f"eval_{layer}_judge")
        except OfflineUnsupported:
            return JudgeResult(layer=layer, scored=False, note="not scored: no model judge")
        except ProviderError as exc:
            if attempt == MAX_RETRIES:
                return JudgeResult(layer=layer, scored=False, note=f"not scored: {exc}")
            log.warning("judge %s failed (%s), retrying", layer, exc)
            await asyncio.sleep(BACKOFF_SECONDS * 2**attempt)
            continue
        criteria: dict[str, Criterion] = {
            name: getattr(found, name) for name in type(found).model_fields
        }
        return JudgeResult(
            layer=layer,
            scored=True,
            scores={k: v.score for k, v in criteria.items()},
            reasons={k: v.reason for k, v in criteria.items()},
        )
    raise AssertionError("unreachable")
