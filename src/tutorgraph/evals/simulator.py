"""The student simulator: the scenario's scripted turns first, then generated ones.

Generated turns come from the model interface (agent `student_simulator`, prompt in
`prompts.py`). The offline implementation (registered on the offline engine, so it is also the
fallback) is persona-driven and deterministic: it reads the tutor's last reply and answers its
check question in character — a wrong-intuition learner states one of the lesson's known
misconceptions (from the knowledge base), a confused one says what is unclear, one who wants the
answer asks for it, the others try an answer built from the reply's own words, or pick an option
of a quiz card — seeded by the scenario id so a run repeats exactly."""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from tutorgraph.evals import prompts
from tutorgraph.evals.runner import Transcript
from tutorgraph.evals.scenario import Scenario
from tutorgraph.knowledge import find_topic, shipped_domains
from tutorgraph.llm import Message, Model, OfflineEngine
from tutorgraph.text.markdown import sentences
from tutorgraph.tutor.blocks import QuizBlock, parse_blocks, strip_blocks

AGENT = "student_simulator"


class StudentTurn(BaseModel):
    text: str


class SimulatorInputs(BaseModel):
    """What the offline simulator reads: the persona, the lesson's concepts, the last reply."""

    scenario_id: str
    persona_kind: str
    concepts: list[str]
    last_reply: str
    turn: int


class StudentSimulator:
    def __init__(self, model: Model) -> None:
        self.model = model

    async def next_turn(
        self, scenario: Scenario, transcript: Transcript, concepts: Sequence[str]
    ) -> str:
        last = transcript.turns[-1].reply if transcript.turns else ""
        system = prompts.STUDENT_SYSTEM.format(
            persona_kind=scenario.persona.kind,
            persona=scenario.persona.description,
            lesson=scenario.lesson,
            mode=scenario.mode,
        )
        conversation = [Message.system(system)]
        for turn in transcript.turns:  # the tutor is the "user" from the student's side
            conversation += [Message.assistant(turn.learner), Message.user(turn.reply)]
        inputs = SimulatorInputs(
            scenario_id=scenario.id,
            persona_kind=scenario.persona.kind,
            concepts=list(concepts),
            last_reply=last,
            turn=len(transcript.turns) + 1,
        )
        reply = await self.model.structured(StudentTurn, conversation, agent=AGENT, inputs=inputs)
        return reply.text.strip() or "can you say that another way?"


def register_offline_simulator(engine: OfflineEngine) -> None:
    engine.register_structured(AGENT, offline_student_turn)


def offline_student_turn(
    schema: type[BaseModel], messages: Sequence[Message], inputs: Any
) -> StudentTurn:
    if not isinstance(inputs, SimulatorInputs):
        raise TypeError("the offline student simulator needs SimulatorInputs")
    seed = hashlib.sha256(f"{inputs.scenario_id}:{inputs.turn}".encode()).digest()
    rng = random.Random(int.from_bytes(seed[:8], "big"))
    reply = inputs.last_reply
    cards = parse_blocks(reply, "quiz", QuizBlock)
    if cards:
        option = rng.randrange(len(cards[-1].options))
        return StudentTurn(text=f"i'd say {cards[-1].options[option]}, because it sounds right")
    kind = inputs.persona_kind
    if kind == "wrong_intuition":
        belief = _misconception(inputs.concepts, rng)
        if belief:
            return StudentTurn(text=f"hmm but i thought {belief}")
    if kind in ("confusion_recovery", "eli5", "beginner") and rng.random() < 0.5:
        return StudentTurn(text=rng.choice(_CONFUSED))
    if kind == "demands_answer":
        return StudentTurn(text="can you just tell me the answer?")
    attempt = _attempt(reply, rng)
    if attempt:
        return StudentTurn(text=f"is it that {attempt}?")
    return StudentTurn(text=rng.choice(_CONFUSED))


_CONFUSED = (
    "i still don't get it",
    "sorry, can you explain that more simply?",
    "why though?",
    "can you give me an example?",
)


def _misconception(concepts: Sequence[str], rng: random.Random) -> str:
    beliefs = []
    for concept in concepts:
        found = find_topic(concept)
        if found is None:
            continue
        kb, topic_id = found
        for item in kb.topic(topic_id).misconceptions:
            beliefs.append(_as_belief(item.description))
    if not beliefs:
        for kb in shipped_domains().values():
            beliefs += [
                _as_belief(m.description) for t in kb.domain.topics for m in t.misconceptions
            ]
    return rng.choice(beliefs) if beliefs else ""


def _as_belief(description: str) -> str:
    """The belief a misconception description states, as the learner would say it."""
    text = re.sub(
        r"^(believes|thinks|assumes|treats|expects)\s+(that\s+)?", "", description, flags=re.I
    )
    first = re.split(r"(?<=[.;])\s", text)[0].rstrip(".;")
    return first[:1].lower() + first[1:]


_FRAMING = re.compile(
    r"(let me|let's|here's|here is|which part|does that|try|now|fair enough)\b", re.I
)


def _attempt(reply: str, rng: random.Random) -> str:
    """A learner's try at the tutor's point: a clause of one of its sentences, in lower case."""
    said = [
        s
        for s in sentences(strip_blocks(reply))
        if "?" not in s and len(s.split()) >= 6 and not _FRAMING.match(s)
    ]
    if not said:
        return ""
    clause = re.split(r"[,;:]", rng.choice(said))[0]
    words = re.sub(r"[`*_$\\]", "", clause).split()[:14]
    return " ".join(words).lower().rstrip(".")
