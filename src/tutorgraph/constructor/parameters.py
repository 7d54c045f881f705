"""The course constructor's thresholds, weights and caps, read from `parameters.yaml` beside
this module, each with its provenance (`tutorgraph.parameter_files`): how sources become topics,
key points and prerequisites (`analysis.py`, `text.py`), how the offline writer picks sentences
and programs to ask about (`questions.py`, `programs.py`), which items the checks keep
(`item_checks.py`), the readiness score (`readiness.py`), what a model is sent
(`agents.py`, `pipelines.py`) and the targets of a published course (`publish.py`).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Self

from pydantic import Field, model_validator

from tutorgraph.parameter_files import (
    ParameterFile,
    ParameterSection,
    ParameterSet,
    count,
    load_parameter_file,
    share,
    weight,
)

PARAMETERS_PATH = Path(__file__).with_name("parameters.yaml")
HEADER = """\
The course constructor's thresholds, weights and caps, with where each value came from.
Schema and meaning: src/tutorgraph/constructor/parameters.py; the rules: constructor/analysis.py,
text.py, questions.py, programs.py, item_checks.py, readiness.py, agents.py, pipelines.py and
publish.py. All are hand-set. Change one by hand with a new date, procedure and split.
"""


def _in_order(section: ParameterSection, *pairs: tuple[str, str]) -> None:
    """Each (low, high) pair of a section's word ranges is a range: low <= high."""
    for low, high in pairs:
        if getattr(section, low) > getattr(section, high):
            raise ValueError(f"{low} must be at most {high}")


class TopicParameters(ParameterSection):
    """How a file's headings and length become topics (`analysis.py`), and their key terms."""

    min_topic_words: int = count(
        "A heading with less text than this (its subheadings' included) joins the topic before it."
    )
    short_topic_words: int = count("A topic of fewer words is suggested for merging...")
    long_topic_words: int = count("...and one of more words for splitting.")
    one_topic_words: int = count(
        "Heading-less text up to this many words is one topic, named by its file's title..."
    )
    segment_words: int = count("...longer text is cut into topics of about this many words...")
    short_tail_divisor: int = count(
        "...and a last piece shorter than segment_words divided by this joins the one before it."
    )
    key_terms: int = count("Salient terms kept as a topic's key terms.")

    @model_validator(mode="after")
    def _ranges(self) -> Self:
        _in_order(self, ("short_topic_words", "long_topic_words"))
        return self


class KeyPointParameters(ParameterSection):
    """A topic's key points and summary from its sentences (`analysis.key_points`,
    `analysis.summary_of`)."""

    per_topic: int = count("Key points a topic keeps at most.")
    min_words: int = count("A key point is a sentence of at least this many words...")
    max_words: int = count("...and at most this many.")
    definition_bonus: float = weight(
        "Score of a definition ('X is a ...') over a sentence that only carries salient terms "
        "(one point per term)."
    )
    position_cost: float = weight(
        "Score a sentence loses per sentence before it (earlier sentences win ties)."
    )
    opening_sentences: int = count(
        "Opening sentences that stand in when no sentence carries the topic's terms."
    )
    summary_sentences: int = count("A topic's summary: at most this many sentences...")
    summary_max_words: int = count("...stopping once they pass this many words.")

    @model_validator(mode="after")
    def _ranges(self) -> Self:
        _in_order(self, ("min_words", "max_words"))
        return self


