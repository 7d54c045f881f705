"""Quiz cards leave the server without their answer, however the reply streams them, and are
graded through the API: in lesson chats and explore chats alike."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from tests.conftest import register_and_login
from tests.tutor.conftest import chat, explore, lesson_id, public_cards
from tutorgraph.llm import ScriptedEngine
from tutorgraph.settings import Settings
from tutorgraph.tutor.blocks import QuizBlock
from tutorgraph.tutor.quiz_grading import TRY_AGAIN
from tutorgraph.tutor.quiz_stream import QuizStream

CARD = {
    "id": "made-up",
    "question": "What does $\\sqrt{d_k}$ keep near 1 in `softmax(QK^T / sqrt(d_k))`?",
    "options": ["The variance of the scores", "The sum of the values", "The sequence length"],
    "correct_index": 0,
    "explanation": "Scores are sums of d_k unit-variance products.",
    "concept": "scaled-attention",
}
REPLY = f"Let's check.\n\n<quiz>{json.dumps(CARD)}</quiz>\n\nTake your time."
SECRETS = ("correct_index", "explanation", CARD["explanation"])


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


async def _filtered(deltas: list[str]) -> tuple[list[str], list[QuizBlock]]:
    kept: list[QuizBlock] = []

    async def register(block: QuizBlock) -> str:
        kept.append(block)
        return f"card-{len(kept)}"

    stream = QuizStream(register)
    out = [await stream.feed(delta) for delta in deltas]
    return [*out, stream.close()], kept


@pytest.mark.parametrize("size", [1, 2, 5, 6, 7, 13, 64, 10_000])
async def test_a_card_streamed_in_any_pieces_goes_out_without_its_answer(size: int) -> None:
    out, kept = await _filtered(_pieces(REPLY, size))
    text = "".join(out)
    assert not any(secret in chunk for chunk in out for secret in SECRETS)
    assert text.startswith("Let's check.\n\n<quiz>") and text.endswith("</quiz>\n\nTake your time.")
    assert public_cards(text) == [
        {"id": "card-1", "question": CARD["question"], "options": CARD["options"]}
    ]
    assert [block.correct_index for block in kept] == [0]  # handed over, kept server-side


async def test_unfinished_or_invalid_cards_are_dropped_and_other_text_passes() -> None:
    unfinished = '<quiz>{"question": "Q?", "options": ["a", "b"], "correct_index": 1'
    out, kept = await _filtered(["if a < b and <q", "uote> then ", unfinished])
    assert "".join(out) == "if a < b and <quote> then " and kept == []
    invalid = '<quiz>{"question": "Q?", "options": ["a"], "correct_index": 3}</quiz> after'
    out, kept = await _filtered([invalid])
    assert "".join(out) == " after" and kept == []


def scripted(client: TestClient, *replies: str) -> None:
    engine = ScriptedEngine()
    engine.enqueue_chat(*[_pieces(reply, 7) for reply in replies])
    client.app.state.model = engine  # type: ignore[attr-defined]


def _answer(client: TestClient, headers: dict[str, str], **body: object) -> dict[str, object]:
    response = client.post("/api/v1/tutor/quiz-answer", json=body, headers=headers)
    assert response.status_code == 200, response.text
    answer: dict[str, object] = response.json()
    return answer


def test_a_card_the_model_wrote_is_graded_by_the_server(
    client: TestClient, settings: Settings
) -> None:
    headers = register_and_login(client)
    lesson = lesson_id(settings)
    scripted(client, REPLY)
    stream = chat(client, headers, "Check me on scaling", lesson_id=lesson)
    assert not any(secret in json.dumps(stream.frames) for secret in SECRETS)
    card = public_cards(stream.text)[0]
    assert card["id"].startswith("chat-") and card["question"] == CARD["question"]
    stored = client.get(f"/api/v1/tutor/sessions/{stream.session_id}", headers=headers).json()
    assert stored["messages"][-1]["content"] == stream.text  # stored as shown: no answer

    ask = {"lesson_id": lesson, "session_id": stream.session_id, "quiz_id": card["id"]}
    wrong = _answer(client, headers, **ask, selected_index=2, why="longer sequences")
    assert (wrong["correct"], wrong["correct_index"], wrong["explanation"]) == (False, None, None)
    assert wrong["why"] == "longer sequences" and CARD["explanation"] not in str(wrong["feedback"])
    # a card the model wrote, on a concept the knowledge base lacks: nothing is known of its
    # options, so the plain fallback, and the reason is still quoted back
    assert wrong["parts"] == [
        {"said": None, "text": TRY_AGAIN},
        {
            "said": "longer sequences",
            "text": "That does not match a mistake this question is known for.",
        },
    ]
    right = _answer(client, headers, **ask, selected_index=0, why="  the   variance ")
    assert (right["correct"], right["correct_index"]) == (True, 0)
    assert right["why"] == "the variance" and right["explanation"] == CARD["explanation"]
    assert right["feedback"] == (
        f'Correct! {CARD["explanation"]} You said "the variance". That is the right reason.'
    )
    assert wrong["recorded"] is True and right["recorded"] is False  # the first answer counts
    assert wrong["mastery"] == {"concept": "scaled-attention", "before": 0.0, "after": 0.0}

    reopened = client.get(f"/api/v1/tutor/sessions/{stream.session_id}", headers=headers).json()
    assert reopened["quiz_answers"][card["id"]]["why"] == "the variance"
    intruder = register_and_login(client, email="eve@example.org")
    stolen = client.post(
        "/api/v1/tutor/quiz-answer", json={**ask, "selected_index": 0}, headers=intruder
    )
    assert stolen.status_code == 404


def test_an_explore_card_is_graded_without_a_lesson(client: TestClient) -> None:
    headers = register_and_login(client)
    scripted(client, REPLY.replace('"concept": "scaled-attention"', '"concept": ""'), "Hello!")
    stream = explore(client, headers, "Quiz me on attention")
    card = public_cards(stream.text)[0]
    ask = {"session_id": stream.session_id, "quiz_id": card["id"]}
    right = _answer(client, headers, **ask, selected_index=0, why="variance")
    assert right["correct"] is True and right["mastery"] is None  # no concept, no lesson
    reopened = client.get(f"/api/v1/explore/sessions/{stream.session_id}", headers=headers).json()
    assert reopened["quiz_answers"][card["id"]]["correct"] is True
    other = explore(client, headers, "hello")  # another chat of mine: not its card
    elsewhere = client.post(
        "/api/v1/tutor/quiz-answer",
        json={**ask, "session_id": other.session_id, "selected_index": 0},
        headers=headers,
    )
    assert elsewhere.status_code == 404


def test_a_quiz_is_due_again_after_two_replies_without_one() -> None:
    from tutorgraph.tutor.compose import quiz_due

    card = 'Quick check.\n\n<quiz>{"id": "q1"}</quiz>'
    assert not quiz_due(["an answer"])  # too early
    assert quiz_due(["an answer", "another"])
    assert not quiz_due([card, "an answer"])
    assert quiz_due([card, "an answer", "another"])  # before: never again after the first card
