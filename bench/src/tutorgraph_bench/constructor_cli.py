"""What `tutorgraph bench constructor` does with its flags (the typer command in
`cli/commands.py` only declares them):

- no flag: build every development source of `sources.yaml`, print the per-source table and
  write it to the report's `constructor` section; `--sheets` also writes the reviewers' rating
  sheets (`ratings/<source>.sheet.yaml` and `.template.yaml`);
- `--ratings`: aggregate the reviewers' ratings (no build) into `constructor-ratings`;
- `--large`: the 300-page PDF's build time and peak memory into `constructor-large`;
- `--sealed`: the sealed sources, once per release commit on a clean checkout (the same rule
  as `tutorgraph bench release`), appended to `benchmarks/constructor/sealed_results.yaml` and
  rendered, every row, into `constructor-sealed`; the run's rating sheets are written too, so
  the independent reviewers rate the sealed source's output as well.
"""

from __future__ import annotations

import asyncio
import datetime
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from tutorgraph_bench import constructor_large, constructor_ratings
from tutorgraph_bench.constructor_sheet import RATINGS_DIR, write_sheet
from tutorgraph_bench.constructor_sources import (
    SOURCES_FILE,
    Source,
    SourceRun,
    load_sources,
    markdown,
    plain_table,
    run_sources,
    summary_record,
    table,
)
from tutorgraph_bench.report import write_section
from tutorgraph_bench.sealed import load_record, release_commit

SEALED_RECORD = Path("benchmarks/constructor/sealed_results.yaml")
Print = Callable[[str], None]


def _selected(sources_file: Path, only: str | None) -> list[Source]:
    sources = load_sources(sources_file)
    return [s for s in sources if only is None or s.name == only]


def run_dev(
    sources_file: Path, out: Path, *, only: str | None, sheets: bool, say: Print, command: str
) -> list[SourceRun]:
    runs = asyncio.run(run_sources(_selected(sources_file, only), split="dev"))
    say(plain_table(runs))
    say(table(runs))
    if sheets:
        for run in runs:
            if run.state is not None:
                written = write_sheet(
                    RATINGS_DIR, run.figures.source, run.state, run.figures.matched
                )
                say(f"wrote {written[0]} and {written[1]}")
    write_section(out, "constructor", markdown(runs, command))
    return runs


def run_ratings(out: Path, *, say: Print) -> None:
    results = constructor_ratings.aggregate_folder(RATINGS_DIR)
    body = constructor_ratings.markdown(results)
    say(body)
    write_section(
        out,
        "constructor-ratings",
        "\n".join(
            [
                "## Course constructor rated by independent reviewers",
                "",
                "`tutorgraph bench constructor --ratings` over "
                "`benchmarks/constructor/ratings/<source>.<reviewer>.yaml` (rubric: "
                "`benchmarks/constructor/ratings/RUBRIC.md`). Share of yes over every judgement "
                "with its 95% Wilson interval; agreement and Cohen's kappa over the items two "
                "reviewers both rated.",
                "",
                body,
            ]
        ),
        after="constructor",
    )


def run_large(sources_file: Path, out: Path, *, pages: int, say: Print, command: str) -> None:
    files = [f for s in load_sources(sources_file) if s.split == "dev" for f in s.files]
    with tempfile.TemporaryDirectory() as scratch:
        pdf = Path(scratch) / "large.pdf"
        written = constructor_large.write_pdf(pdf, constructor_large.source_blocks(files), pages)
        say(f"generated a {written}-page PDF; building it in a child process")
        result = constructor_large.run_large(pdf)
    body = constructor_large.markdown(result, command)
    say(body)
    write_section(
        out,
        "constructor-large",
        f"## Course constructor on a {result.pages}-page PDF\n\n" + body,
        after="constructor",
    )


def sealed_markdown(runs: list[dict[str, Any]]) -> str:
    lines = [
        "## Course constructor on the sealed source",
        "",
        "`tutorgraph bench constructor --sealed` (clean checkout, once per release commit; every "
        "recorded run, from `benchmarks/constructor/sealed_results.yaml`).",
        "",
        "| date | commit | source | topics | items | items/topic min / mean | tests understanding "
        "| readiness | topics = one section | sections covered |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        for row in run.get("sources", []):
            lines.append(
                f"| {run['date']} | {str(run['commit'])[:10]} | {row['source']} | "
                f"{row['topics']} | "
                f"{row['items']} | {row['items_per_topic_min']} / {row['items_per_topic_mean']} | "
                f"{row['tests_understanding']} | {row['readiness']} | {row['topics_one_section']} "
                f"| {row['sections_covered']} |"
                + (f" build failed: {row['error']}" if row.get("error") else "")
            )
    return "\n".join(lines)


def run_sealed(sources_file: Path, out: Path, *, root: Path, say: Print) -> None:
    commit = release_commit(root, SEALED_RECORD)  # refuses a dirty tree or a recorded commit
    runs = asyncio.run(run_sources(load_sources(sources_file), split="sealed"))
    row = {
        "date": datetime.date.today().isoformat(),
        "commit": commit,
        "benchmark": "constructor-sealed",
        "sources": [summary_record(r.figures) for r in runs],
    }
    recorded = [*load_record(SEALED_RECORD), row]
    header = (
        "# The constructor's sealed source, one row per release run (`tutorgraph bench "
        "constructor --sealed`,\n# clean checkout, once per commit), appended by the command and "
        "never edited by hand.\n"
    )
    SEALED_RECORD.write_text(
        header + yaml.safe_dump({"runs": recorded}, sort_keys=False, allow_unicode=True),
        encoding="utf-8",
    )
    say(plain_table(runs))
    # The reviewers rate the sealed source's output too (they never see the builder, so rating
    # it tunes nothing); its sheets are written from this one recorded run.
    for run in runs:
        if run.state is not None:
            written = write_sheet(RATINGS_DIR, run.figures.source, run.state, run.figures.matched)
            say(f"wrote {written[0]} and {written[1]}")
    write_section(out, "constructor-sealed", sealed_markdown(recorded), after="constructor")


def main(
    *,
    sources_file: Path = SOURCES_FILE,
    out: Path,
    only: str | None = None,
    sheets: bool = False,
    ratings: bool = False,
    large: bool = False,
    pages: int = constructor_large.PAGES,
    sealed: bool = False,
    say: Print = print,
) -> None:
    command = "tutorgraph bench constructor"
    if ratings:
        run_ratings(out, say=say)
    elif large:
        run_large(sources_file, out, pages=pages, say=say, command=command + " --large")
    elif sealed:
        run_sealed(sources_file, out, root=Path.cwd(), say=say)
    else:
        run_dev(sources_file, out, only=only, sheets=sheets, say=say, command=command)
