"""The evaluation harness: scenarios load (and bad ones are named), each check reads a
transcript the way its name says, layers 0-1 flag what they should, the judges score through the
model interface (retrying, and 'not scored' offline), and the CLI runs, compares and reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tutorgraph.cli import app
from tutorgraph.errors import InputError, ProviderUnavailable
from tutorgraph.evals.checks import CheckContext, pedagogy, run_expectations
from tutorgraph.evals.judges import judge
from tutorgraph.evals.layers import behaviour, behaviour_checks, format_safety
from tutorgraph.evals.runner import ToolRecord, Transcript, TurnRecord
from tutorgraph.evals.scenario import PERSONA_KINDS, Scenario, load_scenarios
from tutorgraph.llm import OfflineEngine, ScriptedEngine

SQRT = (
    "_(Source: Self-attention › Scaled dot-product attention › "
    "Why divide by the square root of d_k)_"
)
QUIZ = '<quiz>{"question": "Why scale?", "options": ["a", "b"], "correct_index": 0}</quiz>'
CONTEXT = CheckContext(
    titles={"self-attention": "Self-attention", "lora-parameter-efficient": "LoRA"},
    course_titles=["Modern Machine Learning"],
)


def scenario(**expect: object) -> Scenario:
    return Scenario.model_validate(
        {
            "id": "t",
            "title": "t",
            "lesson": "self-attention",
            "persona": {"kind": "confusion_recovery"},
            "turns": ["why sqrt(d_k)?", "i don't get it", "just tell me"],
            **expect,
        }
    )


def transcript(*replies: str, learner: tuple[str, ...] = ()) -> Transcript:
    said = learner or ("why sqrt(d_k)?", "i don't get it", "just tell me")
    return Transcript(
        lesson="self-attention",
        mode="default",
        explore=False,
        engine="test",
        turns=[TurnRecord(learner=q, reply=r) for q, r in zip(said, replies, strict=False)],
    )


def test_the_shipped_scenarios_cover_the_personas_and_lessons() -> None:
    scenarios = load_scenarios()
    assert len(scenarios) >= 40
    assert {s.persona.kind for s in scenarios} == set(PERSONA_KINDS)
    lessons = {s.lesson for s in scenarios if not s.explore}
    assert len(lessons) == 13 and any(s.explore for s in scenarios)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"expect": [{"check": "grounded", "turn": 9}]}, "beyond the script"),
        ({"expect": [{"check": "heading", "turn": 1}]}, "needs any"),
        ({"expect": [{"check": "vibes", "turn": 1}]}, "expect.0.check"),
        ({"id": "other"}, "differs from the file name"),
    ],
)
def test_a_bad_scenario_file_is_named_with_what_is_wrong(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    raw = {
        "id": "bad",
        "title": "t",
        "lesson": "self-attention",
        "persona": {"kind": "beginner"},
        "turns": ["hi"],
        **change,
    }
    (tmp_path / "bad.yaml").write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(InputError, match=message) as raised:
        load_scenarios(tmp_path)
    assert "bad.yaml" in str(raised.value)


def test_expectations_read_citations_follow_ups_and_leaks() -> None:
    chosen = scenario(
        expect=[
            {"check": "heading", "turn": 1, "any": ["Why divide by the square root of d_k"]},
            {"check": "same_concept", "turn": 2, "as_turn": 1},
            {"check": "simpler", "turn": 2, "than_turn": 1},
            {"check": "no_reveal", "turn": 2, "answer": "8"},
            {"check": "reveals", "turn": 3, "any": ["8"]},
            {"check": "asks_question", "turn": 3},
        ]
    )
    good = transcript(
        "With $d_k = 64$ the scores have a standard deviation of $\\sqrt{d_k}$, so softmax "
        f"saturates and $\\nabla$ vanishes.\n{SQRT}",
        f"Big scores make one weight win everything.\n{SQRT}\n\nWhat would break?",
        f"It is 8.\n{SQRT}\n\n{QUIZ}",
    )
    assert all(r.passed for r in run_expectations(chosen, good, CONTEXT))
    bad = transcript(
        f"The answer is 8.\n{SQRT}",
        "I couldn't find that, and I won't guess.",
        "Sure.",
    )
    results = {r.name: r.passed for r in run_expectations(chosen, bad, CONTEXT)}
    assert results == {
        "heading": True,
        "same_concept": False,
        "simpler": False,
        "no_reveal": True,
        "reveals": False,
        "asks_question": False,
    }


def test_pedagogy_flags_a_confused_learner_who_gets_the_same_again() -> None:
    same = f"Long technical sentence with $QK^\\top / \\sqrt{{d_k}}$ and more words.\n{SQRT}"
    chat = transcript(same, same)
    [result] = pedagogy(chat)
    assert result.name == "confusion_gets_simpler" and not result.passed


def test_format_safety_catches_invented_links_bad_cards_and_plain_choices() -> None:
    chat = transcript(
        "See https://made.up/paper for more.\n\n<quiz>{not json}</quiz>",
        "Which is right?\nA) scale\nB) shift\n\n"
        '<resource>{"title": "R", "url": "https://ok.example/r"}</resource>',
        '<resource>{"title": "R", "url": "https://ok.example/r"}</resource>',
    )
    chat.turns[1].tools.append(
        ToolRecord("get_curated_resources", {}, {"url": "https://ok.example/r"})
    )
    failed = {r.name for r in format_safety(chat, course_text="") if not r.passed}
    assert failed == {
        "no_fabricated_urls",
        "valid_quiz",
        "no_plaintext_choices",
        "no_duplicate_resources",
    }


def test_layer_0_measures_the_rhythm() -> None:
    chat = transcript("Plain.", "Plain too.", "Plain once more.", learner=("a", "b", "c"))
    measured = behaviour(chat)
    failed = {r.name for r in behaviour_checks(chat, measured) if not r.passed}
    assert failed == {
        "layer0_asks_questions",
        "layer0_modalities",
        "layer0_uses_tools",
        "layer0_continuity",
    }
    assert measured.modalities == [] and measured.tool_calls == {}


async def test_judges_are_not_scored_offline_and_scored_by_a_model() -> None:
    chosen, chat = scenario(), transcript(f"Reply.\n{SQRT}")
    offline = await judge(OfflineEngine(), chosen, chat, "outcome")
    assert not offline.scored and "not scored" in offline.note

    model = ScriptedEngine()
    criterion = {"score": 4, "reason": "quotes the learner"}
    model.enqueue_structured(
        ProviderUnavailable("busy"),  # retried
        {
            name: criterion
            for name in (
                "learning_arc",
                "conversational_craft",
                "technical_accuracy",
                "intellectual_engagement",
                "adaptive_responsiveness",
            )
        },
    )
    scored = await judge(model, chosen, chat, "outcome")
    assert scored.scored and scored.scores["learning_arc"] == 4


def test_the_cli_runs_compares_and_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "TUTORGRAPH_CONTENT_DIR", str(Path(__file__).resolve().parents[2] / "content")
    )
    runner = CliRunner()
    result_file = tmp_path / "run.json"
    ran = runner.invoke(
        app,
        [
            "eval",
            "run",
            "--scratch",
            "--scenario",
            "self-attention-confused-scaling",
            "--out",
            str(result_file),
        ],
    )
    assert ran.exit_code == 0, ran.output
    assert "layers 0-1 pass rate" in ran.output
    stored = json.loads(result_file.read_text())
    assert stored["scenarios"][0]["id"] == "self-attention-confused-scaling"
    assert len(stored["scenarios"][0]["transcript"]["turns"]) >= 4

    compared = runner.invoke(app, ["eval", "compare", str(result_file), str(result_file)])
    assert compared.exit_code == 0 and "check `heading`" in compared.output
    report = tmp_path / "report.html"
    written = runner.invoke(app, ["eval", "report", str(result_file), "--out", str(report)])
    assert written.exit_code == 0 and "<svg" in report.read_text()
    alone = runner.invoke(app, ["eval", "compare", str(result_file)])
    assert alone.exit_code != 0
