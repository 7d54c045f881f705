"""`tutorgraph bench ...`: measure quality and speed; results go to BENCHMARKS.md."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from tutorgraph_bench.cli._app import OutOption, bench_app, console
from tutorgraph_bench.cli.answers import answers
from tutorgraph_bench.cli.code_answers import code_answers  # noqa: F401  (registers it)
from tutorgraph_bench.cli.load import TABS, load
from tutorgraph_bench.report import write_section
from tutorgraph_bench.splits import DEFAULT_SPLITS

__all__ = ["bench_app"]


@bench_app.command("retrieval")
def retrieval(
    queries: Annotated[Path, typer.Option(help="YAML list of query/course/lesson/heading.")] = Path(
        "benchmarks/retrieval_queries.yaml"
    ),
    content: Annotated[Path, typer.Option(help="Content directory.")] = Path("content"),
    out: OutOption = Path("BENCHMARKS.md"),
) -> None:
    """Recall@1, recall@5 and MRR of course search on the authored question set."""
    from tutorgraph_bench.retrieval import markdown, run_retrieval_benchmark

    result = run_retrieval_benchmark(content_dir=content, queries=queries)
    console.print(
        f"{result.cases} queries: recall@1 {result.recall_at_1:.3f}, "
        f"recall@5 {result.recall_at_5:.3f}, MRR {result.mrr:.3f}, "
        f"heading@5 {result.heading_at_5:.3f}"
    )
    for miss in result.misses:
        console.print(f"  miss: {miss}", highlight=False)
    write_section(out, "retrieval", markdown(result, "tutorgraph bench retrieval"))
    console.print(f"wrote {out}")


@bench_app.command("questions")
def questions(
    data: Annotated[Path, typer.Option(help="Labelled learner questions (YAML).")] = Path(
        "benchmarks/tutor/learner_questions.yaml"
    ),
    content: Annotated[Path, typer.Option(help="Content directory.")] = Path("content"),
    out: OutOption = Path("BENCHMARKS.md"),
) -> None:
    """Which lesson and heading the offline tutor answers learner-phrased questions from."""
    from tutorgraph_bench.tutor_questions import markdown, run_questions_benchmark

    result = run_questions_benchmark(content_dir=content, path=data)
    console.print(
        f"{len(result.cases)} questions: lesson@1 {result.share('lesson'):.3f}, heading "
        f"{result.share('heading'):.3f}, redirected {result.share('redirect'):.3f}",
        highlight=False,
    )
    command = "tutorgraph bench questions"
    if data != Path("benchmarks/tutor/learner_questions.yaml"):
        command += f" --data {data}"
    write_section(out, "tutor-questions", markdown(result, command))
    console.print(f"wrote {out}")


@bench_app.command("eval")
def evaluation(
    real_lesson: Annotated[
        str | None,
        typer.Option(help="Lesson whose scenarios also run on the tiny real model ('' skips)."),
    ] = "self-attention",
    content: Annotated[Path, typer.Option(help="Content directory.")] = Path("content"),
    out: OutOption = Path("BENCHMARKS.md"),
) -> None:
    """Every evaluation scenario on the offline engine, and one lesson's on a real tiny model
    (llama.cpp, when `make install-llama` has run), compared side by side."""
    from tutorgraph_bench.evals import markdown, run_eval_benchmark

    with console.status("tutor evaluation"):
        results = run_eval_benchmark(content_dir=content, real_lesson=real_lesson or None)
    for result in results:
        summary = result.summary()
        rates = {k: _percent(summary[k]) for k in summary if isinstance(summary[k], float)}
        console.print(
            f"{result.label}: layers 0-1 {rates['layers_0_1_pass_rate']}, pedagogy "
            f"{rates['pedagogy_pass_rate']}, expectations {rates['expectations_passed']}",
            highlight=False,
        )
    command = "tutorgraph bench eval"
    if real_lesson != "self-attention":
        command += f" --real-lesson '{real_lesson or ''}'"
    write_section(out, "tutor-eval", markdown(results, command))
    console.print(f"wrote {out}")


def _percent(value: float) -> str:
    return "n/a" if value != value else f"{value:.0%}"  # NaN: nothing to rate


@bench_app.command("kt")
def kt(
    data: Annotated[Path, typer.Option(help="The assistments2009 benchmark folder.")] = Path(
        "../shared/benchmarks/assistments2009"
    ),
    pybkt_python: Annotated[
        Path | None,
        typer.Option(help="Python of the pyBKT virtualenv (benchmarks/pybkt/requirements.txt)."),
    ] = None,
    out: OutOption = Path("BENCHMARKS.md"),
) -> None:
    """Knowledge-tracing AUC/RMSE: our BKT vs pyBKT and the platform's baselines."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from tutorgraph_bench.kt import markdown, run_kt_benchmark

    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress:
        result = run_kt_benchmark(data, pybkt_python=pybkt_python, progress=progress)
    for score in [*result.reproduction, *result.students]:
        console.print(f"{score.model}: AUC {score.auc:.4f}, RMSE {score.rmse:.4f}", highlight=False)
    if result.pybkt.auc is not None:
        console.print(f"pyBKT: AUC {result.pybkt.auc:.4f}, fit {result.pybkt.fit_seconds:.1f} s")
    else:
        console.print(result.pybkt.note, highlight=False)
    command = f"tutorgraph bench kt --data {data}"
    if pybkt_python is not None:
        command += f" --pybkt-python {pybkt_python}"
    write_section(out, "kt", markdown(result, command))
    console.print(f"wrote {out}")


