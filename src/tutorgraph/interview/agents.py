"""The interview's three agents, each a structured output with an offline implementation
(registered by `register_offline_interview`, also the fallback when a model call fails):
the interviewer's lines (`say`), the intent detector (`detect_intent`) and the scorecard writer
(`write_scorecard`)."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from tutorgraph.interview import compose, prompts
from tutorgraph.interview.compose import GLOSS
from tutorgraph.interview.intent import classify
from tutorgraph.interview.schemas import (
    IntentOutput,
    IntentRequest,
    ScorecardOutput,
    Utterance,
    UtteranceRequest,
)
from tutorgraph.llm import Message, Model, OfflineEngine

INTERVIEWER_AGENT = "interviewer"
INTENT_AGENT = "intent_detector"
SCORECARD_AGENT = "scorecard_writer"


class ScorecardRequest(BaseModel):
    role: str
    level: str
    computed: ScorecardOutput  # the offline scorecard: the LLM starts from it
    transcript: str


async def say(model: Model, request: UtteranceRequest) -> str:
    template = prompts.UTTERANCE_USER[request.kind]
    aspect_clause = f" (they should talk about {GLOSS[request.aspect]})" if request.aspect else ""
    user = template.format(
        candidate_name_or_candidate=request.candidate_name or "the candidate",
        technical_clause=", then a few technical questions" if request.technical_planned else "",
        anchor_type=request.anchor_type,
        anchor_label=request.anchor_label,
        aspect=request.aspect or "",
        gloss=GLOSS[request.aspect] if request.aspect else "",
        detail=request.detail,
        recent="\n".join(f"- {q}" for q in request.recent_questions) or "- (none)",
        topic_title=request.topic_title,
        kb_question=request.kb_question,
        previous_question=request.previous_question,
        last_answer=request.last_answer[:600],
        aspect_clause=aspect_clause,
        signals=", ".join(request.signals) or "none",
        last_run=request.last_run or "(no run)",
        reason=request.reason,
        next_label=request.next_label,
    )
    if request.conversation:
        user += prompts.CONVERSATION.format(turns="\n".join(request.conversation))
    system = prompts.INTERVIEWER_SYSTEM.format(level=request.level, role=request.role)
    messages = [Message.system(system), Message.user(user)]
    out = await model.structured(Utterance, messages, agent=INTERVIEWER_AGENT, inputs=request)
    return out.text.strip()


async def detect_intent(model: Model, request: IntentRequest) -> IntentOutput:
    user = prompts.INTENT_USER.format(
        last_question=request.last_question or "(none)", text=request.text[:2000]
    )
    messages = [Message.system(prompts.INTENT_SYSTEM), Message.user(user)]
    return await model.structured(IntentOutput, messages, agent=INTENT_AGENT, inputs=request)


async def write_scorecard(model: Model, request: ScorecardRequest) -> ScorecardOutput:
    system = prompts.EVALUATION_SYSTEM.format(level=request.level, role=request.role)
    user = prompts.EVALUATION_USER.format(
        computed=request.computed.model_dump_json(indent=1), transcript=request.transcript
    )
    messages = [Message.system(system), Message.user(user)]
    out = await model.structured(ScorecardOutput, messages, agent=SCORECARD_AGENT, inputs=request)
    return grounded(out, request)


def grounded(out: ScorecardOutput, request: ScorecardRequest) -> ScorecardOutput:
    """A model's scorecard keeps only evidence the transcript really contains; a score left with
    none takes the computed evidence back."""
    said = _squash(request.transcript)
    data = json.loads(out.model_dump_json())
    computed = json.loads(request.computed.model_dump_json())
    for key in ("overall", "communication", "technical", "problem_solving", "code_quality"):
        kept = [e for e in data[key]["evidence"] if _quoted(e, said)]
        data[key]["evidence"] = kept or computed[key]["evidence"]
    return ScorecardOutput.model_validate(data)


def _quoted(evidence: str, said: str) -> bool:
    quotes = re.findall(r"[\"\u201c]([^\"\u201d]{8,})[\"\u201d]", evidence)
    return bool(quotes) and all(_squash(q).rstrip("…") in said for q in quotes)


def _squash(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def register_offline_interview(engine: OfflineEngine) -> None:
    async def utterance(schema: type[BaseModel], messages: Any, inputs: Any) -> BaseModel:
        assert isinstance(inputs, UtteranceRequest)
        return Utterance(text=compose.say(inputs))

    async def intent(schema: type[BaseModel], messages: Any, inputs: Any) -> BaseModel:
        assert isinstance(inputs, IntentRequest)
        guess = classify(inputs.text)
        return IntentOutput(type=guess.type, confidence=guess.confidence, cue=guess.cue)

    async def scorecard(schema: type[BaseModel], messages: Any, inputs: Any) -> BaseModel:
        assert isinstance(inputs, ScorecardRequest)
        return inputs.computed

    engine.register_structured(INTERVIEWER_AGENT, utterance)
    engine.register_structured(INTENT_AGENT, intent)
    engine.register_structured(SCORECARD_AGENT, scorecard)
