"""The reviewers' rating sheet for one built course: every kept quiz item and every topic, as a
reader sees them, without any of the builder's internals.

An item shows its id, a key (a hash of question and reference answer: a rating follows the
wording, so an item whose wording changes needs rating again), its topic, the question, its
options and correct option if it is multiple choice, the reference answer, the key points, and
the text of the topic's source section it should be answerable from (with the source heading
the topic was matched to). A topic shows a key (a hash of its title and
the start of its lesson), its title, unit, the first and last lines of its lesson
text and the source heading it should match. Left out on purpose: what the builder thinks an item
asks (`asks`), its Bloom level, type and difficulty, its evidence passage, validation problems,
readiness checks: a reviewer judges the item, not the builder's claims about it.

`template` writes the empty ratings file a reviewer copies to `<source>.<reviewer>.yaml`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tutorgraph.constructor.state import ConstructorState
from tutorgraph_bench.constructor import question_key
from tutorgraph_bench.constructor_outline import SectionsMatched, TopicMatch

RATINGS_DIR = Path("benchmarks/constructor/ratings")
ITEM_CRITERIA = ("answerable", "well_formed", "tests_understanding", "reference_correct")
TOPIC_CRITERIA = ("section_matched",)
EDGE_LINES = 3


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def _heading(match: TopicMatch | None) -> str:
    if match is None or match.best is None:
        return "(none found)"
    return f"{match.best.file}: {match.best.title}"


def sheet(source: str, state: ConstructorState, matched: SectionsMatched | None) -> dict[str, Any]:
    """The sheet as plain data (see the module docstring for what it holds)."""
    structure, bank = state.get("structure"), state.get("quiz_bank")
    by_id = {s.section_id: s for s in state.get("sections", [])}
    topics = structure.ordered_topics() if structure else []
    units = {u.unit_id: u.title for u in structure.units} if structure else {}
    matches = {m.topic_id: m for m in matched.topics} if matched else {}
    lesson = {
        t.topic_id: "\n\n".join(by_id[s].text for s in t.section_ids if s in by_id) for t in topics
    }
    titles = {t.topic_id: t.title for t in topics}
    items = []
    for item in bank.kept() if bank else []:
        row: dict[str, Any] = {
            "id": item.item_id,
            "key": question_key(item.text, item.reference_answer),
            "topic": titles.get(item.topic_id, item.topic_id),
            "question": item.text,
        }
        options = list(getattr(item, "options", []) or [])
        if options:
            row["options"] = options
            index = getattr(item, "correct_index", None)
            row["correct_option"] = (
                options[index] if index is not None and index < len(options) else None
            )
        row["reference_answer"] = item.reference_answer
        row["key_points"] = list(item.key_points)
        row["source_heading"] = _heading(matches.get(item.topic_id))
        row["source_text"] = lesson.get(item.topic_id, "")
        items.append(row)
    topic_rows = []
    for topic in topics:
        text_lines = _lines(lesson[topic.topic_id])
        topic_rows.append(
            {
                "key": question_key(topic.title, lesson[topic.topic_id][:400]),
                "title": topic.title,
                "unit": units.get(topic.unit_id, ""),
                "first_lines": text_lines[:EDGE_LINES],
                "last_lines": text_lines[-EDGE_LINES:],
                "words": len(lesson[topic.topic_id].split()),
                "should_match": _heading(matches.get(topic.topic_id)),
            }
        )
    return {
        "source": source,
        "course_title": structure.title if structure else "",
        "rubric": "benchmarks/constructor/ratings/RUBRIC.md",
        "items": items,
        "topics": topic_rows,
    }


def template(data: dict[str, Any]) -> dict[str, Any]:
    """The empty ratings file for a sheet: every item and topic, every criterion unanswered."""
    return {
        "source": data["source"],
        "reviewer": "",
        "items": [
            {"key": row["key"], "id": row["id"], **dict.fromkeys(ITEM_CRITERIA)}
            for row in data["items"]
        ],
        "topics": [
            {"key": row["key"], "title": row["title"], **dict.fromkeys(TOPIC_CRITERIA)}
            for row in data["topics"]
        ],
    }


def _dump(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def write_sheet(
    folder: Path, source: str, state: ConstructorState, matched: SectionsMatched | None
) -> tuple[Path, Path]:
    """Write `<source>.sheet.yaml` and `<source>.template.yaml`; their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    data = sheet(source, state, matched)
    sheet_path = folder / f"{source}.sheet.yaml"
    template_path = folder / f"{source}.template.yaml"
    header = (
        f"# Rating sheet for {source}: rate every item and topic with the rubric in RUBRIC.md.\n"
        "# Copy the .template.yaml next to this file to <source>.<your-name>.yaml and fill it.\n"
    )
    sheet_path.write_text(header + _dump(data), encoding="utf-8")
    template_path.write_text(_dump(template(data)), encoding="utf-8")
    return sheet_path, template_path