GRADING_DATA = {
    "semeval": Path("../shared/benchmarks/semeval2013_2way/semeval2013_task7_2way_long.csv"),
    "saf": Path("../shared/benchmarks/saf/saf_long.csv"),
}


class GradingDataset(StrEnum):
    semeval = "semeval"
    saf = "saf"


@bench_app.command("grading")
def grading(
    dataset: Annotated[GradingDataset, typer.Option(help="Which human-graded benchmark.")],
    data: Annotated[
        Path | None, typer.Option(help="The benchmark CSV (default: ../shared/benchmarks/...).")
    ] = None,
    fit: Annotated[
        bool, typer.Option("--fit", help="Refit the offline calibration on the train split first.")
    ] = False,
    calibration: Annotated[
        Path | None,
        typer.Option(
            help="Calibration JSON to read (and write with --fit); default: the shipped one."
        ),
    ] = None,
    out: OutOption = Path("BENCHMARKS.md"),
) -> None:
    """Grading agreement with human graders: SemEval-2013 Task 7 (2-way) or SAF (English)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from tutorgraph.grading.calibration import DEFAULT_PATH as DEFAULT_CALIBRATION
    from tutorgraph_bench.grading import markdown, run_grading_benchmark

    name = dataset.value
    path = data if data is not None else GRADING_DATA[name]
    # The offline grader runs here; `run_grading_benchmark(grader=...)` takes any
    # GradingRequest -> Verdict callable, which is where an LLM judge plugs in.
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeElapsedColumn(), console=console) as progress:
        result = run_grading_benchmark(
            "semeval" if name == "semeval" else "saf",
            path,
            fit=fit,
            calibration_path=calibration or DEFAULT_CALIBRATION,
            progress=progress,
        )
    for row in result.two_way:
        console.print(
            f"{row.subset} {row.split}: accuracy {row.accuracy:.3f}, macro-F1 {row.macro_f1:.3f}, "
            f"weighted-F1 {row.weighted_f1:.3f} (lexical {row.baseline_accuracy:.3f} / "
            f"{row.baseline_macro_f1:.3f})",
            highlight=False,
        )
    for scored in result.scored:
        console.print(
            f"{scored.split}: Pearson {scored.pearson:.3f}, Spearman {scored.spearman:.3f}, "
            f"RMSE {scored.rmse:.3f}, 3-label macro-F1 {scored.macro_f1:.3f} "
            f"(lexical Pearson {scored.baseline_pearson:.3f})",
            highlight=False,
        )
    command = f"tutorgraph bench grading --dataset {name} --data {path}" + (" --fit" if fit else "")
    if calibration is not None:
        command += f" --calibration {calibration}"
    write_section(out, f"grading-{name}", markdown(result, command))
    console.print(f"wrote {out}")


@bench_app.command("tutor")
def tutor(
    first_token_delay: Annotated[
        float, typer.Option(help="Seconds the fake model waits before its first token.")
    ] = 0.5,
    token_interval: Annotated[float, typer.Option(help="Seconds between streamed tokens.")] = 0.02,
    reply_tokens: Annotated[int, typer.Option(help="Tokens in each streamed reply.")] = 40,
    sequential: Annotated[int, typer.Option(help="One-at-a-time chats for the ratio.")] = 20,
    concurrency: Annotated[int, typer.Option(help="Chat streams opened at once.")] = 200,
    content: Annotated[Path, typer.Option(help="Content directory.")] = Path("content"),
    out: OutOption = Path("BENCHMARKS.md"),
) -> None:
    """Tutor SSE latency against the fake OpenAI-compatible server: time to first text event
    vs the model's own first-token time, and concurrent streams on one server process."""
    from tutorgraph_bench.tutor import TutorBenchConfig, markdown, run_tutor_benchmark

    config = TutorBenchConfig(
        first_token_delay=first_token_delay,
        token_interval=token_interval,
        reply_tokens=reply_tokens,
        sequential=sequential,
        concurrency=concurrency,
        content_dir=content,
    )
    result = run_tutor_benchmark(config)
    console.print(
        f"first text event {result.sequential_ttft * 1000:.0f} ms vs model "
        f"{result.direct_ttft * 1000:.0f} ms (ratio {result.ratio:.3f}); {concurrency} concurrent: "
        f"{len(result.errors)} errors, median {result.concurrent_ttft(0.5) * 1000:.0f} ms, "
        f"p95 {result.concurrent_ttft(0.95) * 1000:.0f} ms",
        highlight=False,
    )
    for error in sorted(set(result.errors))[:5]:
        console.print(f"  error: {error}", highlight=False)
    command = (
        f"tutorgraph bench tutor --first-token-delay {first_token_delay} "
        f"--token-interval {token_interval} --reply-tokens {reply_tokens} "
        f"--sequential {sequential} --concurrency {concurrency}"
    )
    write_section(out, "tutor", markdown(result, command))
    console.print(f"wrote {out}")


