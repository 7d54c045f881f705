"""The readiness report: weighted checks of content, structure and quiz bank, a 0-100 score,
and the reasons behind it, computed from the structure and bank as they are (a review edit that
changes no question cannot make a course ready). The weights and bars are parameters
(`readiness` in constructor/parameters.yaml; shipped values in brackets):

| check (API name)       | weight [shipped]        | passes when                                   |
|------------------------|-------------------------|-----------------------------------------------|
| content                | content [0.10]          | every uploaded file was read                  |
| structure *            | structure [0.20]        | no structure issues (no cycles, no empty      |
|                        |                         | unit, key points everywhere)                  |
| answerability *        | answerability [0.25]    | >= answerability_target [95%] of kept items   |
|                        |                         | have a passage supporting their key points    |
|                        |                         | among the top results of a search with the    |
|                        |                         | question alone, not the question's own        |
|                        |                         | sentence (`EvidenceIndex.supporting_passage`) |
| tests understanding *  | understanding [0.10]    | >= understanding_target [60%] of kept items   |
|                        |                         | ask why / how / what if / compare / predict / |
|                        |                         | apply / debug / which command                 |
| no leaks or duplicates | leaks [0.10]            | no kept item states its answer (a long key    |
|                        |                         | point mostly, a short one or a blank's answer |
|                        |                         | in full) or repeats another                   |
| topic coverage *       | topic_coverage [0.15]   | a topic of >= substantial_topic_words [150]   |
|                        |                         | has >= min_items_per_topic [3] kept items,    |
|                        |                         | any other topic at least one                  |
| bloom coverage *       | bloom_coverage [0.10]   | such topics' items reach >= min_bloom_levels  |
|                        |                         | [2] Bloom levels                              |
| objectives             | objectives [0.10]       | >= objective_share [60%] of each topic's key  |
|                        |                         | points are asked about by some item           |
| exercises excluded *   | exercises [0.05]        | no topic is an exercises or reading section,  |
|                        |                         | and no item's evidence comes only from one    |
| prerequisites *        | prerequisites [0.05]    | every prerequisite comes earlier in the       |
|                        |                         | course, and none goes round in a circle       |

A course is ready at `ready_at` [70] with no failed blocking check (starred).

What it cannot do: "supports its key points" is word evidence (item_checks.py), not a reading
of meaning; a chunk that says the opposite with the same words counts."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tutorgraph.constructor.analysis import structure_issues
from tutorgraph.constructor.item_checks import EvidenceIndex, duplicates, leaks
from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import (
    UNDERSTANDING_ASKS,
    Check,
    ConstructorState,
    CourseStructure,
    FileFailure,
    QuizBank,
    QuizItem,
    ReadinessReport,
    SourceChunk,
    SourceFile,
    SourceSection,
)
from tutorgraph.constructor.text import (
    FENCE_BLOCK,
    overlap,
    stems_of,
)
from tutorgraph.text.tokens import normalise
from tutorgraph.wording import counted, percent

# A course that fails one of these is not ready whatever its score: a bank that leaves most
# lessons without questions, or asks each at one level only, is not a quiz bank to publish.
BLOCKING = frozenset(
    {
        "structure",
        "answerability",
        "tests understanding",
        "topic coverage",
        "bloom coverage",
        "exercises excluded",
        "prerequisites",
    }
)
# Each check's name in the author's words (the page's and the CLI's label).
LABELS = {
    "content": "Your files",
    "structure": "Structure",
    "answerability": "Answers found in your material",
    "tests understanding": "Questions that test understanding",
    "no leaks or duplicates": "No answer given away, no repeats",
    "topic coverage": "Questions on every lesson",
    "bloom coverage": "Levels of understanding asked",
    "objectives": "Key points asked about",
    "exercises excluded": "Exercises and reading lists left out",
    "prerequisites": "Prerequisites in course order",
}
SHOWN = 5  # issues or topics a check's detail names, at most
BLANK = re.compile(r"_{3,}")
UNDERSTANDING_WORDS = "why, how, what happens if, compare, predict, apply, debug or which command"


def rubric_points(item: QuizItem) -> list[str]:
    """An item's key points as a rubric: trimmed, without repeats, at most
    `rubrics.max_points`."""
    q = constructor_parameters().rubrics
    points: list[str] = []
    for point in item.key_points:
        point = point.strip().rstrip(".")
        if point and all(overlap(stems_of(point), stems_of(p)) < q.repeat_share for p in points):
            points.append(point)
    return points[: q.max_points] or [item.reference_answer.strip().rstrip(".")]


# ---- the whole report ------------------------------------------------------------------------


def assess(
    *,
    files: Sequence[SourceFile],
    failures: Sequence[FileFailure],
    structure: CourseStructure,
    sections: Sequence[SourceSection],
    chunks: Sequence[SourceChunk],
    bank: QuizBank,
) -> ReadinessReport:
    """The report for the course as it is now (what publishing checks, whatever was stored)."""
    index = EvidenceIndex.of(chunks)
    checks = [
        content_check(files, failures),
        structure_check(structure),
        *quiz_checks(structure, bank, index, sections),
    ]
    return score(checks, structure, bank)


def assess_state(state: ConstructorState) -> ReadinessReport | None:
    """`assess` of a build's state; None before there is a structure."""
    structure = state.get("structure")
    if structure is None:
        return None
    return assess(
        files=state.get("files", []),
        failures=state.get("failures", []),
        structure=structure,
        sections=state.get("sections", []),
        chunks=state.get("chunks", []),
        bank=state.get("quiz_bank") or QuizBank(),
    )


