"""With a model server the interview's nodes ask for structured outputs: the model's wording is
what the candidate reads, its intent classification routes `decide`, and its scorecard keeps
only evidence the transcript really contains."""

from __future__ import annotations

from tests.interview.harness import GOOD, Harness
from tutorgraph.interview.schemas import IntentOutput, ScorecardOutput, ScoreOutput, Utterance
from tutorgraph.llm.scripted import ScriptedEngine


def score(value: int, *evidence: str) -> ScoreOutput:
    return ScoreOutput(score=value, summary="from the model", evidence=list(evidence))


async def test_the_models_lines_intents_and_scorecard_are_used_and_checked() -> None:
    model = ScriptedEngine()
    h = Harness(model=model)
    model.enqueue_structured(
        Utterance(text="Hi Priya! Glad you could make it."),
        Utterance(text="Tell me about the toughest bug in Route planner."),
    )
    state = await h.start()
    assert [m["text"] for m in state["conversation_history"]] == [
        "Hi Priya! Glad you could make it.",
        "Tell me about the toughest bug in Route planner.",
    ]
    model.enqueue_structured(
        IntentOutput(type="no_intent", confidence=0.9),
        Utterance(text="Thanks. On to Log search."),
        Utterance(text="How did you design Log search?"),
    )
    state = await h.answer(GOOD)
    assert state["conversation_history"][-1]["text"] == "How did you design Log search?"
    assert state["questions_asked"][-1]["resume_anchor"] == "project_2"

    invented = "\u201cI single-handedly rewrote the kernel\u201d"
    real = f"\u201c{GOOD.split(',')[0]}\u201d"
    model.enqueue_structured(
        IntentOutput(type="stop", confidence=0.95),  # "I'm wiped" reads as a stop to this model
        ScorecardOutput(
            overall=score(70),
            communication=score(80, real),
            technical=score(60, invented),
            problem_solving=score(75, real, invented),
            code_quality=ScoreOutput(score=None, summary="no code"),
            strengths=["Clear story"],
            weaknesses=[],
            recommendations=["Quantify more"],
        ),
        Utterance(text="Thanks, that's all."),
    )
    state = await h.answer("honestly I'm wiped")
    card = state["scorecard"]
    assert card is not None and state["conversation_history"][-1]["text"] == "Thanks, that's all."
    assert card["communication"]["evidence"] == [real]
    assert card["problem_solving"]["evidence"] == [real]  # the invented quote is dropped
    assert invented not in " ".join(card["technical"]["evidence"])  # the computed evidence
    assert card["strengths"] == ["Clear story"]
    assert model.pending == 0
