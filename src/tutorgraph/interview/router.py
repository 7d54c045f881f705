"""`decide`, the only node that routes: a pure function of the structured signals in
`DecisionContext` (built read-only from the state by `context.decision_context`).

Priority order (the spec's, with the sandbox rule placed where the spec's "state awareness"
puts it, right after the candidate's own requests):

| # | rule | action |
|---|---|---|
| 0 | the interview has just started | greeting |
| 1 | an active request (confidence > 0.7): stop | evaluation (closing once evaluated) |
|   | technical_assessment | question (a technical one) |
|   | change_topic | transition (away from the current anchor) |
|   | clarify | followup (the question, rephrased) |
|   | continue | transition after an answered question, else question |
| 2 | the sandbox is active and shows struggling or syntax_errors | followup (a nudge) |
| 3 | coverage is sufficient, the question budget is spent, or nothing is left to ask | evaluation |
| 4 | last node: greeting -> question, transition -> question, followup -> transition | |
| 5 | a thin answer to a question (quality < THIN_ANSWER), no followup yet | followup |
| 6 | default | transition |
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tutorgraph.interview.intent import ACTIVE_CONFIDENCE
from tutorgraph.interview.state import Action, Intent, Phase, Signal

COVERAGE_TARGET = 0.8  # share of resume anchors explored before the evaluation
THIN_ANSWER = 0.35  # an answer below this quality gets a followup
MAX_FOLLOWUPS = 1  # followups in a row before moving on
SANDBOX_NUDGE: frozenset[Signal] = frozenset({"struggling", "syntax_errors"})


@dataclass(frozen=True)
class DecisionContext:
    turn_count: int
    phase: Phase
    last_node: str
    questions_asked: int  # primary questions (resume and technical), followups not counted
    max_questions: int
    anchors_total: int
    anchors_explored: int
    resume_left: bool  # an anchor with an aspect still to ask, not skipped
    technical_due: int  # technical questions still to ask before the evaluation
    technical_left: bool  # the knowledge base still has a question for the resume's skills
    active_request: Intent | None
    request_confidence: float
    last_answer_quality: float | None
    followups_in_a_row: int
    sandbox_active: bool
    sandbox_signals: tuple[Signal, ...] = field(default_factory=tuple)
    evaluated: bool = False
    sandbox_nudged: bool = False  # the last followup already answered these signals

    @property
    def coverage(self) -> float:
        return self.anchors_explored / self.anchors_total if self.anchors_total else 1.0


@dataclass(frozen=True)
class Decision:
    action: Action
    reason: str


def decide(ctx: DecisionContext) -> Decision:
    if ctx.evaluated:
        return Decision("closing", "the evaluation is done")
    request = ctx.active_request if ctx.request_confidence > ACTIVE_CONFIDENCE else None
    if ctx.last_node == "initialize" and request != "stop":
        return Decision("greeting", "the interview has just started")
    if request is not None and request != "no_intent":
        return _honour(request, ctx)
    if ctx.sandbox_active and SANDBOX_NUDGE & set(ctx.sandbox_signals) and not ctx.sandbox_nudged:
        signals = ", ".join(s for s in ctx.sandbox_signals if s in SANDBOX_NUDGE)
        return Decision("followup", f"the sandbox shows {signals}")
    if _enough(ctx):
        return Decision("evaluation", _enough_reason(ctx))
    if ctx.last_node in ("greeting", "transition"):
        return Decision("question", f"a question follows the {ctx.last_node}")
    if ctx.last_node == "followup" or ctx.followups_in_a_row >= MAX_FOLLOWUPS:
        return Decision("transition", "the followup was answered")
    if (
        ctx.last_node == "question"
        and ctx.last_answer_quality is not None
        and ctx.last_answer_quality < THIN_ANSWER
    ):
        return Decision("followup", f"a thin answer (quality {ctx.last_answer_quality:.2f})")
    return Decision("transition", "the answer was enough; on to the next topic")


def _honour(request: Intent, ctx: DecisionContext) -> Decision:
    said = f"the candidate asked to {request.replace('_', ' ')}"
    if request == "stop":
        return Decision("evaluation", said)
    if request == "technical_assessment":
        return Decision("question", said)
    if request == "change_topic":
        return Decision("transition", said)
    if request == "clarify":
        return Decision("followup", said)
    # continue
    if ctx.last_node in ("question", "followup"):
        return Decision("transition", said)
    return Decision("question", said)


def _enough(ctx: DecisionContext) -> bool:
    if ctx.questions_asked >= ctx.max_questions:
        return True
    if not ctx.resume_left and not (ctx.technical_due and ctx.technical_left):
        return True
    return ctx.coverage >= COVERAGE_TARGET and (ctx.technical_due == 0 or not ctx.technical_left)


def _enough_reason(ctx: DecisionContext) -> str:
    if ctx.questions_asked >= ctx.max_questions:
        return f"the budget of {ctx.max_questions} questions is spent"
    if ctx.coverage >= COVERAGE_TARGET:
        return f"{ctx.anchors_explored} of {ctx.anchors_total} resume topics were explored"
    return "every topic the resume offers was asked about"