def failed_checks(report: ReadinessReport) -> list[str]:
    """The failed checks in the author's words ("Questions that test understanding: ...")."""
    return [f"{LABELS.get(c.name, c.name)}: {c.detail}" for c in report.checks if not c.passed]


# ---- content and structure -------------------------------------------------------------------


def content_check(files: Sequence[SourceFile], failures: Sequence[FileFailure]) -> Check:
    q = constructor_parameters().readiness
    total = len(files) + len(failures)
    share = len(files) / total if total else 0.0
    detail = f"{len(files)} of {counted(total, 'file')} read"
    if failures:
        detail += "; not read: " + ", ".join(f.filename for f in failures)
    empty = [f.filename for f in files if f.words < q.empty_file_words]
    if empty:
        detail += "; almost no text in: " + ", ".join(empty)
        share *= q.empty_file_factor
    return Check(
        name="content", passed=share == 1.0, score=share, weight=q.content_weight, detail=detail
    )


def structure_check(structure: CourseStructure) -> Check:
    q = constructor_parameters().readiness
    issues = structure_issues(structure)
    score = max(0.0, 1.0 - q.structure_issue_cost * len(issues))
    detail = "no issues" if not issues else "; ".join(issues[:SHOWN])
    return Check(
        name="structure", passed=not issues, score=score, weight=q.structure_weight, detail=detail
    )


def prerequisite_check(structure: CourseStructure) -> Check:
    """Every prerequisite comes earlier in the course order, and none is unknown."""
    q = constructor_parameters().readiness
    ordered = structure.ordered_topics()
    position = {t.topic_id: i for i, t in enumerate(ordered)}
    titles = {t.topic_id: t.title for t in structure.topics}
    edges = [(t, p) for t in ordered for p in t.prerequisites]
    wrong = [
        f"“{t.title}” needs “{titles.get(p, p)}”, which comes after it"
        for t, p in edges
        if position.get(p, len(ordered)) >= position[t.topic_id]
    ]
    detail = (
        "no topic builds on another yet"
        if not edges
        else f"all {counted(len(edges), 'prerequisite')} come earlier in the course"
        if not wrong
        else f"{len(wrong)} of {counted(len(edges), 'prerequisite')} point forward: "
        + "; ".join(wrong[:SHOWN])
    )
    return Check(
        name="prerequisites",
        passed=not wrong,
        score=1.0 - len(wrong) / max(1, len(edges)),
        weight=q.prerequisites_weight,
        detail=detail,
    )


# ---- the quiz bank ---------------------------------------------------------------------------


def gives_answer_away(item: QuizItem) -> bool:
    """The question states its answer: most of a long key point (`item_checks.leaks`), all of a
    short one, or a blank's answer elsewhere in its own stem."""
    if leaks(item):
        return True
    asked = stems_of(FENCE_BLOCK.sub(" ", BLANK.sub(" ", item.text)))
    answers = [*item.key_points]
    if item.asks == "blank" or BLANK.search(item.text):
        answers.append(item.reference_answer)
    for answer in answers:
        stems = stems_of(answer)
        short = len(stems) < constructor_parameters().item_checks.leak_min_stems
        if stems and short and stems <= asked:
            return True
    return False