@bench_app.command("assessment")
def assessment(
    learners: Annotated[int, typer.Option(help="Simulated learners per domain/level.")] = 20,
    seed: Annotated[int, typer.Option(help="First random seed of the learner populations.")] = 7,
    seeds: Annotated[int, typer.Option(help="Populations (seeds) of pool learners.")] = 5,
    splits: Annotated[
        Path,
        typer.Option(
            "--splits",
            help="The answer sets and halves (YAML): pool learners answer only from answers the "
            "grader was not tuned on.",
        ),
    ] = DEFAULT_SPLITS,
    paraphrases: Annotated[
        Path, typer.Option(help="Correct answers in other words (skipped when missing).")
    ] = Path("benchmarks/paraphrased_answers.yaml"),
    out: OutOption = Path("BENCHMARKS.md"),
) -> None:
    """Adaptive assessment with simulated learners answering from independently written answers
    the grader was not tuned on, over several seeds: gap detection, questions used,
    orchestration cost; then the reference-worded learners (an upper bound) and correct answers
    in other words."""
    import asyncio
    import dataclasses

    from tutorgraph_bench.assessment import (
        as_pool,
        markdown,
        paraphrase_credit,
        pool_markdown,
        run_assessment_benchmark,
        run_pool_benchmark,
    )
    from tutorgraph_bench.assessment import verdicts as assessment_verdicts
    from tutorgraph_bench.learner_answers import untuned_answers
    from tutorgraph_bench.splits import load_split

    untuned = untuned_answers(load_split(splits)) if splits.is_file() else None
    if untuned is not None and untuned.answers:
        console.print(f"pool: {untuned.description}", highlight=False)
        with console.status(f"pool learners, {seeds} populations"):
            runs = asyncio.run(
                run_pool_benchmark(
                    learners=learners,
                    seeds=range(seed, seed + seeds),
                    pool=as_pool(untuned.answers),
                )
            )
        for run in runs:
            console.print(
                f"seed {run.seed}: gap F1 {run.f1:.3f}, questions {run.share:.0%}", highlight=False
            )
        command = f"tutorgraph bench assessment --learners {learners} --seed {seed} --seeds {seeds}"
        write_section(
            out, "assessment-pool", pool_markdown(runs, command, source=untuned.description)
        )
    else:
        console.print(f"[yellow]no answer the grader was not tuned on ({splits}): skipped[/]")
        write_section(
            out,
            "assessment-pool",
            "## Assessment on independently written answers (simulated learners)\n\n"
            f"Not measured: `{splits}` names no answers the grader was not tuned on "
            "(independently written learner answers; see `tutorgraph_bench/learner_answers.py`). "
            "The reference-worded learners below are an upper bound, not a measure.",
        )
    with console.status("reference-worded learners (upper bound)"):
        result = asyncio.run(
            run_assessment_benchmark(learners=learners, seed=seed, styles=("consistent", "noisy"))
        )
    for style in ("consistent", "noisy"):
        console.print(f"{style} learners: {assessment_verdicts(result, style)}", highlight=False)
    if paraphrases.is_file():
        credit = asyncio.run(paraphrase_credit(paraphrases))
        result = dataclasses.replace(result, paraphrases=credit)
        console.print(
            f"{credit.answers} correct answers in other words: confidence "
            f"{credit.confidence:.2f} (reference answers {credit.reference_confidence:.2f})",
            highlight=False,
        )
    command = f"tutorgraph bench assessment --learners {learners} --seed {seed}"
    write_section(out, "assessment", markdown(result, command))
    console.print(f"wrote {out}")


