"""The interview graph, compiled for real with a checkpointer, driven by the offline engine: the
spec's testing recommendations (intent routing, dedup blocking a reworded question, exploring
each of three projects, comprehensive evaluation, sandbox signals changing `decide`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.interview.harness import GOOD, Harness, interviewer_lines
from tutorgraph.engines import offline_engine
from tutorgraph.interview import dedup, signals
from tutorgraph.interview.agents import INTERVIEWER_AGENT
from tutorgraph.interview.schemas import Utterance, UtteranceRequest
from tutorgraph.interview.state import Submission
from tutorgraph.llm import Message, OfflineEngine


async def test_the_first_turn_greets_then_asks_about_the_resume() -> None:
    h = Harness()
    state = await h.start()
    assert [m["node"] for m in state["conversation_history"]] == ["greeting", "question"]
    first = state["questions_asked"][0]
    assert first["source"] == "resume" and first["resume_anchor"] == "project_1"
    assert "Route planner" in first["text"]
    assert state["resume_exploration"]["project_1"]["aspects_covered"] == ["challenges"]
    assert await h.waiting()


async def test_a_technical_assessment_request_is_honoured_on_the_next_turn() -> None:
    h = Harness()
    await h.start()
    state = await h.answer("Hmm, can we do a technical assessment instead?")
    assert state["detected_intents"][-1]["type"] == "technical_assessment"
    assert state["detected_intents"][-1]["confidence"] > 0.7
    last = state["questions_asked"][-1]
    assert last["source"] == "knowledge_base" and last.get("topic_id")
    assert state["phase"] == "technical"
    assert state["active_user_request"] is None  # honoured, then cleared


async def test_stop_ends_with_the_evaluation_not_abruptly() -> None:
    h = Harness()
    await h.start()
    await h.answer(GOOD)
    state = await h.answer("Sorry, I need to go. Can we stop here?")
    nodes = [m["node"] for m in state["conversation_history"] if m["role"] == "interviewer"]
    assert nodes[-1] == "closing"
    assert state["scorecard"] is not None and "stop" in state["scorecard"]["ended_because"]
    assert not await h.waiting()


async def test_change_topic_and_clarify_are_routed() -> None:
    h = Harness()
    await h.start()
    state = await h.answer("What do you mean by that?")
    assert state["conversation_history"][-1]["node"] == "followup"
    assert "Route planner" in state["conversation_history"][-1]["text"]
    state = await h.answer("I'd rather not talk about this project, can we move on?")
    assert "project_1" in state["skipped_anchors"]
    assert state["questions_asked"][-1]["resume_anchor"] != "project_1"
    later = await h.answer(*[GOOD] * 6)
    assert all(q["resume_anchor"] != "project_1" for q in later["questions_asked"][2:])


async def test_a_thin_answer_gets_one_followup_then_the_interview_moves_on() -> None:
    h = Harness()
    await h.start()
    state = await h.answer("it was fine")
    assert state["conversation_history"][-1]["node"] == "followup"
    state = await h.answer("ok")
    assert [m["node"] for m in state["conversation_history"][-2:]] == ["transition", "question"]


class RewordingModel:
    """The offline engine, except that its second resume question rewords the first one, as a
    model that forgot what it asked would."""

    name = "rewording"
    supports_tools = False
    can_stream = False

    def __init__(self) -> None:
        self.inner: OfflineEngine = offline_engine()
        self.resume_calls = 0
        self.first = ""

    async def structured(
        self, schema: Any, messages: Sequence[Message], *, agent: str, inputs: Any = None
    ) -> Any:
        resume = isinstance(inputs, UtteranceRequest) and inputs.kind == "resume"
        if agent == INTERVIEWER_AGENT and resume:
            self.resume_calls += 1
            if self.resume_calls == 2:
                return Utterance(text=f"So, {self.first.lower()}")
        out = await self.inner.structured(schema, messages, agent=agent, inputs=inputs)
        if agent == INTERVIEWER_AGENT and self.resume_calls == 1 and not self.first:
            self.first = out.text
        return out

    def stream_chat(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


async def test_dedup_blocks_a_reworded_question_before_it_is_asked() -> None:
    model = RewordingModel()
    h = Harness(model=model)  # type: ignore[arg-type]
    state = await h.start()
    first = state["questions_asked"][0]["text"]
    state = await h.answer(GOOD)
    asked = [q["text"] for q in state["questions_asked"]]
    assert f"So, {first.lower()}" not in asked
    assert model.resume_calls == 3  # the reworded one was refused; the next target was asked
    assert dedup.check(
        f"So, {first.lower()}", anchor=None, aspect=None, asked=state["questions_asked"]
    )


def test_dedup_layers() -> None:
    asked = [
        {
            "id": "q1",
            "text": "What trade-offs did you make on Log search?",
            "source": "resume",
            "resume_anchor": "project_2",
            "aspect": "tradeoffs",
            "asked_at_turn": 1,
        }
    ]
    exact = dedup.check(
        "what trade-offs did you make on log search", anchor=None, aspect=None, asked=asked
    )  # type: ignore[arg-type]
    assert exact is not None and exact.layer == "exact"
    gate = dedup.check(
        "Which compromises shaped Log search?", anchor="project_2", aspect="tradeoffs", asked=asked
    )  # type: ignore[arg-type]
    assert gate is not None and gate.layer == "aspect"
    similar = dedup.check(
        "On Log search, what trade-offs did you make, looking back?",
        anchor="project_2",
        aspect="design",
        asked=asked,
    )  # type: ignore[arg-type]
    assert similar is not None and similar.layer == "similar"
    fresh = dedup.check(
        "How did you design Log search?", anchor="project_2", aspect="design", asked=asked
    )  # type: ignore[arg-type]
    assert fresh is None


async def test_three_projects_are_each_explored_on_different_aspects() -> None:
    h = Harness()
    await h.start()
    state = await h.answer(*[GOOD] * 12)
    exploration = state["resume_exploration"]
    for project in ("project_1", "project_2", "project_3"):
        assert exploration[project]["aspects_covered"], project
    pairs = [
        (q["resume_anchor"], q["aspect"])
        for q in state["questions_asked"]
        if q["source"] == "resume"
    ]
    assert len(pairs) == len(set(pairs))  # no anchor and aspect asked twice
    explored = sum(1 for a in exploration.values() if a["aspects_covered"])
    assert explored / len(exploration) >= 0.8


async def test_a_complete_interview_gets_a_comprehensive_scorecard() -> None:
    h = Harness()
    await h.start()
    state = await h.answer(*[GOOD] * 20)
    card = state["scorecard"]
    assert card is not None and not await h.waiting()
    transcript = " ".join(m["text"] for m in state["conversation_history"])
    for key in ("overall", "communication", "technical", "problem_solving", "code_quality"):
        assert key in card
    assert card["code_quality"]["score"] is None  # no code was run
    for key in ("communication", "problem_solving"):
        assert card[key]["score"] is not None and card[key]["evidence"]
        assert "zones" in " ".join(card[key]["evidence"])
        assert "cut solve time" in transcript
    assert card["technical"]["summary"].startswith("Graded against the knowledge base")
    assert card["strengths"] and card["recommendations"]
    assert "Route planner" in card["topics_covered"]


def run(outcome: str, at: float, code: str = "print(1)") -> Submission:
    return {
        "code": code,
        "outcome": outcome,
        "stdout": "",
        "stderr": "SyntaxError: bad",
        "duration_ms": 5,
        "at": at,
        "turn": 1,
    }


async def test_sandbox_signals_change_what_decide_does() -> None:
    calm, struggling = Harness(), Harness()
    for h in (calm, struggling):
        await h.start()
    box = struggling.context  # the same clock
    sandbox = (await struggling.state())["sandbox"]
    for i in range(3):
        sandbox = signals.with_submission(sandbox, run("syntax_error", box.clock() - 30 + i))
    await struggling.graph.aupdate_state(
        struggling.config, {"sandbox": sandbox}, as_node="question"
    )
    await struggling.graph.ainvoke(None, struggling.config, context=struggling.context)
    assert await struggling.waiting()
    assert {"struggling", "syntax_errors"} <= set(sandbox["signals"])

    after_calm = await calm.answer(GOOD)
    after_struggle = await struggling.answer(GOOD)
    assert after_calm["conversation_history"][-1]["node"] == "question"
    assert after_struggle["conversation_history"][-1]["node"] == "followup"
    assert "didn't compile" in after_struggle["conversation_history"][-1]["text"]
    again = await struggling.answer(GOOD)  # the same runs are not nudged about twice
    assert again["conversation_history"][-1]["node"] == "question"


def test_signal_table() -> None:
    now = 10_000.0
    assert signals.compute([run("ok", now)], now=now) == ["confident"]
    refactor = [run("ok", now - 20, "a"), run("ok", now - 10, "b")]
    assert signals.compute(refactor, now=now) == ["confident", "refactoring"]
    rapid = [run("error", now - 40 + i) for i in range(4)]
    assert signals.compute(rapid, now=now) == ["struggling", "rapid_iterations"]
    assert "idle" in signals.compute([run("ok", now - 400)], now=now)


async def test_the_interviewer_lines_come_from_the_resume() -> None:
    h = Harness()
    await h.start()
    state = await h.answer(*[GOOD] * 4)
    lines = " ".join(interviewer_lines(state, "question"))
    assert "OR-Tools" in lines or "Route planner" in lines
    assert "Lumen Analytics" in lines


async def test_with_embeddings_configured_dedup_asks_the_model_server(fake_openai: Any) -> None:
    from tutorgraph.content.embeddings import OpenAIEmbedder
    from tutorgraph.interview.embeddings import EmbeddingSimilarity
    from tutorgraph.settings import LLMSettings

    settings = LLMSettings(engine="openai", base_url=fake_openai.base_url, api_key="x")
    embedder = OpenAIEmbedder(settings, "embed-small")
    model = RewordingModel()
    h = Harness(model=model)  # type: ignore[arg-type]
    h.similarity = EmbeddingSimilarity(embedder)
    try:
        state = await h.start()
        first = state["questions_asked"][0]["text"]
        state = await h.answer(GOOD)
    finally:
        embedder.client.close()
    assert f"So, {first.lower()}" not in [q["text"] for q in state["questions_asked"]]
    assert model.resume_calls == 3
    embedded = [r for r in fake_openai.requests if r.get("model") == "embed-small"]
    assert embedded and first in embedded[0]["input"]