def quiz_checks(
    structure: CourseStructure,
    bank: QuizBank,
    index: EvidenceIndex,
    sections: Sequence[SourceSection] = (),
) -> list[Check]:
    """The bank's checks against the structure and the sources (and the structure's
    prerequisite order). Without `sections`, the exercises check reads the units' lists only."""
    kept = bank.kept()
    return [
        answerability_check(kept, index),
        understanding_check(kept),
        leak_check(kept),
        *coverage_checks(structure, kept),
        objectives_check(structure, kept),
        exercises_check(structure, kept, sections),
        prerequisite_check(structure),
    ]


def answerability_check(kept: Sequence[QuizItem], index: EvidenceIndex) -> Check:
    q = constructor_parameters().readiness
    missed = [i for i in kept if index.supporting_passage(i) is None]
    share = 1.0 - len(missed) / len(kept) if kept else 0.0
    detail = (
        f"{len(kept) - len(missed)} of {counted(len(kept), 'question')} ({percent(share)}) have "
        "a passage in your files that supports the answer, found by searching with the "
        "question alone"
    )
    if not kept:
        detail = "no questions kept: there is nothing to search for"
    if missed:
        detail += "; not found for: " + "; ".join(f"“{_short(i.text)}”" for i in missed[:SHOWN])
    return Check(
        name="answerability",
        passed=share >= q.answerability_target and bool(kept),
        score=share,
        weight=q.answerability_weight,
        detail=detail,
    )


def understanding_check(kept: Sequence[QuizItem]) -> Check:
    q = constructor_parameters().readiness
    deep = sum(1 for i in kept if i.asks in UNDERSTANDING_ASKS)
    share = deep / len(kept) if kept else 0.0
    recall = len(kept) - deep
    detail = (
        f"{deep} of {counted(len(kept), 'question')} ({percent(share)}) ask {UNDERSTANDING_WORDS}; "
        f"{recall} ask to define a term or fill in a blank; the bar is "
        f"{percent(q.understanding_target)}"
    )
    if not kept:
        detail = "no questions kept"
    return Check(
        name="tests understanding",
        passed=share >= q.understanding_target and bool(kept),
        score=min(1.0, share / q.understanding_target) if q.understanding_target else 1.0,
        weight=q.understanding_weight,
        detail=detail,
    )


def leak_check(kept: Sequence[QuizItem]) -> Check:
    q = constructor_parameters().readiness
    leaking = [i for i in kept if gives_answer_away(i)]
    repeated = len(duplicates(kept))
    detail = (
        f"{counted(len(leaking), 'question')} giving the answer away, "
        f"{counted(repeated, 'question')} repeating another"
    )
    if leaking:
        detail += "; giving it away: " + "; ".join(f"“{_short(i.text)}”" for i in leaking[:SHOWN])
    return Check(
        name="no leaks or duplicates",
        passed=not leaking and not repeated,
        score=max(0.0, 1.0 - (len(leaking) + repeated) / max(1, len(kept))),
        weight=q.leaks_weight,
        detail=detail,
    )


def coverage_checks(structure: CourseStructure, kept: Sequence[QuizItem]) -> list[Check]:
    """Items per topic (`min_items_per_topic` for a topic with enough text, one otherwise) and
    the Bloom spread of the topics with enough text."""
    q = constructor_parameters().readiness
    by_topic = {t.topic_id: [i for i in kept if i.topic_id == t.topic_id] for t in structure.topics}
    long_ids = {t.topic_id for t in structure.topics if t.words >= q.substantial_topic_words}

    def needed(topic_id: str) -> int:
        return q.min_items_per_topic if topic_id in long_ids else 1

    thin = [t for t in structure.topics if len(by_topic[t.topic_id]) < needed(t.topic_id)]
    flat = [
        t
        for t in structure.topics
        if t.topic_id in long_ids
        and len({i.bloom_level for i in by_topic[t.topic_id]}) < q.min_bloom_levels
    ]
    topics = max(1, len(structure.topics))
    coverage_detail = (
        f"{len(structure.topics) - len(thin)} of {counted(len(structure.topics), 'topic')} "
        f"have enough questions ({q.min_items_per_topic} for a topic of "
        f"{q.substantial_topic_words}+ words, 1 for a shorter one)"
    )
    if thin:
        coverage_detail += "; too few on: " + ", ".join(
            f"{t.title} ({len(by_topic[t.topic_id])})" for t in thin[:SHOWN]
        )
    bloom_detail = (
        f"{len(long_ids) - len(flat)} of {counted(len(long_ids), 'topic')} of "
        f"{q.substantial_topic_words}+ words ask at {q.min_bloom_levels} or more levels"
        if long_ids
        else f"no topic has {q.substantial_topic_words}+ words, so none needs several levels"
    )
    if flat:
        bloom_detail += "; one level only on: " + ", ".join(t.title for t in flat[:SHOWN])
    return [
        Check(
            name="topic coverage",
            passed=not thin and bool(structure.topics),
            score=1.0 - len(thin) / topics,
            weight=q.topic_coverage_weight,
            detail=coverage_detail,
        ),
        Check(
            name="bloom coverage",
            passed=not flat,
            score=1.0 - len(flat) / max(1, len(long_ids)),
            weight=q.bloom_coverage_weight,
            detail=bloom_detail,
        ),
    ]


