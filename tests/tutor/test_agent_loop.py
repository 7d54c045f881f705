from __future__ import annotations

import json
from typing import Any

from tutorgraph.errors import ProviderUnavailable
from tutorgraph.llm import (
    ErrorEvent,
    Finish,
    Message,
    ScriptedEngine,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    ToolSpec,
)
from tutorgraph.tutor.agent_loop import MAX_STEPS, AgentEvent, run_agent
from tutorgraph.tutor.prompts import STEP_LIMIT_NOTICE, TRUNCATION_NOTICE

TOOLS = [ToolSpec(name="search_course", description="Search the course.")]
MESSAGES = [Message.system("You tutor."), Message.user("Why scale by sqrt(d_k)?")]


class RecordingExecutor:
    """Answers every tool call with a small result and remembers the calls."""

    def __init__(self) -> None:
        self.calls: list[ToolCall] = []

    async def execute(self, call: ToolCall) -> dict[str, Any]:
        self.calls.append(call)
        return {"results": [{"heading_path": ["Scaling"], "text": "Divide by sqrt."}]}


def search_call(n: int = 1) -> ToolCallEvent:
    return ToolCallEvent(
        call=ToolCall(id=f"call_{n}", name="search_course", arguments='{"query": "sqrt"}')
    )


async def run(engine: ScriptedEngine, executor: RecordingExecutor) -> list[AgentEvent]:
    return [
        event
        async for event in run_agent(
            model=engine, messages=MESSAGES, tools=TOOLS, executor=executor, agent="tutor"
        )
    ]


async def test_a_tool_round_then_an_answer() -> None:
    engine = ScriptedEngine()
    engine.enqueue_chat(
        ["Let me look. ", search_call(), Finish(reason="tool_calls")],
        ["Because the ", "variance grows."],
    )
    executor = RecordingExecutor()

    events = await run(engine, executor)

    assert [type(e).__name__ for e in events] == [
        "TextDelta",
        "ToolCallEvent",
        "ToolResultEvent",
        "TextDelta",
        "TextDelta",
    ]
    assert events[2] == ToolResultEvent(
        name="search_course",
        result={"results": [{"heading_path": ["Scaling"], "text": "Divide by sqrt."}]},
        call_id="call_1",  # the result names the call it answers
    )
    assert [c.id for c in executor.calls] == ["call_1"]
    first, second = engine.requests
    assert first.tools == TOOLS and first.agent == "tutor"
    assistant, tool = second.messages[-2:]
    assert assistant.role == "assistant" and assistant.content == "Let me look. "
    assert [c.name for c in assistant.tool_calls] == ["search_course"]
    assert tool.role == "tool" and tool.tool_call_id == "call_1" and tool.name == "search_course"
    assert json.loads(tool.content or "")["results"][0]["text"] == "Divide by sqrt."


async def test_length_appends_a_truncation_notice_and_stops() -> None:
    engine = ScriptedEngine()
    engine.enqueue_chat(["The answer is", Finish(reason="length")])

    events = await run(engine, RecordingExecutor())

    assert events == [TextDelta(delta="The answer is"), TextDelta(delta=TRUNCATION_NOTICE)]
    assert len(engine.requests) == 1


async def test_the_loop_stops_after_five_model_rounds() -> None:
    engine = ScriptedEngine()
    engine.enqueue_chat(*[[search_call(n), Finish(reason="tool_calls")] for n in range(1, 8)])
    executor = RecordingExecutor()

    events = await run(engine, executor)

    assert MAX_STEPS == 5
    assert len(engine.requests) == 5
    assert len(executor.calls) == 4  # the fifth round's request is not executed
    assert len([e for e in events if isinstance(e, ToolResultEvent)]) == 4
    assert events[-1] == TextDelta(delta=STEP_LIMIT_NOTICE.format(steps=5))
    assert engine.pending == 2


async def test_parallel_tool_calls_each_get_a_result_in_order() -> None:
    engine = ScriptedEngine()
    engine.enqueue_chat([search_call(1), search_call(2), Finish(reason="tool_calls")], "Done.")
    executor = RecordingExecutor()

    events = await run(engine, executor)

    assert [type(e).__name__ for e in events] == [
        "ToolCallEvent",
        "ToolCallEvent",
        "ToolResultEvent",
        "ToolResultEvent",
        "TextDelta",
    ]
    tool_messages = [m for m in engine.requests[1].messages if m.role == "tool"]
    assert [m.tool_call_id for m in tool_messages] == ["call_1", "call_2"]


async def test_a_provider_failure_becomes_one_error_event() -> None:
    engine = ScriptedEngine()
    engine.enqueue_chat(["Half an ans", ProviderUnavailable("the model server is down")])

    events = await run(engine, RecordingExecutor())

    assert events == [
        TextDelta(delta="Half an ans"),
        ErrorEvent(message="the model server is down"),
    ]
