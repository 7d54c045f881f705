"""Scoring layers 0 and 1 of the evaluation framework (tutor-platform spec), both deterministic.

Layer 0, behavioural metrics (descriptive, per conversation): open and closed questions the tutor
asks, images (proactive: shown before the learner asked for a visual; reactive: after), the
modalities used (quiz, resource, mermaid, flow, architecture, code, math, image), tool calls by
name, and backward-reference phrases (continuity).

Layer 1, format safety (pass/fail, every reply): no URL that no tool returned or the course
contains (only `search_web` may bring new ones); every `<quiz>` body is valid JSON of the quiz
schema; no plain-text multiple choice ("A) ... B) ...") instead of a quiz card; every
`<resource>` has a URL; no resource repeated across the conversation; mermaid, flow and
architecture blocks valid; maths notation as the lesson writes it (a subscripted symbol in the
reply's maths that the course material never uses, e.g. `d_{key}` for `d_k`)."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from tutorgraph.evals.checks import BACKWARD, CheckResult
from tutorgraph.evals.runner import Transcript
from tutorgraph.tutor.blocks import (
    ArchitectureBlock,
    BlockTag,
    FlowBlock,
    QuizBlock,
    ResourceBlock,
    block_bodies,
    strip_blocks,
)

_URL = re.compile(r"https?://[^\s)\]>\"'`]+")
_PLAIN_CHOICE = re.compile(r"^\s*(?:[-*]\s*)?\(?([A-Da-d])[).:]\s+\S", re.MULTILINE)
_MERMAID = re.compile(r"```mermaid\n(.*?)```", re.DOTALL)
_MERMAID_KINDS = re.compile(
    r"^\s*(graph|flowchart|sequenceDiagram|classDiagram|stateDiagram(-v2)?|erDiagram|gantt|pie|"
    r"journey|mindmap|timeline|quadrantChart|gitGraph)\b"
)
_MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$\n]+)\$", re.DOTALL)
_SUBSCRIPTED = re.compile(r"\b([A-Za-z])_\{?([A-Za-z0-9]+)\}?")
_QUESTION_START = re.compile(
    r"^(is|are|do|does|did|can|could|will|would|should|was|were|has|have)\b", re.IGNORECASE
)
_VISUAL_ASK = re.compile(r"\b(diagram|picture|visual|draw|image|show me)\b", re.IGNORECASE)
BLOCK_SCHEMAS: dict[BlockTag, type[BaseModel]] = {
    "quiz": QuizBlock,
    "resource": ResourceBlock,
    "flow": FlowBlock,
    "architecture": ArchitectureBlock,
}


@dataclass(frozen=True)
class Behaviour:
    open_questions: int
    closed_questions: int
    images_proactive: int
    images_reactive: int
    modalities: list[str]
    tool_calls: dict[str, int]
    backward_references: int

    @property
    def open_ratio(self) -> float:
        asked = self.open_questions + self.closed_questions
        return self.open_questions / asked if asked else 0.0


def behaviour(transcript: Transcript) -> Behaviour:
    """Layer 0 (see the module doc)."""
    open_q = closed_q = proactive = reactive = backward = 0
    used: set[str] = set()
    tools: Counter[str] = Counter()
    asked_visual = False
    for turn in transcript.turns:
        asked_visual = asked_visual or bool(_VISUAL_ASK.search(turn.learner))
        prose = strip_blocks(turn.reply)
        for sentence in re.findall(r"[^.!?\n]*\?", prose):
            if _QUESTION_START.match(sentence.strip()):
                closed_q += 1
            else:
                open_q += 1
        images = len(block_bodies(turn.reply, "image"))
        reactive += images if asked_visual else 0
        proactive += 0 if asked_visual else images
        used |= _modalities(turn.reply)
        tools.update(t.name for t in turn.tools)
        backward += len(BACKWARD.findall(prose))
    return Behaviour(
        open_questions=open_q,
        closed_questions=closed_q,
        images_proactive=proactive,
        images_reactive=reactive,
        modalities=sorted(used),
        tool_calls=dict(tools),
        backward_references=backward,
    )


QUESTION_SHARE = 0.5  # Socratic: at least half the replies ask the learner something
MODALITIES_FOR_LONG = 3  # the spec's rhythm: at least three modalities across a conversation...
LONG_CONVERSATION = 4  # ...of this many turns; shorter ones need one beyond prose
CONTINUITY_FROM = 3  # turns from which a conversation must refer back at least once


def behaviour_checks(transcript: Transcript, measured: Behaviour) -> list[CheckResult]:
    """Layer 0 as pass/fail: the spec's behavioural metrics against its teaching rhythm."""
    turns = len(transcript.turns)
    asking = sum("?" in strip_blocks(t.reply) or "<quiz>" in t.reply for t in transcript.turns)
    needed = MODALITIES_FOR_LONG if turns >= LONG_CONVERSATION else 1
    results = [
        CheckResult(
            "layer0_asks_questions",
            0,
            turns == 0 or asking / turns >= QUESTION_SHARE,
            f"{asking} of {turns} replies ask the learner something",
        ),
        CheckResult(
            "layer0_modalities",
            0,
            len(measured.modalities) >= needed,
            f"{', '.join(measured.modalities) or 'prose only'} (needs {needed})",
        ),
        CheckResult(
            "layer0_uses_tools",
            0,
            sum(measured.tool_calls.values()) >= 1,
            ", ".join(f"{k} {v}" for k, v in measured.tool_calls.items()) or "no tool call",
        ),
    ]
    if turns >= CONTINUITY_FROM:
        results.append(
            CheckResult(
                "layer0_continuity",
                0,
                measured.backward_references >= 1,
                f"{measured.backward_references} backward references",
            )
        )
    return results


