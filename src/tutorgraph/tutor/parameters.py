"""The offline tutor's thresholds, weights and caps, read from `parameters.yaml` beside this
module, each with its provenance (`tutorgraph.parameter_files`): which passages answer a question
(`_passages.py`), how a turn is read against the conversation (`dialogue.py`), how long each reply
is and when it closes with a quiz card (`compose.py`, `_follow_up.py`), the turn's tool calls
(`offline_tutor.py`), Explore's replies (`_explore.py`) and typed quiz answers
(`quiz_grading.py`).
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
The offline tutor's thresholds, weights and caps, with where each value came from.
Schema and meaning: src/tutorgraph/tutor/parameters.py; the rules: tutor/_passages.py (passages),
dialogue.py, compose.py, _follow_up.py, offline_tutor.py, _explore.py and quiz_grading.py.
All are hand-set. Change one by hand with a new date, procedure and split.
"""


class PassageParameters(ParameterSection):
    """Which retrieved passages answer a question, and in which order (`_passages.relevant`)."""

    relevance: float = share(
        "Share of a long question's content words a passage must say (of the words some "
        "course knows)..."
    )
    min_matched: int = Field(ge=1, description="...and at least this many of them.")
    short_share: float = share(
        "A short question needs this share of its words said; a passage saying less must be a "
        "strong search match."
    )
    unknown_share: float = share(
        "Share of a question's words no course contains from which it is about something else "
        "(a passage must then say short_share of it)."
    )
    weak_match_score: float = weight(
        "Search score a passage saying fewer than short_share of the words must reach."
    )
    close_to_best: float = share(
        "A passage must say this share of the question's words the best passage says."
    )
    lesson_bonus: float = weight("Weight of the open lesson's passages (close calls).")
    other_course: float = weight("Weight of another course's passage.")
    reference_notes: float = weight("Weight of reference notes against the lesson's own text.")
    generic_section: float = weight(
        "Weight of a summary ('Key takeaways', 'FAQ') or a document's introduction."
    )
    heading_match: float = weight(
        "A heading naming all the question's words multiplies the weight by 1 + this."
    )
    coverage: float = weight(
        "Exponent on how many of the question's words a section says against its lesson's best."
    )


class DialogueParameters(ParameterSection):
    """How a turn is read against the conversation's topic (`dialogue.py`)."""

    few_words: int = count(
        "A turn with at most this many content words of its own (beyond the words of its move, "
        "'why', 'simpler') says too little to change topic: it is a follow-up.",
        least=0,
    )
    related_share: float = share(
        "Share of a turn's own words found in the topic that makes it a follow-up."
    )
    few_for_topic: int = count(
        "A new question of at most this many content words, about the topic, is searched "
        "together with the topic's heading.",
        least=0,
    )
    leans_on_context_words: int = count(
        "A new question that leans on the conversation ('and for dicts?', 'that first lesson') "
        "with at most this many content words is searched with the question (or the lesson) "
        "before it.",
        least=0,
    )
    in_lesson_share: float = share(
        "A new question is about the open lesson when the lesson says at least this share of "
        "its own words (each at least lesson_mentions times); otherwise it leaves the lesson."
    )
    lesson_mentions: int = count(
        "Times the lesson (with its reference notes) must say a word for it to teach it, not "
        "mention it in passing."
    )


class FollowUpParameters(ParameterSection):
    """The replies to a follow-up on the topic (`_follow_up.py`): which passage, how many of its
    sentences, and when an attempt is right."""

    specific_words: int = count(
        "A follow-up with at least this many words the topic does not say answers from the "
        "lesson passage that says at least this many of them."
    )
    attempt_match: float = share(
        "Share of the check question's words a knowledge-base question must share (both ways) "
        "to be the question an attempt is graded against."
    )
    simple_words: int = count(
        "A clause longer than this many words is no simple explanation (confused, simpler); a "
        "longer sentence is cut at its colons and semicolons."
    )
    clause_min_words: int = count("A piece of a cut sentence needs this many words to be kept.")
    simpler_clauses: int = count("Clauses a simpler explanation quotes.")
    question_word_weight: int = count(
        "Weight of each of the learner's own words a clause says, when choosing the clauses of "
        "a simpler explanation (each word of the topic's question weighs 1)."
    )
    difficulty_weight: float = weight(
        "Cost of each unit of a clause's difficulty (its words, maths symbols counted extra) "
        "when choosing the clauses of a simpler explanation."
    )
    symbol_words: int = count(
        "A maths symbol counts as this many words in a sentence's difficulty."
    )
    why_sentences: int = count("Sentences a 'why?' reply quotes.")
    more_sentences: int = count(
        "Sentences a 'tell me more' reply quotes (from the section, or the next one)."
    )
    answer_sentences: int = count("Sentences a 'just tell me the answer' reply quotes.")
    example_sentences: int = count("Sentences of a worked example an 'example?' reply quotes.")
    diagram_steps: int = count("Steps listed when the course has no diagram for what is asked.")
    max_points: int = count("A summary lists at most this many points.")
    short_points: int = count(
        "Points of a summary asked to be shorter, when the learner names no number."
    )

    @model_validator(mode="after")
    def _short_within_max(self) -> Self:
        if self.short_points > self.max_points:
            raise ValueError("short_points must be at most max_points")
        return self


