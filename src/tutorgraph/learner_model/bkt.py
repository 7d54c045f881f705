"""Bayesian Knowledge Tracing: the per-learner, per-concept mastery update, as pure functions."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

# Two hidden states (known / not known), four parameters (Corbett & Anderson 1995) and an optional
# forgetting rate (Khajah et al. 2016). Learn, guess and slip are the evaluator spec's numbers; the
# spec gives no initial mastery, so P_INIT is 0.3 (the middle of the 0.2-0.4 usually seeded for an
# unseen concept), and forgetting is off, as in standard BKT.
SPEC_P_INIT = 0.3
SPEC_P_LEARN = 0.1
SPEC_P_GUESS = 0.25
SPEC_P_SLIP = 0.10

Probability = Annotated[float, Field(ge=0.0, le=1.0)]


class BKTParams(BaseModel):
    """The parameters of one concept's BKT model; every one a probability."""

    model_config = ConfigDict(frozen=True)

    p_init: Probability = Field(default=SPEC_P_INIT, description="P(known) before any answer.")
    p_learn: Probability = Field(default=SPEC_P_LEARN, description="P(not known -> known).")
    p_guess: Probability = Field(default=SPEC_P_GUESS, description="P(correct | not known).")
    p_slip: Probability = Field(default=SPEC_P_SLIP, description="P(incorrect | known).")
    p_forget: Probability = Field(default=0.0, description="P(known -> not known).")


def _check_probability(name: str, value: float) -> None:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value}")


def predict_correct(p_known: float, params: BKTParams) -> float:
    """P(the next answer is correct) given P(known) before it."""
    _check_probability("p_known", p_known)
    return p_known * (1.0 - params.p_slip) + (1.0 - p_known) * params.p_guess


def posterior(p_known: float, correct: bool, params: BKTParams) -> float:
    """P(known | this answer): Bayes' rule on one correct or incorrect observation."""
    _check_probability("p_known", p_known)
    if correct:
        known = p_known * (1.0 - params.p_slip)
        evidence = known + (1.0 - p_known) * params.p_guess
    else:
        known = p_known * params.p_slip
        evidence = known + (1.0 - p_known) * (1.0 - params.p_guess)
    # An answer the model calls impossible (e.g. a correct one with guess 0 from p_known 0) is no
    # evidence either way.
    return known / evidence if evidence > 0.0 else p_known


def transition(p_known: float, params: BKTParams) -> float:
    """P(known) at the next opportunity: learn if not known, forget if known."""
    _check_probability("p_known", p_known)
    return p_known * (1.0 - params.p_forget) + (1.0 - p_known) * params.p_learn


def update(p_known: float, correct: bool, params: BKTParams) -> float:
    """The mastery after one answer: condition on it, then allow learning (and forgetting)."""
    return transition(posterior(p_known, correct, params), params)


def update_with_score(p_known: float, score: float, params: BKTParams) -> float:
    """The mastery after a graded answer, reading a score in [0, 1] as a soft observation."""
    # Jeffrey's rule with the score as the belief that the answer was correct: the posterior is
    # score * P(known | correct) + (1 - score) * P(known | incorrect), then the usual transition.
    # Scores 1 and 0 give exactly update(..., True) and update(..., False); 0.5 is half of each.
    _check_probability("score", score)
    soft = score * posterior(p_known, True, params) + (1.0 - score) * posterior(
        p_known, False, params
    )
    return transition(soft, params)
