"""The offline intent classifier on requests and on answers that use the same words. (Its
accuracy on independently labelled sets is measured by `tutorgraph bench interview`.)"""

from __future__ import annotations

import pytest

from tutorgraph.interview.intent import ACTIVE_CONFIDENCE, classify


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("can we do a technical assessment", "technical_assessment"),
        ("Could you give me a coding problem?", "technical_assessment"),
        ("I used Redis for caching. Can we move on to something else though?", "change_topic"),
        ("what do you mean by impact here?", "clarify"),
        ("sorry, could you repeat the question", "clarify"),
        ("I think that's enough for today, let's stop the interview", "stop"),
        ("ok next question", "continue"),
        ("We had to stop the pipeline when the schema changed.", "no_intent"),
        ("I wrote unit tests for the assessment module.", "no_intent"),
        ("I moved on to a new team after the launch and switched to Go.", "no_intent"),
        ("We would skip the rows with invalid JSON and log them.", "no_intent"),
    ],
)
def test_classify(text: str, intent: str) -> None:
    guess = classify(text)
    obeyed = guess.type if guess.confidence > ACTIVE_CONFIDENCE else "no_intent"
    assert obeyed == intent, guess


def test_an_empty_turn_is_no_request() -> None:
    assert classify("   ").type == "no_intent"
