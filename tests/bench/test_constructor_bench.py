"""The constructor benchmark's harness: the reviewers' ratings aggregate correctly, the rating
sheet shows no builder internals, "sections matched" reads a source's own outline, the large
PDF carries bookmarks, and the committed sources carry their licence and origin."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from tutorgraph.constructor.state import (
    ConstructorState,
    CourseStructure,
    QuizBank,
    QuizItem,
    SourceSection,
    Topic,
    Unit,
)
from tutorgraph.knowledge.bloom import BloomLevel
from tutorgraph_bench import constructor_ratings as ratings
from tutorgraph_bench.constructor_large import markdown_blocks, write_pdf
from tutorgraph_bench.constructor_outline import (
    markdown_sections,
    match_sections,
    pdf_sections,
    read_outline,
)
from tutorgraph_bench.constructor_sheet import sheet, write_sheet
from tutorgraph_bench.constructor_sources import load_sources, measure

ROOT = Path(__file__).resolve().parents[2]

INTRO = (
    "Databases keep data in tables that queries read, and this lesson shows how to ask them "
    "questions with the structured query language in a browser."
)
SECTION_A = (
    "A query selects columns from a table. The database reads every row and keeps the columns\n"
    "you name, in the order you name them.\n\n"
    "```bash\n# this comment is not a heading\nsqlite3 survey.db 'SELECT year FROM surveys;'\n```\n"
)
SECTION_B = (
    "Filtering keeps only the rows for which a condition holds. WHERE comes after FROM and "
    "before ORDER BY, and conditions combine with AND and OR."
)
CHALLENGE = "Write a query that returns the year, month and day of every survey."
SOURCE = f"""---
title: Basic queries
description: Selecting and filtering rows.
---

{INTRO}

## Selecting columns

{SECTION_A}
::::::::::::::::::::::::::::::::::::: challenge

## Exercise: dates

{CHALLENGE}

:::::::::::::::: solution

SELECT year, month, day FROM surveys;

:::::::::::::::::::::::::

::::::::::::::::::::::::::::::::::::::::::::::

## Filtering

