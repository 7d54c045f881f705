"""Runs tutor turns the way the product does (the real agent loop, tools, prompts and context
built from the database), without streaming to a client, and records a transcript: each turn's
learner message, the tutor's reply, and every tool call with its arguments and result."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import select

from tutorgraph.content.retrieval import SearchIndexes
from tutorgraph.errors import NotFoundError
from tutorgraph.llm import (
    ErrorEvent,
    Message,
    Model,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
)
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.store.models import Lesson
from tutorgraph.tutor.agent_loop import run_agent
from tutorgraph.tutor.context import (
    Mode,
    TutorContext,
    build_explore_context,
    build_lesson_context,
)
from tutorgraph.tutor.offline_tutor import EXPLORE_AGENT, TUTOR_AGENT
from tutorgraph.tutor.prompts import select_prompt
from tutorgraph.tutor.tool_handlers import ToolExecutor
from tutorgraph.tutor.tools import tools_for


@dataclass(frozen=True)
class ToolRecord:
    name: str
    arguments: dict[str, Any]
    result: Any


@dataclass
class TurnRecord:
    learner: str
    reply: str
    tools: list[ToolRecord] = field(default_factory=list)
    error: str | None = None

    def called(self, name: str) -> list[ToolRecord]:
        return [t for t in self.tools if t.name == name]


@dataclass
class Transcript:
    lesson: str
    mode: Mode
    explore: bool
    engine: str
    turns: list[TurnRecord] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def history(self) -> list[Message]:
        """The conversation as the product stores it: learner and tutor text, no tool rounds."""
        messages: list[Message] = []
        for turn in self.turns:
            messages += [Message.user(turn.learner), Message.assistant(turn.reply)]
        return messages


class TutorRunner:
    """One tutor on one database: contexts per lesson and mode, and turns through the loop."""

    def __init__(
        self,
        *,
        settings: Settings,
        database: Database,
        model: Model,
        ablate: Sequence[str] = (),
    ) -> None:
        self.settings = settings
        self.database = database
        self.model = model
        self.ablate = tuple(ablate)
        self.indexes = SearchIndexes(settings.index_dir)
        self.tools = tools_for(settings.search)

    def context(self, *, lesson: str, mode: Mode, explore: bool) -> TutorContext:
        with self.database.session() as session:
            if explore:
                return build_explore_context(session=session, user=None, mode=mode)
            row = session.scalar(select(Lesson).where(Lesson.slug == lesson))
            if row is None:
                raise NotFoundError(f"no lesson {lesson!r} in the database (seed the content)")
            return build_lesson_context(session=session, lesson=row, user=None, mode=mode)

    async def turn(self, context: TutorContext, history: list[Message], text: str) -> TurnRecord:
        """One learner message and the tutor's whole reply, tool rounds included."""
        names = [tool.name for tool in self.tools]
        system = ablated(select_prompt(context, names), self.ablate)
        messages = [Message.system(system), *history, Message.user(text)]
        executor = ToolExecutor(
            context=context,
            database=self.database,
            indexes=self.indexes,
            search=self.settings.search,
            allowed=names,
        )
        record = TurnRecord(learner=text, reply="")
        pending: list[ToolCallEvent] = []
        parts: list[str] = []
        async for event in run_agent(
            model=self.model,
            messages=messages,
            tools=self.tools,
            executor=executor,
            agent=EXPLORE_AGENT if context.exploration_mode else TUTOR_AGENT,
            inputs=context,
        ):
            if isinstance(event, TextDelta):
                parts.append(event.delta)
            elif isinstance(event, ToolCallEvent):
                pending.append(event)
            elif isinstance(event, ToolResultEvent):
                call = next((p for p in pending if p.call.name == event.name), None)
                if call is not None:
                    pending.remove(call)
                record.tools.append(
                    ToolRecord(
                        event.name, _arguments(call.call.arguments if call else ""), event.result
                    )
                )
            elif isinstance(event, ErrorEvent):
                record.error = event.message
        record.reply = "".join(parts)
        return record


def ablated(prompt: str, drop: Sequence[str]) -> str:
    """The prompt without the sections whose title contains one of `drop` ("principles",
    "rhythm", "reference", "curriculum", "images", "formats"...): for ablation runs."""
    if not drop:
        return prompt
    sections = re.split(r"\n\n(?=# )", prompt)
    kept = [s for s in sections if not any(d.lower() in s.splitlines()[0].lower() for d in drop)]
    return "\n\n".join(kept)


def _arguments(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return {"_raw": raw}
    return value if isinstance(value, dict) else {"_raw": raw}