def _modalities(reply: str) -> set[str]:
    found = {tag for tag in ("quiz", "resource", "image", "flow", "architecture")}
    found = {tag for tag in found if f"<{tag}>" in reply}
    if "```mermaid" in reply:
        found.add("mermaid")
    if re.search(r"```(?!mermaid)", reply):
        found.add("code")
    if _MATH.search(strip_blocks(reply)):
        found.add("math")
    return found


def format_safety(transcript: Transcript, *, course_text: str) -> list[CheckResult]:
    """Layer 1 (see the module doc): one result per check per reply that has something to check,
    plus the conversation-wide duplicate-resource check."""
    results: list[CheckResult] = []
    known_urls = set(_URL.findall(course_text))
    notation = {_symbol(m) for m in _SUBSCRIPTED.finditer(course_text)}
    seen_resources: Counter[str] = Counter()
    for number, turn in enumerate(transcript.turns, start=1):
        known_urls |= set(_URL.findall(json.dumps(_jsonable([t.result for t in turn.tools]))))
        reply = turn.reply
        urls = set(_URL.findall(reply))
        if urls:
            made_up = sorted(u for u in urls if u.rstrip(".,;") not in known_urls)
            results.append(
                CheckResult("no_fabricated_urls", number, not made_up, ", ".join(made_up[:3]))
            )
        for tag, schema in BLOCK_SCHEMAS.items():
            for body in block_bodies(reply, tag):
                results.append(CheckResult(f"valid_{tag}", number, _valid(schema, body), body[:80]))
        for body in block_bodies(reply, "resource"):
            try:
                seen_resources[ResourceBlock.model_validate_json(body).url] += 1
            except ValidationError:
                continue
        choices = _PLAIN_CHOICE.findall(strip_blocks(_without_code(reply)))
        if len(choices) >= 2:
            results.append(
                CheckResult("no_plaintext_choices", number, False, "A) B) options in prose")
            )
        for diagram in _MERMAID.findall(reply):
            ok = bool(_MERMAID_KINDS.match(diagram))
            results.append(CheckResult("valid_mermaid", number, ok, diagram[:60]))
        used = {
            _symbol(m)
            for math in _MATH.findall(strip_blocks(reply))
            for m in _SUBSCRIPTED.finditer(" ".join(math))
        }
        if used:
            strange = sorted(used - notation)
            results.append(CheckResult("notation", number, not strange, ", ".join(strange[:4])))
    repeated = [url for url, n in seen_resources.items() if n > 1]
    if seen_resources:
        results.append(CheckResult("no_duplicate_resources", 0, not repeated, ", ".join(repeated)))
    return results


def _valid(schema: type[BaseModel], body: str) -> bool:
    try:
        schema.model_validate_json(body)
    except ValidationError:
        return False
    return True


def _symbol(match: re.Match[str]) -> str:
    return f"{match.group(1)}_{match.group(2)}"


def _without_code(text: str) -> str:
    return re.sub(r"```.*?```", " ", text, flags=re.DOTALL)


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except TypeError:
        return str(value)
    return value
