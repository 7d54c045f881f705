"""The golden file of per-answer verdicts on the development half of the learner answers.

`tests/bench/test_quality_floor.py` grades the development half with the offline grader and
compares every answer's verdict with `tests/bench/golden/learner_answers_dev.tsv`, so any rule,
parameter or lexicon edit shows in review as the answers whose score or labels it moved. After an
intended change, rewrite the file and commit it with the change:

    .venv/bin/python -m tutorgraph_bench.golden

(The tests run with the TUTORGRAPH_* environment cleared, so the rewrite is this command, not a
test flag.)
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path

from tutorgraph_bench.learner_answers import CATEGORIES, Graded, development_half, grade_all
from tutorgraph_bench.splits import DEFAULT_SPLITS, load_split

# The repository root is four levels up (bench/src/tutorgraph_bench/golden.py): the file is
# written there whatever the working directory.
GOLDEN = (
    Path(__file__).resolve().parents[3] / "tests" / "bench" / "golden" / "learner_answers_dev.tsv"
)
COLUMNS = ("question", "category", "voice", "score", "error_type", "misconceptions")
HEADER = (
    "# Per-answer verdicts of the offline grader on the development half of the learner\n"
    "# answers (benchmarks/splits.yaml): score rounded to 2 decimals, the error type and the\n"
    "# misconceptions it found ('-': none). tests/bench/test_quality_floor.py fails when\n"
    "# today's grading differs from this file.\n"
    "# After an intended change, rewrite it and commit it with the change:\n"
    "#   .venv/bin/python -m tutorgraph_bench.golden\n"
)


def render(graded: Sequence[Graded]) -> str:
    """The file's text: the header, the column names, one sorted row per answer."""
    order = {c: i for i, c in enumerate(CATEGORIES)}
    rows = sorted(
        graded, key=lambda g: (g.answer.question_id, order[g.answer.category], g.answer.answer)
    )
    lines = ["\t".join(COLUMNS)]
    for g in rows:
        verdict = g.verdict
        lines.append(
            "\t".join(
                (
                    g.answer.question_id,
                    g.answer.category,
                    g.answer.voice,
                    f"{verdict.score:.2f}",
                    verdict.error_type or "-",
                    ",".join(sorted(verdict.misconceptions)) or "-",
                )
            )
        )
    return HEADER + "\n".join(lines) + "\n"


def difference(expected: str, actual: str, *, limit: int = 60) -> str:
    """A readable diff of two renderings: how many answers moved, then the changed rows."""
    diff = list(
        difflib.unified_diff(
            expected.splitlines(), actual.splitlines(), "golden", "today", n=0, lineterm=""
        )
    )
    changed = [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    moved = len({tuple(line[1:].split("\t")[:2]) for line in changed})
    shown = diff[: limit + 2]
    more = f"\n... and {len(diff) - len(shown)} more diff lines" if len(diff) > len(shown) else ""
    return f"{moved} answer(s) graded differently (- golden, + today):\n" + "\n".join(shown) + more


def development_graded(splits: Path = DEFAULT_SPLITS) -> list[Graded]:
    return grade_all(development_half(load_split(splits)))


def main() -> None:
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(render(development_graded()), encoding="utf-8")
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    main()