class ModeParameters(ParameterSection):
    """How much of the course a first answer quotes in each teaching mode (`compose.style_of`):
    passages of the answering lesson, and sentences of each passage. The analogy and code modes
    quote `replies.mapped_sentences` and `replies.code_explanation_sentences`."""

    default_passages: int = count("Passages a default answer quotes...")
    default_sentences: int = count("...and sentences of each.")
    eli5_passages: int = count(
        "Passages an ELI5 answer takes its focus and anchor from (its sentences may come from "
        "any passage of the lesson)..."
    )
    eli5_sentences: int = count("...and its plainest on-topic sentences, in all.")
    analogy_passages: int = count("Passages an analogy answer takes its focus from.")
    code_passages: int = count("Passages a code answer searches for code first.")
    deep_dive_passages: int = count("Passages a deep-dive answer quotes...")
    deep_dive_sentences: int = count("...and sentences of each.")


class ReplyParameters(ParameterSection):
    """The length of what a reply shows and when it closes with a quiz card (`compose.py`)."""

    plain_sentence_words: int = count(
        "A sentence of at most this many words (and no symbols) is plain enough for ELI5."
    )
    technical_symbol_words: int = count(
        "With nothing plain on topic, ELI5 quotes the least technical sentence: each maths or "
        "code symbol counts as this many words."
    )
    table_rows: int = count("Rows of a table section an answer quotes, besides its header.")
    snippet_lines: int = count(
        "Lines of a passage's code shown as an answer's anchor before '… (the rest is in the "
        "lesson)'."
    )
    plain_snippet_lines: int = count(
        "Simple modes show a passage's code only when it is at most this many lines, and then "
        "whole."
    )
    code_lines: int = count(
        "Lines of the lesson's code a code answer shows before '… (the rest is in the lesson)'."
    )
    code_explanation_sentences: int = count("Sentences that explain the code of a code answer.")
    mapped_sentences: int = count(
        "Sentences of the course an analogy is mapped back onto (and that need a picture, when "
        "there is none)."
    )
    mapped_with_picture: int = count(
        "Sentences picked to map the course's own picture back onto the idea (the picture "
        "itself, when picked, is left out)."
    )
    quiz_fit: int = count(
        "Words a lesson quiz card must share with what was asked to close an answer..."
    )
    quiz_due_after: int = count(
        "...or quiz_loose_fit, once this many replies in a row have gone without a quiz card."
    )
    quiz_loose_fit: int = count(
        "Words a card must share with what was asked when a quiz is due, or after a summary.",
        least=0,
    )
    explore_quiz_fit: int = count(
        "Words one of the answering lesson's cards must share with an Explore question to close "
        "the reply (any card will do when a quiz is due).",
        least=0,
    )
    quiz_heading_weight: int = count(
        "A quiz card asked for on its own cites the section it checks: each of the card's words "
        "in a section's own heading counts this many times more.",
        least=0,
    )
    opening_headings: int = count(
        "Sections a greeting, a stuck learner or a redirect offers as places to start."
    )
    greeting_summary_chars: int = count(
        "A lesson summary with no sentence in it is cut to this many characters in a greeting."
    )
    resources_shown: int = count("Curated resources one reply lists at most.")


class TurnParameters(ParameterSection):
    """A turn's tool calls and when a message is a greeting (`offline_tutor.py`)."""

    greeting_words: int = count(
        "A message of at most this many words with no content greets, when the conversation "
        "has not started."
    )
    lesson_search_k: int = count(
        "Passages the search inside one lesson returns (the open lesson's, or the lesson Explore "
        "opens)."
    )
    connect_after: int = count(
        "Teaching replies before the tutor points to further reading (once)."
    )
    resource_match: int = count(
        "Content words a curated resource's title and description must share with what the "
        "question is about (its words and the section that answers it) to be suggested."
    )


class ExploreParameters(ParameterSection):
    """Explore's replies about the catalogue (`_explore.py`, `offline_tutor.redirect`)."""

    redirect_lessons: int = count(
        "Lessons of each course named when Explore finds nothing on a question."
    )
    then_lessons: int = count(
        "Lessons named after the first one when Explore says where to start a course."
    )


class QuizAnswerParameters(ParameterSection):
    """Reading a typed answer to a quiz card (`quiz_grading.parse_choice`)."""

    typed_option_min_chars: int = count(
        "A typed answer of at least this many characters that is part of an option's text "
        "chooses that option (the first that contains it)."
    )


class TutorParameters(ParameterSet):
    """Every tunable value of the offline tutor."""

    passages: PassageParameters
    dialogue: DialogueParameters
    follow_ups: FollowUpParameters
    modes: ModeParameters
    replies: ReplyParameters
    turns: TurnParameters
    explore: ExploreParameters
    quiz_answers: QuizAnswerParameters


def load_tutor_parameters(path: Path | None = None) -> ParameterFile[TutorParameters]:
    """The parameter file at `path` (the shipped one by default), checked (raises
    ParameterFileError)."""
    return load_parameter_file(path or PARAMETERS_PATH, TutorParameters)


@cache
def tutor_parameters() -> TutorParameters:
    """The shipped parameters, read once."""
    return load_tutor_parameters().values
