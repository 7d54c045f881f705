"""The text layer's tunable values (how close words must be, how far a negation reaches), read
from `parameters.yaml` beside this module, each with its provenance (`tutorgraph.parameter_files`).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from pydantic import Field

from tutorgraph.parameter_files import (
    ParameterFile,
    ParameterSection,
    ParameterSet,
    load_parameter_file,
)

PARAMETERS_PATH = Path(__file__).with_name("parameters.yaml")
HEADER = """\
The text layer's tunable values, with where each value came from.
Schema and meaning: src/tutorgraph/text/parameters.py. All are hand-set; change one by hand with a
new date, procedure and split, and a decision record (docs/decisions/).
"""


class MatchingParameters(ParameterSection):
    """How `meaning.find` decides that a text says a phrasing or a cue."""

    unordered_window_min: int = Field(
        ge=1,
        description="Tokens of the answer a key-point phrasing's tokens must sit within (at "
        "least), in any order.",
    )
    unordered_window_per_token: int = Field(
        ge=1, description="...or this many per token of the phrasing, if more."
    )
    ordered_gap: int = Field(
        ge=0, description="A cue's words in order: other content words allowed between two."
    )
    ordered_span: int = Field(
        ge=1, description="A cue's words in order: at most this many words apart (of any kind)."
    )
    number_tolerance: float = Field(
        ge=0.0,
        le=1.0,
        description="Relative difference within which two numbers (equal to the less precise "
        "one's precision) match.",
    )
    min_required: int = Field(
        ge=1,
        description="A phrasing reduced to fewer tokens than this by the question's words needs "
        "all its tokens, question words included.",
    )
    contradiction_min_share: float = Field(
        ge=0.0,
        le=1.0,
        description="Share of a phrasing a window must say for a denial there to contradict it.",
    )
    compared_min_tokens: int = Field(
        ge=1,
        description="Tokens a phrasing needs before a comparative's opposite ('more' for "
        "'fewer') contradicts it: 'a larger vocabulary gives shorter sequences' says what is "
        "compared with what; a bare 'fewer tokens' does not ('32k splits text into more tokens' "
        "says the same of the smaller side).",
    )
    stem_prefix_min: int = Field(
        ge=1,
        description="Two stems the stemmer left apart match when the shorter, at least this "
        "long, starts the longer...",
    )
    stem_prefix_extra: int = Field(ge=0, description="...and the longer is at most this longer.")
    soft_wrap_from: int = Field(
        ge=2,
        description="Characters from which a line of prose broken inside a sentence counts as "
        "wrapped (the break is a space).",
    )


class NegationParameters(ParameterSection):
    """How far a negation reaches (`negation.NEGATION_SCOPE`)."""

    scope: int = Field(
        ge=1, description="Words after a negation that it denies ('not really very fast')."
    )


class TextParameters(ParameterSet):
    """Every tunable value of the text layer."""

    matching: MatchingParameters
    negation: NegationParameters


def load_text_parameters(path: Path = PARAMETERS_PATH) -> ParameterFile[TextParameters]:
    """The parameter file at `path`, checked (raises ParameterFileError)."""
    return load_parameter_file(path, TextParameters)


@cache
def text_parameters() -> TextParameters:
    """The shipped parameters, read once."""
    return load_text_parameters().values
