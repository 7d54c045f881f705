"""The offline engines' parameter files (grading, text, interview intents, tutor passages):
complete provenance, values checked, every parameter read by the code and no tunable number
left in it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml

from tutorgraph.errors import ConfigurationError
from tutorgraph.grading import parameters as grading
from tutorgraph.grading.offline import OfflineGrader
from tutorgraph.grading.types import GradingRequest
from tutorgraph.interview import parameters as intent
from tutorgraph.parameter_files import ParameterFileError, ParameterSet, render_parameter_file
from tutorgraph.text import parameters as text
from tutorgraph.tutor import parameters as tutor

SRC = Path(__file__).resolve().parents[2] / "src" / "tutorgraph"
DECISIONS = SRC.parents[1] / "docs" / "decisions"
FILES = [
    (grading.PARAMETERS_PATH, grading.GradingParameters, grading.HEADER),
    (text.PARAMETERS_PATH, text.TextParameters, text.HEADER),
    (intent.PARAMETERS_PATH, intent.IntentParameters, intent.HEADER),
    (tutor.PARAMETERS_PATH, tutor.TutorParameters, tutor.HEADER),
]

# The modules whose tunable numbers live in the parameter files, and the numbers they may still
# write because they are definitions, not choices.
DEFINITIONS: dict[str, dict[float, str]] = {
    "grading/offline.py": {2: "the harmonic mean's 2"},
    "grading/keypoints.py": {},
    "grading/examples.py": {
        0.5: "a partial grade's value (correct 1, partial 0.5, wrong 0)",
        2: "similarity squared; halfway between wrong and partial",
    },
    "grading/uncertainty.py": {0.5: "P(correct) at the decision boundary", 2: "its distance x 2"},
    "grading/features.py": {
        3: "character 4-grams (the lexical model was fitted on them)",
        4: "character 4-grams",
        5: "one typo allowed from five letters, as `stemming.near`",
    },
    "grading/classify.py": {},
    "grading/feedback.py": {2: "suffix lengths of English verbs", 3: "suffix lengths"},
    "grading/judge.py": {
        10.0: "the judge's '10.0 X' score scale",
        2: "the reply's parsing",
        0.5: "certainty 0.5 at run_spread_for_doubt: the parameter's definition",
        120: "characters of a bad reply quoted in the error",
    },
    "text/meaning.py": {100: "a percentage"},
    "text/negation.py": {},
    "interview/intent.py": {
        0.7: "the spec's threshold above which an intent is obeyed (ACTIVE_CONFIDENCE)",
        2: "no intent's confidence: 1 - the best cue's / 2",
    },
    "tutor/_passages.py": {
        2: "a question of one or two words needs one of them said",
        200: "characters of a passage compared to drop duplicates",
    },
}


def _write(tmp_path: Path, raw: object) -> Path:
    path = tmp_path / "parameters.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    return path


def _shipped_raw() -> dict[str, dict[str, dict[str, object]]]:
    loaded = yaml.safe_load(grading.PARAMETERS_PATH.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


@pytest.mark.parametrize(("path", "schema", "header"), FILES)
def test_the_shipped_files_load_and_are_written_back_unchanged(
    path: Path, schema: type[ParameterSet], header: str
) -> None:
    from tutorgraph.parameter_files import load_parameter_file

    loaded = load_parameter_file(path, schema)
    assert set(loaded.provenance) == set(schema.names())
    assert render_parameter_file(loaded, header) == path.read_text(encoding="utf-8")


@pytest.mark.parametrize(("path", "schema", "header"), FILES)
def test_every_decision_named_is_a_record(
    path: Path, schema: type[ParameterSet], header: str
) -> None:
    from tutorgraph.parameter_files import load_parameter_file

    records = {p.name[:4] for p in DECISIONS.glob("[0-9][0-9][0-9][0-9]-*.md")}
    named = {p.decision for p in load_parameter_file(path, schema).provenance.values()}
    assert named - {None} <= records


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("key_points", "full_share", "value", "most"), "key_points.full_share: value"),
        (("key_points", "full_share", "value", 1.5), "key_points.full_share"),
        (("key_points", "partial_min_tokens", "value", 4.5), "partial_min_tokens"),
        (("scoring", "misconception_cap", "value", True), "scoring.misconception_cap: value"),
        (("examples", "similar_at", "value", 0.1), "similar_at must be above"),
        (("scoring", "lexical_share", "source", "guessed"), "scoring.lexical_share: source"),
        (("scoring", "lexical_share", "date", "last week"), "scoring.lexical_share: date"),
        (("scoring", "denial_factor", "source", "fitted"), "needs its cross-validation"),
        (("scoring", "lexical_share", "procedure", ""), "scoring.lexical_share: procedure"),
    ],
)
def test_a_bad_value_or_provenance_is_refused_naming_the_parameter(
    tmp_path: Path, change: tuple[str, str, str, object], message: str
) -> None:
    raw = _shipped_raw()
    section, key, field, value = change
    raw[section][key][field] = value
    with pytest.raises(ParameterFileError) as caught:
        grading.load_grading_parameters(_write(tmp_path, raw))
    assert message in caught.value.message and str(tmp_path) in caught.value.message
    assert isinstance(caught.value, ConfigurationError)


def test_a_missing_provenance_a_missing_or_an_unknown_parameter_is_refused(
    tmp_path: Path,
) -> None:
    raw = _shipped_raw()
    del raw["key_points"]["full_share"]["split"]
    with pytest.raises(ParameterFileError, match=r"key_points\.full_share: split"):
        grading.load_grading_parameters(_write(tmp_path, raw))
    raw = _shipped_raw()
    del raw["certainty"]["unread_free"]
    with pytest.raises(ParameterFileError, match=r"certainty\.unread_free is missing"):
        grading.load_grading_parameters(_write(tmp_path, raw))
    raw = _shipped_raw()
    raw["scoring"]["bonus"] = dict(raw["scoring"]["lexical_share"])
    with pytest.raises(ParameterFileError, match=r"not a parameter of this file: scoring\.bonus"):
        grading.load_grading_parameters(_write(tmp_path, raw))
    with pytest.raises(ParameterFileError, match="cannot read"):
        grading.load_grading_parameters(tmp_path / "absent.yaml")


def test_the_grader_reads_its_values_from_the_parameters() -> None:
    """A parameter changed in the object changes the verdict: the code reads the objects."""
    request = GradingRequest(
        question="Why does a list default argument keep its items between calls?",
        reference_answer="The default list is created once, when the function is defined, and "
        "every call shares it.",
        answer="The default is evaluated once, at definition time, so every call shares it.",
        rubric=[
            "The default is evaluated once, at definition time",
            "Every call shares the same list object",
        ],
    )
    shipped = grading.grading_parameters()
    lexical = shipped.replaced({"scoring.lexical_share": 1.0})  # correctness = P(correct)
    by_points, by_words = OfflineGrader().grade(request), OfflineGrader(parameters=lexical)
    assert by_points.rubric.completeness == 1.0
    assert by_words.grade(request).rubric.correctness < by_points.rubric.correctness


def _names_read() -> set[str]:
    """Attributes read anywhere in the code, and the names it looks up by string (a cue's
    strength)."""
    names = set()
    for path in SRC.rglob("*.py"):
        if path.name == "parameters.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                names.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)
    return names


@pytest.mark.parametrize(("path", "schema", "header"), FILES)
def test_every_parameter_in_the_file_is_read_by_the_code(
    path: Path, schema: type[ParameterSet], header: str
) -> None:
    read = _names_read()
    unread = [name for name in schema.names() if name.split(".")[1] not in read]
    assert unread == []


@pytest.mark.parametrize("module", sorted(DEFINITIONS))
def test_no_tunable_number_is_left_in_the_code(module: str) -> None:
    """Every number an engine module writes is 0, 1, a cache size, a rounding, or a definition
    listed above: a threshold, weight or cap belongs in the parameter file, with provenance."""
    tree = ast.parse((SRC / module).read_text(encoding="utf-8"))
    exempt = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None)
            if name == "round" and len(node.args) == 2:
                exempt.add(id(node.args[1]))
            exempt |= {id(k.value) for k in node.keywords if k.arg == "maxsize"}
    numbers = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and type(node.value) in (int, float)
        and id(node) not in exempt
    }
    assert numbers - {0, 1} - set(DEFINITIONS[module]) == set()


def test_every_cue_strength_is_a_parameter_and_used_by_a_cue() -> None:
    from typing import get_args

    from tutorgraph.interview.intent import CUES

    strengths = set(get_args(intent.CueStrength))
    assert strengths == set(intent.CueStrengths.model_fields)
    assert {cue.strength for cues in CUES.values() for cue in cues} == strengths
