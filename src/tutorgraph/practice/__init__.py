"""Practice rounds: questions from one knowledge-base topic, answered one at a time, graded, with
mastery tracked. Rounds are stored (QuizSession / QuizQuestion / QuizAnswer) and resume.

A round is on a domain its learner may see (`knowledge.visibility`); once they may no longer see
it (removed from a shared course, the course made private), its rounds are gone for them too.

- `rounds`: choosing a round's questions, loading it, asking a question again;
- `answers`: grading and storing an answer;
- `views`: a round as the API and the page show it;
- `explanations`: another way into a missed question."""

from __future__ import annotations

from tutorgraph.practice.answers import event_source, grading_request, save_answer, submit_answer
from tutorgraph.practice.explanations import Explanation, another_explanation
from tutorgraph.practice.rounds import (
    MAX_ATTEMPTS,
    RETRYABLE,
    ROUND_LENGTH,
    Progress,
    can_retry,
    load_round,
    may_ask_again,
    my_rounds,
    open_round,
    question_label,
    queue_again,
    retry_question,
    start_round,
)
from tutorgraph.practice.views import AnsweredOut, QuestionOut, RoundOut, round_out, view_round

__all__ = [
    "MAX_ATTEMPTS",
    "RETRYABLE",
    "ROUND_LENGTH",
    "AnsweredOut",
    "Explanation",
    "Progress",
    "QuestionOut",
    "RoundOut",
    "another_explanation",
    "can_retry",
    "event_source",
    "grading_request",
    "load_round",
    "may_ask_again",
    "my_rounds",
    "open_round",
    "question_label",
    "queue_again",
    "retry_question",
    "round_out",
    "save_answer",
    "start_round",
    "submit_answer",
    "view_round",
]