class PrerequisiteParameters(ParameterSection):
    """Which earlier topics a topic builds on (`analysis.prerequisites`): one point per term an
    earlier topic introduced that it uses, plus the weights below."""

    max_prerequisites: int = count(
        "Prerequisites a topic keeps at most (the model is asked for as many)."
    )
    title_named: float = weight("Points when the topic's text names the earlier topic's title.")
    cue_bonus: float = weight(
        "Points added, when there are some, if the topic has a dependency cue ('recall', 'as we "
        "saw')..."
    )
    previous_topic_bonus: float = weight(
        "...and if the earlier topic is the one right before it in the same unit."
    )
    min_score: float = weight("Points an earlier topic needs to be a prerequisite.")
    plain_term_weight: float = weight(
        "Points for a single word an earlier topic introduced without defining it (a defined "
        "term or a phrase of two words or more counts 1)."
    )
    max_term_share: float = share(
        "A term used by more than this share of the topics is too common to make one topic "
        "need another..."
    )
    share_min_topics: int = count("...in a course of at least this many topics.")
    reference_window_chars: int = count(
        "Characters after a reference cue ('see', 'covered in') in which a topic's title or "
        "'lecture N' names the topic referred to."
    )


class ReadingParameters(ParameterSection):
    """How the constructor reads prose into sentences and terms (`text.py`)."""

    sentence_min_words: int = count("A sentence needs this many words to be read as one.")
    short_word_letters: int = count(
        "Words of at most this many letters are no term of their own; one of exactly this many "
        "letters may continue a term ('k means')."
    )
    min_term_count: int = count(
        "Times a term must occur in a text to be salient, unless the author marked it in bold."
    )
    marked_term_max_words: int = count("A bold phrase of at most this many words is a term.")
    marked_boost: float = weight("A term the author marked in bold weighs this many times more.")
    phrase_boost: float = weight("A term of two words weighs this many times more than one word.")
    definition_term_max_words: int = count(
        "The term of a definition ('X is a ...') has at most this many words."
    )


class QuizWriterParameters(ParameterSection):
    """The offline quiz writer (`questions.py`): how many items, and which sentences each
    template may ask about (word counts of the whole sentence unless said otherwise)."""

    items_per_topic: int = count("Items written per topic (the model is asked for as many).")
    blanks_per_topic: int = count("Fill-in-the-blank items per topic at most, asked last.")
    blank_min_mentions: int = count(
        "A one-word concept is blanked out only when the topic's prose names it this many times..."
    )
    phrase_min_mentions: int = count("...a concept of several words this many times.")
    concept_min_chars: int = count("A concept to blank out has at least this many characters.")
    give_away_min_chars: int = count(
        "A word of at least this many characters around the blank that contains the concept (or "
        "a stem the concept contains) gives it away."
    )
    blank_min_words: int = count("A sentence to blank out has at least this many words...")
    blank_max_words: int = count("...and at most this many.")
    definition_max_words: int = count("A definition asked about has at most this many words...")
    definition_min_words: int = count("...and its definition part at least this many.")
    purpose_min_words: int = count(
        "A sentence saying what a term does and why has at least this many words..."
    )
    purpose_max_words: int = count("...and at most this many.")
    reason_sentence_min_words: int = count(
        "A sentence giving a fact and its reason has at least this many words..."
    )
    reason_sentence_max_words: int = count("...and at most this many...")
    fact_min_words: int = count("...its fact at least this many...")
    reason_min_words: int = count("...and its reason at least this many.")
    use_when_min_words: int = count("A 'use X when ...' rule has at least this many words...")
    use_when_max_words: int = count("...and at most this many.")
    contrast_min_words: int = count(
        "A contrast ('X ..., whereas Y ...') has at least this many words..."
    )
    contrast_max_words: int = count("...and at most this many.")
    clause_min_chars: int = count(
        "A purpose sentence is cut at its cue into two key points when each side has more than "
        "this many characters."
    )
    idea_min_words: int = count(
        "A reference answer is cut into key points (one per idea) where each part has at least "
        "this many words."
    )
    definitions_per_topic: int = count("'What is X?' items per topic at most.")
    condition_min_words: int = count(
        "A sentence 'If <condition>, <result>' asked about has at least this many words..."
    )
    condition_max_words: int = count("...and at most this many.")
    procedure_min_steps: int = count(
        "A numbered list asked as 'how do you ...?' has at least this many steps..."
    )
    procedure_max_steps: int = count("...and at most this many (each step is a key point).")
    choice_options: int = count("Options of a multiple-choice item, the right one included.")
    understanding_per_recall: int = count(
        "A topic's items hold one recall item (what is X?, a blank) for every this many items "
        "that test understanding (one when there is none)."
    )
    sibling_terms: int = count(
        "Terms of the course's other topics a topic's request carries at most (the wrong "
        "options of its choice items)."
    )

    @model_validator(mode="after")
    def _ranges(self) -> Self:
        _in_order(
            self,
            ("blank_min_words", "blank_max_words"),
            ("purpose_min_words", "purpose_max_words"),
            ("reason_sentence_min_words", "reason_sentence_max_words"),
            ("use_when_min_words", "use_when_max_words"),
            ("contrast_min_words", "contrast_max_words"),
            ("condition_min_words", "condition_max_words"),
            ("procedure_min_steps", "procedure_max_steps"),
        )
        return self