DEFAULT_BOOK = Path("benchmarks/data/constructor/swc-python-inflammation")
CONSTRUCTOR_SOURCES = Path("benchmarks/constructor/sources.yaml")


@bench_app.command("constructor")
def constructor(
    sources: Annotated[
        Path, typer.Option(help="sources.yaml: the openly licensed sources, file order, split.")
    ] = CONSTRUCTOR_SOURCES,
    only: Annotated[str | None, typer.Option(help="Build only this source (its name).")] = None,
    sheets: Annotated[
        bool, typer.Option(help="Also write the reviewers' rating sheets (ratings/).")
    ] = False,
    ratings: Annotated[
        bool, typer.Option(help="Aggregate the reviewers' ratings instead of building.")
    ] = False,
    large: Annotated[
        bool, typer.Option(help="Build time and peak memory for a generated 300-page PDF.")
    ] = False,
    pages: Annotated[int, typer.Option(help="Pages of the --large PDF.")] = 300,
    sealed: Annotated[
        bool, typer.Option(help="Measure the sealed source (clean checkout, once per commit).")
    ] = False,
    book: Annotated[
        Path | None,
        typer.Option(help="The older single-book benchmark: a folder with sources/ and toc.json."),
    ] = None,
    learners: Annotated[int, typer.Option(help="--book: simulated learners per style.")] = 10,
    seed: Annotated[int, typer.Option(help="--book: random seed of the learners.")] = 7,
    labels: Annotated[
        Path, typer.Option(help="--book: independent judgements of the generated items (YAML).")
    ] = Path("benchmarks/constructor/answerability_labels.yaml"),
    out: OutOption = Path("BENCHMARKS.md"),
) -> None:
    """Build a course offline from each openly licensed source (Markdown lecture notes, a PDF
    chapter, an HTML tutorial): topics, items per topic, understanding share, Bloom spread,
    readiness and sections matched against the source's own outline; or aggregate reviewers'
    ratings, or time a 300-page PDF."""
    if book is not None:
        _constructor_book(book, learners=learners, seed=seed, labels=labels, out=out)
        return
    from tutorgraph_bench.constructor_cli import main

    main(
        sources_file=sources,
        out=out,
        only=only,
        sheets=sheets,
        ratings=ratings,
        large=large,
        pages=pages,
        sealed=sealed,
        say=lambda text: console.print(text, highlight=False, markup=False, soft_wrap=True),
    )
    console.print(f"wrote {out}")


