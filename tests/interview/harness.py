"""Drive the real interview graph in a test: a real checkpointer, the offline engine (or any
model), answers in, state out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from tests.interview.resumes import RESUME
from tutorgraph.engines import offline_engine
from tutorgraph.interview.context import InterviewContext
from tutorgraph.interview.embeddings import EmbeddingSimilarity
from tutorgraph.interview.graph import InterviewGraph, compile_graph
from tutorgraph.interview.resume import parse_resume
from tutorgraph.interview.state import InterviewState
from tutorgraph.llm import Model


@dataclass
class Harness:
    model: Model = field(default_factory=offline_engine)
    graph: InterviewGraph = field(default_factory=lambda: compile_graph(InMemorySaver()))
    config: Any = field(default_factory=lambda: {"configurable": {"thread_id": "t"}})
    clock: float = 1_000_000.0
    similarity: EmbeddingSimilarity | None = None

    @property
    def context(self) -> InterviewContext:
        base = InterviewContext.for_model(self.model)
        return InterviewContext(
            model=base.model,
            evaluator=base.evaluator,
            similarity=self.similarity,
            clock=lambda: self.clock,
        )

    async def start(self, resume: str = RESUME, *, max_questions: int = 14) -> InterviewState:
        start = {
            "interview_id": "i",
            "user_id": None,
            "resume_id": "r",
            "resume_structured": parse_resume(resume),
            "role": "Backend engineer",
            "level": "mid",
            "max_questions": max_questions,
        }
        await self.graph.ainvoke(start, self.config, context=self.context)  # type: ignore[arg-type]
        await self.graph.ainvoke(
            Command(resume={"kind": "join"}), self.config, context=self.context
        )
        return await self.state()

    async def answer(self, *texts: str) -> InterviewState:
        for text in texts:
            resume = {"kind": "answer", "text": text}
            await self.graph.ainvoke(Command(resume=resume), self.config, context=self.context)
        return await self.state()

    async def state(self) -> InterviewState:
        return cast(InterviewState, (await self.graph.aget_state(self.config)).values)

    async def waiting(self) -> bool:
        return bool((await self.graph.aget_state(self.config)).interrupts)


GOOD = (
    "The hardest part was the solver timing out on busy days, because it explored too many "
    "routes, so I split the city into zones and cut solve time from 90 to 8 seconds, which "
    "meant drivers got routes before 7am. I measured it over two weeks."
)


def interviewer_lines(state: InterviewState, node: str | None = None) -> list[str]:
    return [
        m["text"]
        for m in state["conversation_history"]
        if m["role"] == "interviewer" and (node is None or m["node"] == node)
    ]