class ProgramParameters(ParameterSection):
    """Questions about the programs a lesson runs (`programs.py`)."""

    min_code_lines: int = count("A program asked about has at least this many lines...")
    max_code_lines: int = count("...and at most this many.")
    max_output_lines: int = count(
        "Output lines a question expects at most (longer output is shown in part, not asked for)."
    )
    max_context_lines: int = count(
        "Lines of the lesson's earlier programs a program may be shown with."
    )
    context_depth: int = count(
        "A definition shown with a program may use a name defined earlier still, this many times "
        "over."
    )
    explanation_min_words: int = count(
        "A sentence that explains a program (or says why it fails) has at least this many words..."
    )
    explanation_max_words: int = count("...and at most this many.")
    explanation_sentences: int = count("Sentences of explanation an answer keeps.")
    output_check_max_values: int = count(
        "A program question whose shown output has at most this many numbers gets a numeric "
        "check of them (more: a table the learner would not retype)."
    )
    predict_max_programs: int = count(
        "Programs of a topic run in the sandbox at most (each twice, to refuse output that "
        "changes from run to run)."
    )
    run_cpu_seconds: int = count("CPU seconds a program asked about may use when run...")
    run_wall_seconds: int = count("...and seconds of wall-clock time.")
    command_min_words: int = count(
        "A shell command is asked about when the words that explain it number at least this many."
    )
    max_output_chars: int = count(
        "An IPython cell is asked to predict when what its run shows has at most this many "
        "characters (a list of a module's hundred names is no output a learner predicts)."
    )

    @model_validator(mode="after")
    def _ranges(self) -> Self:
        _in_order(
            self,
            ("min_code_lines", "max_code_lines"),
            ("explanation_min_words", "explanation_max_words"),
        )
        return self


class ItemCheckParameters(ParameterSection):
    """The checks of every quiz item, whichever engine wrote it (`item_checks.py`)."""

    answerable_top_k: int = count(
        "An item is answerable when a search of the sources with its question finds its "
        "evidence in this many top results..."
    )
    answerable_coverage: float = share(
        "...in a chunk holding this share of the evidence's content stems (or all its text)."
    )
    leak_share: float = share(
        "A question holding this share of one of its key point's content stems gives it away..."
    )
    leak_min_stems: int = count("...for a key point of at least this many content stems.")
    duplicate_share: float = share(
        "Two items whose questions (both ways) and answers share this share of their content "
        "stems are duplicates."
    )
    support_window: int = count(
        "A key point is supported when its words the question lacks are within this many "
        "consecutive sentences or lines of a retrieved passage."
    )
    choice_min_options: int = count("A multiple-choice item has at least this many options.")
    choice_length_ratio: float = Field(
        ge=1.0,
        description="A choice item's right option may be at most this many times as long as its "
        "longest wrong one (else it gives itself away).",
    )


class RubricParameters(ParameterSection):
    """An item's key points as its rubric (`readiness.rubric_points`)."""

    max_points: int = count("Rubric points kept at most.")
    repeat_share: float = share(
        "A key point whose stems are this share of an earlier point's is a repeat."
    )


