"""The course constructor's parameter file (`constructor/parameters.yaml`): it loads with complete
provenance, the loader refuses a bad value, the code reads every parameter and its behaviour
follows the file, and no tunable number is left in the modules that hold its rules (the service,
the graph and the state hold request limits, column sizes and schemas, not rules)."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.tutor.parameter_checks import attributes_read, numbers_written, shipped_raw, write_raw
from tutorgraph.constructor import parameters as constructor
from tutorgraph.constructor.item_checks import leaks
from tutorgraph.constructor.publish import target_confidence
from tutorgraph.constructor.readiness import rubric_points
from tutorgraph.constructor.state import QuizItem
from tutorgraph.errors import ConfigurationError
from tutorgraph.knowledge.bloom import BloomLevel
from tutorgraph.parameter_files import ParameterFileError, render_parameter_file

CONSTRUCTOR = Path(constructor.__file__).parent
DECISIONS = CONSTRUCTOR.parents[2] / "docs" / "decisions"

# The modules that read each section.
READERS: dict[str, list[str]] = {
    "topics": ["analysis.py", "text.py", "pipelines.py"],
    "key_points": ["analysis.py"],
    "prerequisites": ["analysis.py", "agents.py"],
    "reading": ["text.py"],
    "quiz_writer": ["questions.py", "choices.py", "text.py", "context.py"],
    "programs": ["programs.py", "questions.py", "commands.py"],
    "item_checks": ["item_checks.py"],
    "rubrics": ["readiness.py"],
    "readiness": ["readiness.py"],
    "model_requests": ["agents.py", "pipelines.py"],
    "published_targets": ["publish.py"],
}

# The modules whose tunable numbers live in the file, and the numbers they may still write
# because they are definitions, not choices: (the function they are in, value) -> why.
DEFINITIONS: dict[str, dict[tuple[str, float], str]] = {
    "analysis.py": {
        (
            "_topic_level",
            2,
        ): "topics are named by a level with two headings or more: one is a title",
        ("_segment", 2): "groups[-2]: the piece before the last",
        ("_segment", 3): "terms asked for to name a segment: only the first is used",
        ("topic_ids", 40): "characters of a topic id's slug (an identifier's format)",
        ("topic_ids", 2): "the counter that makes an id unique starts at 2",
        ("visit", 2): "the depth-first search's 'done' mark",
        ("group_units", 30): "characters of a unit id's slug",
    },
    "text.py": {
        ("salient_terms", 0.5): "the smoothed idf: log((n + 1) / (df + 0.5)) + 1",
        ("slugify", 48): "characters of a slug by default (an identifier's format)",
        ("flatten_divs", 2): "the heading pattern's text group",
    },
    "questions.py": {
        ("<module>", 2.0): "_TRIVIAL: outputs of only 0, 1, 2 (and -1) are no check",
        ("output_checks", 0.5): "half a unit of the last written digit...",
        ("output_checks", 10.0): "...in base 10",
        ("_verb_at", 2): "after 'can <verb>' the object starts two words on",
        ("_fact_pairs", 2): "plain statements are set side by side in pairs",
        ("_plain_fact", 2): "a verb and at least one object word follow the subject",
        ("_plain_fact", 5): "the statement shape: an optional article and up to four words",
    },
    "programs.py": {},
    "choices.py": {
        ("new_item", 5): "difficulty runs from 1 to 5 (QuizItem.difficulty)",
        ("_as_code", 2): "one code span: an opening and a closing backtick",
    },
    "commands.py": {},
    "item_checks.py": {},
    "readiness.py": {
        ("<module>", 5): "SHOWN: issues or topics a check's detail names (what the author reads)",
        ("score", 100): "readiness runs from 0 to 100",
    },
    "context.py": {},
    "publish.py": {
        ("lesson_markdown", 2): "Markdown heading levels from 2 (a lesson's title is 1); m[2]: "
        "the image pattern's address group",
        ("lesson_markdown", 6): "the deepest Markdown heading",
        ("build_course", 190): "characters of a lesson slug (its column)",
        ("build_course", 300): "characters of a title (its column)",
        ("build_domain", 4): "difficulties 1 to 5 spread over the course's order",
        ("domain_yaml", 100): "line width of the written YAML",
        ("choose_slug", 60): "characters of a course slug",
        ("choose_slug", 2): "the counter that makes a slug unique starts at 2",
        ("export_course", 2): "JSON indentation",
    },
    "agents.py": {
        ("_offline_questions", 6): "ProposedQuestion holds at most 6 key points (its schema)",
        ("quiz_item", 5): "difficulty runs from 1 to 5 (QuizItem.difficulty)",
    },
    "pipelines.py": {("extract", 24): "hex characters of an image id"},
}


@pytest.fixture
def parameters_from(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Path], None]]:
    """Point the constructor at another parameter file (the shipped one again afterwards)."""

    def use(path: Path) -> None:
        monkeypatch.setattr(constructor, "PARAMETERS_PATH", path)
        constructor.constructor_parameters.cache_clear()

    constructor.constructor_parameters.cache_clear()
    yield use
    constructor.constructor_parameters.cache_clear()


def _changed(tmp_path: Path, section: str, key: str, value: object) -> Path:
    raw = shipped_raw(constructor.PARAMETERS_PATH)
    raw[section][key]["value"] = value
    return write_raw(tmp_path, raw)


def test_the_file_loads_with_provenance_and_is_written_back_unchanged() -> None:
    loaded = constructor.load_constructor_parameters()
    assert set(loaded.provenance) == set(constructor.ConstructorParameters.names())
    assert render_parameter_file(loaded, constructor.HEADER) == (
        constructor.PARAMETERS_PATH.read_text(encoding="utf-8")
    )
    records = {p.name[:4] for p in DECISIONS.glob("[0-9][0-9][0-9][0-9]-*.md")}
    for name, provenance in loaded.provenance.items():
        assert provenance.source == "hand-set", name
        assert datetime.date(2026, 11, 25) <= provenance.date <= datetime.date.today(), name
        assert provenance.decision is None or provenance.decision in records, name


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("readiness", "ready_at", "value", 120), "readiness.ready_at"),
        (("item_checks", "leak_share", "value", 1.5), "item_checks.leak_share"),
        (("quiz_writer", "items_per_topic", "value", 2.5), "quiz_writer.items_per_topic"),
        (("quiz_writer", "blank_min_words", "value", 40), "blank_min_words must be at most"),
        (("key_points", "min_words", "value", 50), "min_words must be at most max_words"),
        (("topics", "short_topic_words", "value", 3000), "short_topic_words must be at most"),
        (("readiness", "ready_at", "source", "fitted"), "needs its cross-validation"),
        (("programs", "max_code_lines", "date", "soon"), "programs.max_code_lines: date"),
        (("rubrics", "max_points", "procedure", ""), "rubrics.max_points: procedure"),
    ],
)
def test_a_bad_value_or_provenance_is_refused_naming_the_parameter(
    tmp_path: Path, change: tuple[str, str, str, object], message: str
) -> None:
    raw = shipped_raw(constructor.PARAMETERS_PATH)
    section, key, field, value = change
    raw[section][key][field] = value
    with pytest.raises(ParameterFileError) as caught:
        constructor.load_constructor_parameters(write_raw(tmp_path, raw))
    assert message in caught.value.message and str(tmp_path) in caught.value.message
    assert isinstance(caught.value, ConfigurationError)


def test_a_missing_or_an_unknown_parameter_is_refused(tmp_path: Path) -> None:
    raw = shipped_raw(constructor.PARAMETERS_PATH)
    del raw["readiness"]["ready_at"]
    with pytest.raises(ParameterFileError, match=r"readiness\.ready_at is missing"):
        constructor.load_constructor_parameters(write_raw(tmp_path, raw))
    raw = shipped_raw(constructor.PARAMETERS_PATH)
    raw["item_checks"]["leak_bonus"] = dict(raw["item_checks"]["leak_share"])
    with pytest.raises(ParameterFileError, match=r"not a parameter of this file: item_checks"):
        constructor.load_constructor_parameters(write_raw(tmp_path, raw))


@pytest.mark.parametrize("section", sorted(READERS))
def test_every_parameter_is_read_by_its_modules(section: str) -> None:
    read = attributes_read(CONSTRUCTOR / module for module in READERS[section])
    fields = constructor.ConstructorParameters.sections()[section].model_fields
    assert section in read
    assert [name for name in fields if name not in read] == []


@pytest.mark.parametrize("module", sorted(DEFINITIONS))
def test_no_tunable_number_is_left_in_the_code(module: str) -> None:
    """Every number a constructor module writes is 0, 1, a rounding, a schema's bound, or a
    definition listed above: a threshold, weight or cap belongs in the parameter file, with
    provenance (and a definition no longer written leaves the list)."""
    written = numbers_written(CONSTRUCTOR / module)
    assert written - set(DEFINITIONS[module]) == set()
    assert set(DEFINITIONS[module]) - written == set()


def _item(text: str, points: list[str]) -> QuizItem:
    return QuizItem(
        item_id="t-q1",
        topic_id="t",
        bloom_level=BloomLevel.UNDERSTAND,
        type="conceptual",
        difficulty=2,
        text=text,
        reference_answer=points[0],
        key_points=points,
        evidence=points[0],
    )


def test_the_constructor_follows_its_parameter_file(
    tmp_path: Path, parameters_from: Callable[[Path], None]
) -> None:
    """A value changed in the file changes what the constructor does: the code reads the file."""
    # The question says two of the key point's three stems: a leak at 0.6, not at 0.7.
    item = _item(
        "Why does a dictionary hash its keys?",
        ["the dictionary hashes quickly", "lookups stay fast", "memory grows"],
    )
    assert leaks(item)
    assert len(rubric_points(item)) == 3
    assert target_confidence() == {"junior": 0.7, "mid": 0.75, "senior": 0.85, "staff": 0.9}

    parameters_from(_changed(tmp_path / "a", "item_checks", "leak_share", 0.7))
    assert not leaks(item)
    parameters_from(_changed(tmp_path / "b", "rubrics", "max_points", 2))
    assert len(rubric_points(item)) == 2
    parameters_from(_changed(tmp_path / "c", "published_targets", "staff", 0.95))
    assert target_confidence()["staff"] == 0.95