def _constructor_book(book: Path, *, learners: int, seed: int, labels: Path, out: Path) -> None:
    """The older benchmark on one book folder (its sources/ and toc.json, not in the
    repository), written to the report's `constructor-book` section."""
    import asyncio

    from tutorgraph_bench.constructor import markdown, run_constructor_benchmark

    with console.status(f"building a course from {book}"):
        result = asyncio.run(
            run_constructor_benchmark(book, learners=learners, seed=seed, labels=labels)
        )
    console.print(
        f"{result.pages} pages in {result.seconds:.1f} s ({result.pages_per_minute:.0f}/min); "
        f"topics P {result.precision:.2f} R {result.recall:.2f}; "
        f"{result.items} items, answerability {result.answerable_kept:.3f} "
        f"(before validation {result.answerable_generated:.3f})",
        highlight=False,
    )
    command = f"tutorgraph bench constructor --book {book}"
    write_section(out, "constructor-book", markdown(result, command))
    console.print(f"wrote {out}")


INTERVIEW_DATA = Path("benchmarks/interview")


@bench_app.command("interview")
def interview(
    data: Annotated[
        Path, typer.Option(help="resumes/, answers/ and intent_labels_*.yaml (written by helpers).")
    ] = INTERVIEW_DATA,
    seed: Annotated[int, typer.Option(help="Random seed of the simulated candidates.")] = 7,
    out: OutOption = Path("BENCHMARKS.md"),
) -> None:
    """The interviewer: intent accuracy on labelled candidate messages, and simulated
    candidates over independent resumes (repeats, anchor coverage, orchestration cost)."""
    import asyncio

    from tutorgraph_bench.interview import markdown, run_interview_benchmark

    labels = sorted(data.glob("intent_labels*.yaml"))
    with console.status("interviewing simulated candidates") as status:
        result = asyncio.run(
            run_interview_benchmark(
                resumes=data / "resumes",
                answers=data / "answers",
                labels=labels,
                seed=seed,
                progress=lambda text: status.update(f"interviewing: {text}"),
            )
        )
    for intents in result.intents:
        console.print(f"intent accuracy {intents.path.name}: {intents.accuracy:.3f}")
    console.print(
        f"{len(result.runs)} interviews: {result.repeats} repeated questions, coverage "
        f"{result.coverage():.0%}, median orchestration {result.median_orchestration_ms:.1f} ms "
        f"per turn",
        highlight=False,
    )
    command = "tutorgraph bench interview" + (f" --data {data}" if data != INTERVIEW_DATA else "")
    write_section(out, "interview", markdown(result, command))
    console.print(f"wrote {out}")


@bench_app.command("all")
def run_all(out: OutOption = Path("BENCHMARKS.md")) -> None:
    """Every benchmark whose data is available (pyBKT side by side when .bench-venv exists)."""
    retrieval(out=out)
    questions(out=out)
    evaluation(out=out)
    answers(out=out)
    for name, path in GRADING_DATA.items():
        if path.is_file():
            grading(dataset=GradingDataset(name), data=path, out=out)
    if Path("../shared/benchmarks/assistments2009").is_dir():
        pybkt = Path(".bench-venv/bin/python")
        kt(pybkt_python=pybkt if pybkt.exists() else None, out=out)
    assessment(out=out)
    constructor(out=out)
    if (DEFAULT_BOOK / "toc.json").is_file():
        constructor(book=DEFAULT_BOOK, out=out)
    interview(out=out)
    tutor(out=out)
    load(out=out)  # SQLite; PostgreSQL with `bench load --database-url`
    load(tabs=TABS, out=out)  # one learner, many tabs
    load(sandbox=True, out=out)  # the code sandbox's memory and other users' latency