class ReadinessParameters(ParameterSection):
    """The readiness report's checks, weights and bar (`readiness.py`)."""

    ready_at: int = Field(
        ge=0,
        le=100,
        description="A course is ready at this score (0-100) with no blocking check failed.",
    )
    answerability_target: float = share(
        "The answerability check passes when this share of the kept items is answerable."
    )
    min_items_per_topic: int = count(
        "Items per topic: kept items a topic of substantial_topic_words or more needs (a "
        "shorter topic needs one)."
    )
    min_bloom_levels: int = count("Bloom spread: levels such a topic's items reach.")
    objective_share: float = share(
        "Objectives: share of a topic's key points the items must ask about, on average."
    )
    objective_asked_share: float = share(
        "A key point is asked about when an item's key points and evidence hold this share of "
        "its stems."
    )
    empty_file_words: int = count(
        "A file read with fewer words than this has almost no text...", least=0
    )
    empty_file_factor: float = share("...and multiplies the content score by this.")
    structure_issue_cost: float = share("Structure score lost per structure issue.")
    content_weight: float = weight("Weight of the content check (every file read).")
    structure_weight: float = weight("Weight of the structure check (blocking).")
    answerability_weight: float = weight("Weight of the answerability check (blocking).")
    leaks_weight: float = weight("Weight of the no-leaks-or-duplicates check.")
    topic_coverage_weight: float = weight("Weight of the topic coverage check.")
    bloom_coverage_weight: float = weight("Weight of the Bloom coverage check.")
    objectives_weight: float = weight("Weight of the objectives check.")
    substantial_topic_words: int = count(
        "A topic of at least this many words needs min_items_per_topic items over "
        "min_bloom_levels levels."
    )
    understanding_target: float = share(
        "Tests understanding passes when this share of the kept items asks why, how, what "
        "happens if, compare, predict, apply, debug or which command."
    )
    understanding_weight: float = weight("Weight of the tests-understanding check (blocking).")
    exercises_weight: float = weight("Weight of the exercises-excluded check (blocking).")
    prerequisites_weight: float = weight("Weight of the prerequisite-sanity check (blocking).")
    shown_question_chars: int = count("Characters of a question a check's detail quotes.")


class ModelRequestParameters(ParameterSection):
    """What the constructor sends a model (`agents.py`, `pipelines.bloom_plan`)."""

    source_chars: int = count("Characters of a topic's text a quiz request sends at most.")
    outline_terms: int = count("Salient terms listed per section in the outline for topics.")
    analysis_min_words: int = count(
        "A topic of at least this many words is also asked analysis and evaluation questions."
    )


class PublishedTargetParameters(ParameterSection):
    """The target confidence a published course sets for each level (`publish.build_domain`)."""

    junior: float = share("Target confidence of a junior.")
    mid: float = share("Target confidence of a mid-level learner.")
    senior: float = share("Target confidence of a senior.")
    staff: float = share("Target confidence of a staff-level learner.")


class ConstructorParameters(ParameterSet):
    """Every tunable value of the course constructor."""

    topics: TopicParameters
    key_points: KeyPointParameters
    prerequisites: PrerequisiteParameters
    reading: ReadingParameters
    quiz_writer: QuizWriterParameters
    programs: ProgramParameters
    item_checks: ItemCheckParameters
    rubrics: RubricParameters
    readiness: ReadinessParameters
    model_requests: ModelRequestParameters
    published_targets: PublishedTargetParameters


def load_constructor_parameters(
    path: Path | None = None,
) -> ParameterFile[ConstructorParameters]:
    """The parameter file at `path` (the shipped one by default), checked (raises
    ParameterFileError)."""
    return load_parameter_file(path or PARAMETERS_PATH, ConstructorParameters)


@cache
def constructor_parameters() -> ConstructorParameters:
    """The shipped parameters, read once."""
    return load_constructor_parameters().values
