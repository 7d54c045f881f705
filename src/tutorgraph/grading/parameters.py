"""The offline grader's thresholds, weights and caps, read from `parameters.yaml` beside this
module (and `calibration.json`, the lexical model's weights).

Each value in the file says where it came from (`tutorgraph.parameter_files`): hand-set, and on
what evidence, or fitted by `tutorgraph calibrate grading` (cross-validation on the development
half of the learner-answers benchmark, a grid whose per-point results are kept in
`calibration_runs/`). The code reads every tunable value from these objects; the regular
expressions and definitions (the error taxonomy's 0.8, the grade values) stay in code.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from pydantic import Field, model_validator

from tutorgraph.parameter_files import (
    ParameterFile,
    ParameterSection,
    ParameterSet,
    load_parameter_file,
    share,
)

PARAMETERS_PATH = Path(__file__).with_name("parameters.yaml")
HEADER = """\
The offline grader's thresholds, weights and caps, with where each value came from.
Schema and meaning: src/tutorgraph/grading/parameters.py. Fitted values: `tutorgraph calibrate
grading --write` rewrites them (and their provenance) from cross-validation on the development
half of benchmarks/learner_answers; its per-point results are in calibration_runs/. A hand-set
value is changed by hand, with a new date, procedure and split, and a decision record.
"""

Share = float  # a value in [0, 1]


class ScoringParameters(ParameterSection):
    """How the offline grader turns its readings into the three criteria (`offline.py`)."""

    lexical_share: Share = share(
        "With a rubric: the share of correctness the lexical model's P(correct) gives; the rest "
        "is key-point coverage."
    )
    focus_share: Share = Field(
        gt=0.0,
        le=1.0,
        description="With a rubric: correctness is scaled by focus, full once this share of the "
        "answer's new ideas are the reference's, the points' or their phrasings'.",
    )
    misconception_cap: Share = share(
        "Correctness an answer standing on a wrong idea (a stated misconception, or a graded "
        "wrong example near it) keeps at most."
    )
    wrong_idea_completeness: Share = share(
        "With a rubric: factor on completeness when the answer stands on a wrong idea."
    )
    denial_min_share: Share = share(
        "Without a rubric: share of a reference sentence an answer must say for a flipped word "
        "in it to deny the sentence."
    )
    denial_factor: Share = share(
        "Without a rubric: factor on correctness when the answer denies a reference sentence."
    )
    adequate_words: int = Field(
        ge=1, description="With a rubric: content words at which an answer's length is adequate."
    )
    rambling_words: int = Field(
        ge=1, description="With a rubric: content words past which an answer counts as rambling."
    )
    rambling_factor: Share = share("Factor on length adequacy for a rambling answer.")
    clarity_at_no_coverage: Share = share(
        "With a rubric: clarity is adequacy x (this + the rest x coverage)."
    )
    clarity_when_wrong: Share = share(
        "With a rubric: factor on clarity when the answer states a misconception or denies a point."
    )
    adequacy_share: Share = share(
        "Without a rubric: clarity's weight on length adequacy; the rest is precision."
    )
    adequate_share_of_reference: Share = Field(
        gt=0.0,
        le=1.0,
        description="Without a rubric: an answer is adequate at this share of the reference's "
        "content words (one word at least).",
    )
    rambling_reference_multiple: float = Field(
        ge=1.0,
        description="Without a rubric: an answer longer than this many times the reference's "
        "content words plus rambling_reference_margin is rambling.",
    )
    rambling_reference_margin: int = Field(
        ge=0, description="Without a rubric: see rambling_reference_multiple."
    )


class ErrorTypeParameters(ParameterSection):
    """The offline grader's error-type rules (`offline._error_type`), below the spec's 0.8."""

    near_miss_coverage: Share = share(
        "CARELESS: a near miss covers at least this share (and scores near_miss_score)."
    )
    near_miss_score: Share = share("CARELESS: the score a near miss reaches.")
    slip_coverage: Share = share(
        "CARELESS: a negation flip or opposite swap at this coverage or more is a slip."
    )
    on_the_point: Share = share(
        "Share of the answer's new content words that are the reference's or the points' from "
        "which it talks about the point (needed for CARELESS and PROCEDURAL)."
    )
    some_coverage: Share = share(
        "INCOMPLETE (no graded example near): at least this key-point coverage..."
    )
    own_ideas: Share = share(
        "...and at least this share of its new words the reference's; less is mostly its own "
        "(wrong) idea: CONCEPTUAL."
    )


class KeyPointParameters(ParameterSection):
    """When an answer makes a rubric point (`keypoints.assess_points`)."""

    full_share: Share = share(
        "Share of a phrasing's tokens (beyond the question's) that earns the point in full."
    )
    partial_share: Share = share(
        "Share of a long phrasing's tokens from which the point earns partial credit (the share)."
    )
    partial_min_tokens: int = Field(ge=1, description="Tokens a phrasing needs for partial credit.")
    point_denial: Share = share(
        "Share of a phrasing the answer must say there for a denial to contradict the point."
    )
    support_share: Share = share(
        "Share of a point the reference sentence that says most of it must say to count as "
        "one more phrasing."
    )


class MisconceptionParameters(ParameterSection):
    """When a misconception's description is read into an answer (`keypoints`, `offline`)."""

    described_up_to: Share = share(
        "Descriptions are read only for an answer making at most this share of the points (of "
        "the reference's new content words without a rubric)."
    )
    description_share: Share = share(
        "Share of a description's tokens (beyond the question's) the answer must say."
    )
    description_min_tokens: int = Field(
        ge=1, description="Tokens a description needs to be read at all."
    )


