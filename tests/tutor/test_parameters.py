"""The offline tutor's parameter file (`tutor/parameters.yaml`): it loads with complete
provenance, the loader refuses a bad value, the code reads every parameter and its behaviour
follows the file, and no tunable number is left in the tutor's modules."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.tutor.parameter_checks import attributes_read, numbers_written, shipped_raw, write_raw
from tutorgraph.errors import ConfigurationError
from tutorgraph.parameter_files import ParameterFileError, render_parameter_file
from tutorgraph.tutor import compose
from tutorgraph.tutor import parameters as tutor
from tutorgraph.tutor.context import QuizCard
from tutorgraph.tutor.quiz_grading import parse_choice

TUTOR = Path(tutor.__file__).parent
DECISIONS = TUTOR.parents[2] / "docs" / "decisions"

# The modules that read each section.
READERS: dict[str, list[str]] = {
    "passages": ["_passages.py"],
    "dialogue": ["dialogue.py"],
    "follow_ups": ["_follow_up.py"],
    "modes": ["compose.py"],
    "replies": ["compose.py", "_follow_up.py"],
    "turns": ["offline_tutor.py"],
    "explore": ["_explore.py", "offline_tutor.py"],
    "quiz_answers": ["quiz_grading.py"],
}

# The modules whose tunable numbers live in the file (`_passages.py` is checked with the grader's,
# tests/grading/test_parameters.py), and the numbers they may still write because they are
# definitions, not choices: (the function they are in, value) -> why.
DEFINITIONS: dict[str, dict[tuple[str, float], str]] = {
    "dialogue.py": {},
    "_follow_up.py": {("summary", 2): "a lesson's main sections are its level-2 headings"},
    "compose.py": {
        ("was_shown", 80): "characters of a code block compared to tell that a reply showed it",
        ("_plain", 2): "(score, rank, position, sentence): sorted by position",
        ("_plain", 3): "(score, rank, position, sentence): the sentence",
        ("lesson_diagram", 2): "(score, path, diagram): the diagram",
        ("pick_quiz", 2): "(score, order, card): the key is the score, then the order",
        ("with_lesson_check", 2): "(score, order, card): the key is the score, then the order",
        ("quiz_reply", 2): "a section under the lesson's title has a heading path of two",
    },
    "offline_tutor.py": {
        ("_call", 20): "hex characters of a tool call's id",
        ("_pieces", 3): "words per streamed piece: the reply's text is the same whatever it is",
    },
    "_explore.py": {
        ("_named_course", 2): "(score, order, course): the key and the course",
        ("_named_lesson", 2): "(score, course, index): the index",
    },
    "_analogies.py": {
        ("used_in", 60): "characters of a picture compared to tell that a reply offered it",
        ("building_on", 60): "characters of an extension compared to tell that a reply said it",
    },
    "leaks.py": {("numbers", 100): "a percentage"},
    "quiz_grading.py": {
        ("<module>", 500): "WHY_CHARS: the API's limit on a learner's reason (a request contract)",
        ("register_card", 16): "hex characters of a written card's id",
    },
    "quiz_stream.py": {},
}


@pytest.fixture
def parameters_from(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Path], None]]:
    """Point the tutor at another parameter file (the shipped one again afterwards)."""

    def use(path: Path) -> None:
        monkeypatch.setattr(tutor, "PARAMETERS_PATH", path)
        tutor.tutor_parameters.cache_clear()

    tutor.tutor_parameters.cache_clear()
    yield use
    tutor.tutor_parameters.cache_clear()


def _changed(tmp_path: Path, section: str, key: str, value: object) -> Path:
    raw = shipped_raw(tutor.PARAMETERS_PATH)
    raw[section][key]["value"] = value
    return write_raw(tmp_path, raw)


def test_the_file_loads_with_provenance_and_is_written_back_unchanged() -> None:
    loaded = tutor.load_tutor_parameters()
    assert set(loaded.provenance) == set(tutor.TutorParameters.names())
    assert render_parameter_file(loaded, tutor.HEADER) == tutor.PARAMETERS_PATH.read_text(
        encoding="utf-8"
    )
    records = {p.name[:4] for p in DECISIONS.glob("[0-9][0-9][0-9][0-9]-*.md")}
    for name, provenance in loaded.provenance.items():
        assert provenance.source == "hand-set", name
        assert datetime.date(2026, 11, 22) <= provenance.date <= datetime.date.today(), name
        assert provenance.decision is None or provenance.decision in records, name


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("dialogue", "related_share", "value", 1.3), "dialogue.related_share"),
        (("modes", "default_passages", "value", "two"), "modes.default_passages"),
        (("replies", "quiz_fit", "value", 0), "replies.quiz_fit"),
        (("turns", "lesson_search_k", "value", 8.5), "turns.lesson_search_k"),
        (("follow_ups", "short_points", "value", 12), "short_points must be at most max_points"),
        (("explore", "then_lessons", "source", "fitted"), "needs its cross-validation"),
        (("quiz_answers", "typed_option_min_chars", "date", "today"), "typed_option_min_chars"),
        (("replies", "table_rows", "split", ""), "replies.table_rows: split"),
    ],
)
def test_a_bad_value_or_provenance_is_refused_naming_the_parameter(
    tmp_path: Path, change: tuple[str, str, str, object], message: str
) -> None:
    raw = shipped_raw(tutor.PARAMETERS_PATH)
    section, key, field, value = change
    raw[section][key][field] = value
    with pytest.raises(ParameterFileError) as caught:
        tutor.load_tutor_parameters(write_raw(tmp_path, raw))
    assert message in caught.value.message and str(tmp_path) in caught.value.message
    assert isinstance(caught.value, ConfigurationError)


def test_a_missing_section_or_an_unknown_parameter_is_refused(tmp_path: Path) -> None:
    raw = shipped_raw(tutor.PARAMETERS_PATH)
    del raw["follow_ups"]
    with pytest.raises(ParameterFileError, match="section 'follow_ups' is missing"):
        tutor.load_tutor_parameters(write_raw(tmp_path, raw))
    raw = shipped_raw(tutor.PARAMETERS_PATH)
    raw["replies"]["quiz_bonus"] = dict(raw["replies"]["quiz_fit"])
    with pytest.raises(ParameterFileError, match=r"not a parameter of this file: replies\.quiz"):
        tutor.load_tutor_parameters(write_raw(tmp_path, raw))


@pytest.mark.parametrize("section", sorted(READERS))
def test_every_parameter_is_read_by_its_modules(section: str) -> None:
    read = attributes_read(TUTOR / module for module in READERS[section])
    fields = tutor.TutorParameters.sections()[section].model_fields
    assert section in read
    assert [name for name in fields if name not in read] == []


@pytest.mark.parametrize("module", sorted(DEFINITIONS))
def test_no_tunable_number_is_left_in_the_code(module: str) -> None:
    """Every number a tutor module writes is 0, 1, a rounding, or a definition listed above: a
    threshold, weight or cap belongs in the parameter file, with provenance (and a definition
    no longer written leaves the list)."""
    written = numbers_written(TUTOR / module)
    assert written - set(DEFINITIONS[module]) == set()
    assert set(DEFINITIONS[module]) - written == set()


def test_the_tutor_follows_its_parameter_file(
    tmp_path: Path, parameters_from: Callable[[Path], None]
) -> None:
    """A value changed in the file changes what the tutor does: the code reads the file."""
    card = QuizCard(id="q1", question="Which?", options=["a deque", "a list"], correct_index=0)
    assert parse_choice("deq", card) is None  # shorter than typed_option_min_chars (4)
    quiet = ["Reply one.", "Reply two."]
    assert compose.quiz_due(quiet)
    assert compose.style_of("default").sentences == 3

    use = parameters_from
    use(_changed(tmp_path / "a", "quiz_answers", "typed_option_min_chars", 3))
    assert parse_choice("deq", card) == 0
    use(_changed(tmp_path / "b", "replies", "quiz_due_after", 3))
    assert not compose.quiz_due(quiet)
    use(_changed(tmp_path / "c", "modes", "default_sentences", 5))
    assert compose.style_of("default").sentences == 5