{SECTION_B}
"""


# ----------------------------------------------------------------------------- outline


def test_markdown_outline_reads_front_matter_sections_and_exercises() -> None:
    found = markdown_sections("02-queries.md", SOURCE)
    sections = [s for s in found if s.kind == "section"]
    assert [s.title for s in sections] == ["Selecting columns", "Filtering"]
    assert {s.unit for s in found} == {"Basic queries"}
    assert [s.kind for s in found].count("intro") == 1
    exercises = [s for s in found if s.kind == "exercise"]
    assert len(exercises) == 1 and "year month and day" in " ".join(exercises[0].words)
    # the challenge and its solution are not the section's text; the fenced `#` line is
    assert "solution" not in sections[0].words and "comment" in sections[0].words


def _state(
    topics: list[tuple[str, list[str]]], sections: dict[str, str], intro: list[str]
) -> ConstructorState:
    source_sections = [
        SourceSection(
            section_id=sid,
            file_id="f",
            level=2,
            heading_path=[sid],
            text=text,
            words=len(text.split()),
            has_code=False,
        )
        for sid, text in sections.items()
    ]
    structure = CourseStructure(
        title="Basic queries",
        units=[
            Unit(
                unit_id="u",
                title="Basic queries",
                topic_ids=[f"t{i}" for i in range(len(topics))],
                intro_section_ids=intro,
            )
        ],
        topics=[
            Topic(topic_id=f"t{i}", title=title, unit_id="u", section_ids=ids)
            for i, (title, ids) in enumerate(topics)
        ],
    )
    return {"structure": structure, "sections": source_sections}


SECTIONS = {"intro": INTRO, "a": SECTION_A, "ex": CHALLENGE, "b": SECTION_B}


def test_sections_matched_when_topics_follow_the_source() -> None:
    outline = read_outline("tiny", "markdown", [])
    outline.sections = markdown_sections("02-queries.md", SOURCE)
    state = _state([("Selecting columns", ["a"]), ("Filtering", ["b"])], SECTIONS, ["intro"])
    matched = match_sections(outline, state)
    assert matched.topic_share == 1.0
    assert matched.section_share == 1.0
    assert matched.exercises_in_topics == 0


def test_sections_matched_catches_merged_sections_and_exercises_in_lessons() -> None:
    outline = read_outline("tiny", "markdown", [])
    outline.sections = markdown_sections("02-queries.md", SOURCE)
    # the introduction filed under the first topic, the challenge inside it, B merged into it
    state = _state([("Selecting columns", ["intro", "a", "ex", "b"])], SECTIONS, [])
    matched = match_sections(outline, state)
    assert matched.topic_share == 0.0
    assert matched.section_share == 0.0
    assert matched.exercises_in_topics == 1


# ------------------------------------------------------------------------------- sheet


def _item(**extra: object) -> QuizItem:
    fields: dict[str, object] = {
        "item_id": "selecting-q1",
        "topic_id": "t0",
        "bloom_level": BloomLevel.UNDERSTAND,
        "type": "conceptual",
        "difficulty": 2,
        "text": "Why does a query name its columns after SELECT?",
        "reference_answer": "The database keeps only the named columns, in that order.",
        "key_points": ["keeps only the named columns", "in the order named"],
        "evidence": "SECRET-EVIDENCE-PASSAGE",
        "asks": "why",
    }
    return QuizItem.model_validate({**fields, **extra})


def test_sheet_shows_what_a_reader_sees_and_no_builder_internals(tmp_path: Path) -> None:
    state = _state([("Selecting columns", ["a"]), ("Filtering", ["b"])], SECTIONS, ["intro"])
    multiple = _item(
        options=["only the named columns", "every column"],
        correct_index=0,
        why_wrong=["", "SECRET-WHY-WRONG"],
    )
    dropped = _item(item_id="dropped", problems=["SECRET-PROBLEM"])
    state["quiz_bank"] = QuizBank(items=[multiple, dropped])
    sheet_path, template_path = write_sheet(tmp_path, "tiny", state, None)
    text = sheet_path.read_text(encoding="utf-8")
    for internal in ("SECRET", "asks", "bloom", "difficulty", "evidence", "understand", "problems"):
        assert internal not in text
    data = yaml.safe_load(text)
    (row,) = data["items"]
    assert row["question"] == multiple.text
    assert row["options"] == multiple.options and row["correct_option"] == "only the named columns"
    assert row["key_points"] == multiple.key_points
    assert "every row" in row["source_text"]
    assert [t["title"] for t in data["topics"]] == ["Selecting columns", "Filtering"]
    assert data["topics"][0]["first_lines"][0].startswith("A query selects columns")
    empty = yaml.safe_load(template_path.read_text(encoding="utf-8"))
    assert empty["items"][0]["key"] == row["key"] and empty["items"][0]["answerable"] is None
    assert sheet("tiny", state, None)["items"][0]["key"] == row["key"]


# ----------------------------------------------------------------------------- ratings


def _ratings_file(folder: Path, reviewer: str, answers: list[str], topic: str) -> None:
    body = {
        "source": "tiny",
        "reviewer": reviewer,
        "items": [
            {
                "key": f"k{i}",
                "answerable": a,
                "well_formed": "yes",
                "tests_understanding": "no",
                "reference_correct": "yes",
            }
            for i, a in enumerate(answers)
        ],
        "topics": [{"key": "t0", "title": "Selecting", "section_matched": topic}],
    }
    (folder / f"tiny.{reviewer}.yaml").write_text(yaml.safe_dump(body), encoding="utf-8")


def test_ratings_aggregate_shares_wilson_intervals_and_kappa(tmp_path: Path) -> None:
    _ratings_file(tmp_path, "ana", ["yes", "yes", "no", "yes"], "yes")
    _ratings_file(tmp_path, "ben", ["yes", "no", "no", "yes"], "no")
    (tmp_path / "tiny.sheet.yaml").write_text(
        yaml.safe_dump({"items": [{"key": f"k{i}"} for i in range(4)], "topics": [{"key": "t0"}]}),
        encoding="utf-8",
    )
    (tmp_path / "tiny.template.yaml").write_text("items: []\n", encoding="utf-8")
    (result,) = ratings.aggregate_folder(tmp_path)
    assert result.reviewers == ["ana", "ben"] and result.enough
    by_name = {c.name: c for c in result.criteria}
    answerable = by_name["answerable"]
    assert answerable.share.value == pytest.approx(5 / 8)
    assert answerable.share.n == 8
    assert (answerable.share.low, answerable.share.high) == pytest.approx(
        (0.3057, 0.8632), abs=1e-3
    )
    assert answerable.agreement == pytest.approx(0.75)
    assert answerable.kappa == pytest.approx(0.5)  # p_o 0.75, p_e 0.75*0.5 + 0.25*0.5 = 0.5
    assert not answerable.meets  # target 95%
    assert by_name["well_formed"].share.value == 1.0 and by_name["well_formed"].meets
    assert math.isnan(by_name["well_formed"].kappa)  # both always "yes": chance agreement is 1
    assert by_name["tests_understanding"].share.value == 0.0
    assert by_name["section_matched"].share.value == 0.5 and by_name["section_matched"].kappa == 0.0
    assert "answerable" in ratings.markdown([result])


def test_ratings_of_changed_wording_are_stale_and_one_reviewer_is_not_enough(
    tmp_path: Path,
) -> None:
    _ratings_file(tmp_path, "ana", ["yes", "no"], "yes")
    (tmp_path / "tiny.sheet.yaml").write_text(
        yaml.safe_dump({"items": [{"key": "k0"}], "topics": [{"key": "t0"}]}), encoding="utf-8"
    )
    (result,) = ratings.aggregate_folder(tmp_path)
    assert not result.enough
    answerable = next(c for c in result.criteria if c.name == "answerable")
    assert answerable.share.n == 1 and answerable.share.value == 1.0
    assert result.stale == 4  # k1 under each of the four item criteria
    assert "needs 2+" in ratings.markdown([result])


def test_cohen_kappa_of_perfect_and_opposite_raters() -> None:
    assert ratings.cohen_kappa([True, False, True, False], [True, False, True, False]) == 1.0
    assert ratings.cohen_kappa([True, False], [False, True]) == -1.0
    assert ratings.yes_no("Yes") is True and ratings.yes_no("unsure") is None


# ------------------------------------------------------------------ figures, large, sources


def test_measure_reads_public_results_only() -> None:
    state = _state([("Selecting columns", ["a"]), ("Filtering", ["b"])], SECTIONS, ["intro"])
    blank = _item(item_id="b1", asks="blank")
    predict = _item(item_id="p1", asks="predict", bloom_level=BloomLevel.APPLY)
    state["quiz_bank"] = QuizBank(items=[_item(), blank, predict])
    (source,) = [
        s
        for s in load_sources(ROOT / "benchmarks/constructor/sources.yaml")
        if s.name == "sql-ecology"
    ]
    outline = read_outline("tiny", "markdown", [])
    outline.sections = markdown_sections("02-queries.md", SOURCE)
    figures = measure(source, state, 1.0, outline)
    assert (figures.topics, figures.items, figures.min_items) == (2, 3, 0)
    assert figures.understanding == 2 and figures.blanks == 1 and figures.predict == 1
    assert figures.bloom_per_topic == [2, 0]
    assert figures.readiness is None and figures.matched is not None


def test_large_pdf_has_bookmarks_the_outline_reader_finds(tmp_path: Path) -> None:
    blocks = list(markdown_blocks(SOURCE))
    pdf = tmp_path / "large.pdf"
    pages = write_pdf(pdf, [blocks], 2)
    assert pages >= 2
    found = pdf_sections(pdf)
    assert found is not None
    assert "Selecting columns" in [s.title for s in found if s.kind == "section"]


def test_committed_sources_have_licence_origin_and_the_three_shapes() -> None:
    sources = load_sources(ROOT / "benchmarks/constructor/sources.yaml")
    assert {s.shape for s in sources if s.split == "dev"} == {"markdown", "pdf", "html"}
    assert [s.split for s in sources].count("sealed") >= 1
    for source in sources:
        assert (source.folder / "LICENSE.md").is_file()
        origin = (source.folder / "ORIGIN.md").read_text(encoding="utf-8")
        assert "Commit:" in origin and "Licence:" in origin and "Changed:" in origin
    total = sum(p.stat().st_size for p in (ROOT / "benchmarks/constructor/sources").rglob("*"))
    assert total < 15_000_000


def test_pdf_heading_found_when_extraction_lost_a_ligature() -> None:
    from tutorgraph_bench.constructor_outline import _locate

    text = "chapter intro 2 1 python program les python code is stored in text les"
    words = text.split(" ")
    assert _locate(words, 0, ["python", "program", "files"]) == 4


def test_sheet_points_each_same_titled_topic_at_its_own_section(tmp_path: Path) -> None:
    first = "---\ntitle: One\n---\n\n## Diving In\n\n" + SECTION_A
    second = "---\ntitle: Two\n---\n\n## Diving In\n\n" + SECTION_B
    outline = read_outline("tiny", "markdown", [])
    outline.sections = markdown_sections("one.md", first) + markdown_sections("two.md", second)
    state = _state([("Diving In", ["a"]), ("Diving In", ["b"])], SECTIONS, [])
    data = sheet("tiny", state, match_sections(outline, state))
    assert [t["should_match"] for t in data["topics"]] == ["one.md: Diving In", "two.md: Diving In"]


def test_cli_ratings_flag_writes_the_ratings_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from tutorgraph_bench.cli.commands import bench_app

    folder = tmp_path / "benchmarks/constructor/ratings"
    folder.mkdir(parents=True)
    _ratings_file(folder, "ana", ["yes", "yes"], "yes")
    _ratings_file(folder, "ben", ["yes", "no"], "yes")
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "BENCHMARKS.md"
    result = CliRunner().invoke(bench_app, ["constructor", "--ratings", "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = out.read_text(encoding="utf-8")
    assert "<!-- bench:constructor-ratings -->" in report
    assert "| tiny | ana, ben | answerable | 75%" in report