def objectives_check(structure: CourseStructure, kept: Sequence[QuizItem]) -> Check:
    q = constructor_parameters().readiness
    scores = [
        _objective_share(t.key_points, [i for i in kept if i.topic_id == t.topic_id])
        for t in structure.topics
    ]
    objectives = sum(scores) / len(scores) if scores else 0.0
    return Check(
        name="objectives",
        passed=objectives >= q.objective_share,
        score=min(1.0, objectives / q.objective_share) if q.objective_share else 1.0,
        weight=q.objectives_weight,
        detail=f"{percent(objectives)} of key points asked about",
    )


def _objective_share(points: Sequence[str], items: Sequence[QuizItem]) -> float:
    if not points:
        return 0.0
    share = constructor_parameters().readiness.objective_asked_share
    asked = [stems_of(" ".join(i.key_points) + " " + i.evidence) for i in items]
    hit = sum(1 for p in points if any(overlap(stems_of(p), a) >= share for a in asked))
    return hit / len(points)


def exercises_check(
    structure: CourseStructure, kept: Sequence[QuizItem], sections: Sequence[SourceSection]
) -> Check:
    """No topic is made of an exercises or reading section, and no item's evidence is found
    only in one (its answer would come from the exercises, not the lesson)."""
    q = constructor_parameters().readiness
    set_aside = {
        s for u in structure.units for s in [*u.exercise_section_ids, *u.reading_section_ids]
    }
    set_aside |= {s.section_id for s in sections if s.role != "lesson"}
    topics = [t for t in structure.topics if set_aside & set(t.section_ids)]
    lesson_text = [normalise(s.text) for s in sections if s.section_id not in set_aside]
    other_text = [normalise(s.text) for s in sections if s.section_id in set_aside]
    items = [i for i in kept if _only_in(normalise(i.evidence), other_text, lesson_text)]
    problems = [f"topic “{t.title}” is an exercises or reading section" for t in topics]
    problems += [f"“{_short(i.text)}” comes from an exercises section" for i in items]
    kept_aside = (
        f"{counted(len(set_aside), 'exercises or reading section')} kept with their units"
        if set_aside
        else "no exercises or reading sections found"
    )
    found = (
        "none is a topic or a question's source" if not problems else "; ".join(problems[:SHOWN])
    )
    detail = f"{kept_aside}; {found}"
    return Check(
        name="exercises excluded",
        passed=not problems,
        score=1.0 - len(problems) / max(1, len(structure.topics) + len(kept)),
        weight=q.exercises_weight,
        detail=detail,
    )


def _only_in(evidence: str, other: Sequence[str], lesson: Sequence[str]) -> bool:
    return (
        bool(evidence)
        and any(evidence in t for t in other)
        and not any(evidence in t for t in lesson)
    )


def _short(text: str) -> str:
    flat = " ".join(FENCE_BLOCK.sub(" [code] ", text).split())
    limit = constructor_parameters().readiness.shown_question_chars
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


# ---- the score -------------------------------------------------------------------------------


def score(checks: Sequence[Check], structure: CourseStructure, bank: QuizBank) -> ReadinessReport:
    total_weight = sum(c.weight for c in checks) or 1.0
    value = round(100 * sum(c.weight * c.score for c in checks) / total_weight)
    failed = [c for c in checks if not c.passed]
    blocked = [c for c in failed if c.name in BLOCKING]
    reasons = [f"{c.name}: {c.detail}" for c in failed] or ["every check passed"]
    kept = bank.kept()
    return ReadinessReport(
        readiness=value,
        ready=value >= constructor_parameters().readiness.ready_at and not blocked,
        checks=list(checks),
        reasons=reasons,
        answerability=next((c.score for c in checks if c.name == "answerability"), 0.0),
        items_per_topic=len(kept) / max(1, len(structure.topics)),
    )
