"""The offline intent classifier's confidences, read from `parameters.yaml` beside this module,
each with its provenance (`tutorgraph.parameter_files`).

The cue table (`intent.CUES`) keeps its regular expressions in code; each cue names a strength
(`CueStrength`) whose confidence is a parameter here, so the numbers are tuned in one place.
The spec's 0.7 above which an intent is obeyed (`intent.ACTIVE_CONFIDENCE`) is a definition and
stays in code.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from tutorgraph.parameter_files import (
    ParameterFile,
    ParameterSection,
    ParameterSet,
    load_parameter_file,
)

PARAMETERS_PATH = Path(__file__).with_name("parameters.yaml")
HEADER = """\
The offline interview intent classifier's confidences, with where each value came from.
Schema and meaning: src/tutorgraph/interview/parameters.py; the cues: interview/intent.py.
All are hand-set (decision 0029); its development sets measure fit, only intent_labels_final
measures generalisation. Change one by hand with a new date, procedure and split.
"""

CueStrength = Literal["weak", "fair", "good", "strong", "very_strong", "certain"]


def _confidence(description: str) -> Any:
    return Field(ge=0.0, le=1.0, description=description)


class CueStrengths(ParameterSection):
    """The confidence of a cue of each strength, before the sentence's adjustments."""

    weak: float = _confidence("A word that often means the intent but often does not ('stop').")
    fair: float = _confidence("A cue that needs its context ('ready').")
    good: float = _confidence("A cue that usually means the intent.")
    strong: float = _confidence("A cue that means the intent in a request.")
    very_strong: float = _confidence("A phrase that is the intent in a request or on its own.")
    certain: float = _confidence("A set phrase that is the intent ('what do you mean?').")


class SentenceAdjustments(ParameterSection):
    """How a cue's confidence moves with the sentence and the turn around it."""

    narrative_penalty: float = _confidence(
        "Subtracted in a narrative sentence ('we had to stop the pipeline') or a hypothetical."
    )
    unframed_penalty: float = _confidence(
        "Subtracted when a cue that needs a frame has none (no request frame, not a short turn)."
    )
    framed_last_bonus: float = _confidence(
        "Added for a framed request in the last sentence of a long turn."
    )
    short_turn_bonus: float = _confidence("Added in a short turn (not narrative).")
    tiny_turn_bonus: float = _confidence("Added in a tiny turn ('stop', 'ok next', 'bye').")
    short_turn_words: int = Field(ge=1, description="Words up to which a turn is short.")
    tiny_turn_words: int = Field(ge=1, description="Words up to which a turn is tiny.")
    most_confidence: float = _confidence("The highest confidence the classifier gives.")
    intent_from: float = _confidence(
        "The best cue's confidence below which the turn has no intent."
    )
    empty_turn_confidence: float = _confidence("Confidence of no_intent for an empty turn.")


class IntentParameters(ParameterSet):
    """Every tunable value of the offline intent classifier."""

    cue_strengths: CueStrengths
    sentences: SentenceAdjustments


def load_intent_parameters(path: Path = PARAMETERS_PATH) -> ParameterFile[IntentParameters]:
    """The parameter file at `path`, checked (raises ParameterFileError)."""
    return load_parameter_file(path, IntentParameters)


@cache
def intent_parameters() -> IntentParameters:
    """The shipped parameters, read once."""
    return load_intent_parameters().values