class ExampleParameters(ParameterSection):
    """How the graded example answers pull a score (`examples.read_examples`)."""

    neighbours: int = Field(ge=1, description="Nearest examples whose grades are averaged.")
    example_share: Share = share(
        "Most of correctness the examples' estimate may replace (at similar_at and above)."
    )
    similar_from: Share = share("Similarity of the nearest example from which examples weigh.")
    similar_at: Share = share(
        "Similarity at which the examples weigh fully, and a correct one vouches for the answer."
    )
    misconception_similarity: Share = share(
        "Similarity from which a wrong example near the answer says its wrong idea."
    )

    @model_validator(mode="after")
    def _range_is_ordered(self) -> ExampleParameters:
        if self.similar_at <= self.similar_from:
            raise ValueError("examples.similar_at must be above examples.similar_from")
        return self


class CertaintyParameters(ParameterSection):
    """How sure the offline grader is of its score (`uncertainty.py`)."""

    unsure_below: Share = share(
        "Certainty below which the feedback says so and mastery moves less."
    )
    disagreement_weight: float = Field(
        ge=0.0, description="Doubt per unit of |key-point coverage - lexical P(correct)|."
    )
    partial_weight: float = Field(ge=0.0, description="Doubt per share of half-said points.")
    unread_weight: float = Field(
        ge=0.0, description="Doubt per share of unread answer tokens beyond unread_free."
    )
    unread_free: Share = share("Share of the answer's tokens that may be unread without doubt.")
    reference_base: Share = share(
        "Without a rubric: certainty at the decision boundary (P = 0.5); it grows with "
        "2 x |P - 0.5|."
    )


class NonAnswerParameters(ParameterSection):
    """Answers with nothing to grade or diagnose (`features.is_echo`, `classify.is_non_attempt`)."""

    echo_share: Share = share(
        "An answer made only of question words that restates at least this share of them is "
        "an echo (no credit)."
    )
    attempt_words: int = Field(
        ge=1, description="An answer of fewer words is no real attempt (error type INCOMPLETE)."
    )
    hedged_attempt_words: int = Field(
        ge=1, description="A hedged answer ('not sure', 'no idea') of fewer words is none either."
    )


class ModelVerdictParameters(ParameterSection):
    """Model (judge) verdicts: error types when the judge gives none, and certainty."""

    wrong_correctness_below: Share = share(
        "Rule-based error type: correctness below this is CONCEPTUAL."
    )
    careless_score_from: Share = share(
        "Rule-based error type: a score from this with nothing missing is CARELESS."
    )
    run_spread_for_doubt: float = Field(
        gt=0.0,
        description="Standard deviation of the judge runs' scores at which a model verdict's "
        "certainty reaches 0.5.",
    )


class FeedbackParameters(ParameterSection):
    """The offline feedback's wording thresholds (`feedback.offline_feedback`)."""

    good_answer_from: Share = share("Score from which the feedback says 'Good answer'.")
    missing_points_below: Share = share("Score below which the missing points are listed.")
    points_listed: int = Field(ge=1, description="Most covered or missing points named.")


class CheckParameters(ParameterSection):
    """Answers graded by running their code or computing with their numbers (`checks/`)."""

    slip_credit: Share = share(
        "Credit of a worked value the answer misses through a known slip (the method was right)."
    )
    careless_from: Share = share(
        "Share of checks passed from which a failing answer's error type is CARELESS (a slip), "
        "not PROCEDURAL."
    )
    static_certainty: Share = share(
        "Most certainty of a grade whose code was read statically, not run (no sandbox)."
    )


class GradingParameters(ParameterSet):
    """Every tunable value of the offline grader, by the code that reads it."""

    scoring: ScoringParameters
    error_types: ErrorTypeParameters
    key_points: KeyPointParameters
    misconceptions: MisconceptionParameters
    examples: ExampleParameters
    certainty: CertaintyParameters
    non_answers: NonAnswerParameters
    model_verdicts: ModelVerdictParameters
    feedback: FeedbackParameters
    checks: CheckParameters


def load_grading_parameters(path: Path = PARAMETERS_PATH) -> ParameterFile[GradingParameters]:
    """The parameter file at `path`, checked (raises ParameterFileError)."""
    return load_parameter_file(path, GradingParameters)


@cache
def grading_parameters() -> GradingParameters:
    """The shipped parameters, read once."""
    return load_grading_parameters().values
