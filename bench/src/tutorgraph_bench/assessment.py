"""Assessment quality and cost: simulated learners (`learners.py`) take full assessments with
the offline engine on a SQLite checkpointer.

Measured: the error of each assessed topic's final confidence against the learner's true
mastery; gap detection (a reported gap against true mastery below the target, over every agenda
topic — a topic never reached counts as a reported gap, as the report shows it); questions used
against the maximum; and the wall time of each answered question (resume -> evaluate -> update ->
route -> next question, its checkpoint written as the service writes it), with the part
spent inside agents.

Also measured, from `benchmarks/paraphrased_answers.yaml` (correct answers to bank questions
written in other words than the reference answers): the confidence the evaluator gives them,
next to what the reference answers themselves get. The simulated learners answer in the
knowledge base's own words, which suits a lexical grader; this shows what paraphrasing costs."""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import yaml
from langchain_core.runnables import RunnableConfig
from langgraph.types import Command

from tutorgraph.assessment.agents import evaluate_response, grading_request
from tutorgraph.assessment.bank import as_question_output
from tutorgraph.assessment.context import AssessmentContext
from tutorgraph.assessment.graph import AssessmentGraph, compile_graph
from tutorgraph.assessment.router import HIGH_CONFIDENCE
from tutorgraph.assessment.service import pending_interrupt
from tutorgraph.assessment.state import AssessmentInput
from tutorgraph.engines import offline_engine
from tutorgraph.knowledge import TargetLevel, get_domain
from tutorgraph.learner_model.evaluator import Evaluator
from tutorgraph.llm import Message, Model, SchemaT, StreamEvent, ToolSpec
from tutorgraph.settings import Settings
from tutorgraph.store.checkpoints import ASSESSMENT_DURABILITY, open_checkpointer
from tutorgraph_bench.learner_answers import LearnerAnswer
from tutorgraph_bench.learners import LEARNER_STYLES, LearnerStyle, Pool, SimulatedLearner
from tutorgraph_bench.metrics import Interval, bootstrap, mean_interval, percentile

__all__ = [
    "LEARNER_STYLES",
    "AssessmentBenchmark",
    "markdown",
    "paraphrase_credit",
    "run_assessment_benchmark",
    "verdicts",
]

CONFIGS: tuple[tuple[str, TargetLevel], ...] = (
    ("python", "junior"),
    ("python", "mid"),
    ("python", "senior"),
    ("machine-learning", "mid"),
    ("machine-learning", "staff"),
)


class TimedModel:
    """Passes calls through, adding up the seconds spent inside the model (the agents)."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.name = inner.name
        self.supports_tools = inner.supports_tools
        self.can_stream = inner.can_stream
        self.seconds = 0.0

    async def structured(
        self, schema: type[SchemaT], messages: Sequence[Message], *, agent: str, inputs: Any = None
    ) -> SchemaT:
        started = time.perf_counter()
        try:
            return await self.inner.structured(schema, messages, agent=agent, inputs=inputs)
        finally:
            self.seconds += time.perf_counter() - started

    async def stream_chat(
        self,
        messages: Sequence[Message],
        *,
        agent: str,
        tools: Sequence[ToolSpec] = (),
        inputs: Any = None,
    ) -> AsyncIterator[StreamEvent]:
        started = time.perf_counter()
        try:
            async for event in self.inner.stream_chat(
                messages, agent=agent, tools=tools, inputs=inputs
            ):
                yield event
        finally:
            self.seconds += time.perf_counter() - started


@dataclass
class ConfigResult:
    style: LearnerStyle
    domain: str
    level: TargetLevel
    learners: int = 0
    questions: list[int] = field(default_factory=list)
    max_questions: int = 0
    errors: list[float] = field(default_factory=list)
    unassessed: int = 0
    topics: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    fallbacks: int = 0
    unpooled: int = 0
    by_learner: list[tuple[int, int, int]] = field(default_factory=list)  # tp, fp, fn each


@dataclass(frozen=True)
class ParaphraseResult:
    answers: int
    score: float  # mean grading score
    confidence: float  # mean evaluator confidence (demonstrated understanding)
    confident_share: float  # share of answers at confidence >= HIGH_CONFIDENCE
    reference_confidence: float  # mean confidence of the same questions' reference answers
    confidence_interval: Interval  # the mean confidence with its 95% bootstrap interval


@dataclass
class AssessmentBenchmark:
    configs: list[ConfigResult]
    step_ms: list[float]
    agent_ms: list[float]
    paraphrases: ParaphraseResult | None = None

    def totals(self, style: LearnerStyle) -> ConfigResult:
        total = ConfigResult(style, "all", "mid")
        for c in self.styled(style):
            total.learners += c.learners
            total.errors += c.errors
            total.unassessed += c.unassessed
            total.topics += c.topics
            total.tp, total.fp, total.fn, total.tn = (
                total.tp + c.tp, total.fp + c.fp, total.fn + c.fn, total.tn + c.tn
            )  # fmt: skip
            total.by_learner += c.by_learner
        return total

    def styled(self, style: LearnerStyle) -> list[ConfigResult]:
        return [c for c in self.configs if c.style == style]


def precision(c: ConfigResult) -> float:
    return c.tp / (c.tp + c.fp) if c.tp + c.fp else 1.0


def recall(c: ConfigResult) -> float:
    return c.tp / (c.tp + c.fn) if c.tp + c.fn else 1.0


def f1(c: ConfigResult) -> float:
    p, r = precision(c), recall(c)
    return 2 * p * r / (p + r) if p + r else 0.0


def question_share(c: ConfigResult) -> float:
    return statistics.fmean(c.questions) / c.max_questions if c.questions else 0.0


def question_shares(configs: list[ConfigResult]) -> float:
    """Mean over every assessment of questions used / that assessment's maximum."""
    shares = [q / c.max_questions for c in configs for q in c.questions]
    return statistics.fmean(shares) if shares else 0.0


async def run_assessment_benchmark(
    *,
    learners: int,
    seed: int,
    styles: Sequence[LearnerStyle] = LEARNER_STYLES,
    pool: Pool | None = None,
) -> AssessmentBenchmark:
    rng = random.Random(seed)
    model = TimedModel(offline_engine())
    context = AssessmentContext.for_model(model)
    results: list[ConfigResult] = []
    step_ms: list[float] = []
    agent_ms: list[float] = []
    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(
            data_dir=Path(scratch), checkpoint_url=f"sqlite:///{scratch}/checkpoints.db"
        )
        async with open_checkpointer(settings) as checkpointer:
            graph = compile_graph(checkpointer)
            for style in styles:
                for domain, level in CONFIGS:
                    result = ConfigResult(style, domain, level)
                    for index in range(learners):
                        kb = get_domain(domain)
                        learner = SimulatedLearner.generate(kb, level, rng, style=style, pool=pool)
                        thread = f"{seed}-{style}-{domain}-{level}-{index}"
                        config: RunnableConfig = {"configurable": {"thread_id": thread}}
                        await assess_learner(
                            graph, context, model, learner, config, step_ms, agent_ms
                        )
                        score_learner(result, learner, (await graph.aget_state(config)).values)
                        result.fallbacks += learner.fallbacks
                        result.unpooled += learner.unpooled
                    results.append(result)
    return AssessmentBenchmark(results, step_ms, agent_ms)


async def assess_learner(
    graph: AssessmentGraph,
    context: AssessmentContext,
    model: TimedModel,
    learner: SimulatedLearner,
    config: RunnableConfig,
    step_ms: list[float],
    agent_ms: list[float],
) -> None:
    start: AssessmentInput = {"domain": learner.kb.name, "target_level": learner.target_level}
    await graph.ainvoke(start, config, context=context, durability=ASSESSMENT_DURABILITY)
    while (waiting := pending_interrupt(await graph.aget_state(config))) is not None:
        question = waiting["question"]
        answer = learner.answer(question["id"], question["topic"])
        agents_before, started = model.seconds, time.perf_counter()
        await graph.ainvoke(
            Command(resume=answer), config, context=context, durability=ASSESSMENT_DURABILITY
        )
        step_ms.append((time.perf_counter() - started) * 1000)
        agent_ms.append((model.seconds - agents_before) * 1000)


def score_learner(result: ConfigResult, learner: SimulatedLearner, values: dict[str, Any]) -> None:
    nodes = values["knowledge_graph"]["nodes"]
    reported = {gap["topic_id"] for gap in values["enriched_gap_analysis"]["gaps"]}
    truth = learner.true_gaps()
    result.learners += 1
    result.questions.append(len(values["questions"]))
    result.max_questions = values["max_questions"]
    before = (result.tp, result.fp, result.fn)
    scored = learner.scored_topics()  # a pool learner: the topics answered from the pool
    for topic, mastery in learner.mastery.items():
        if topic not in scored:
            continue
        result.topics += 1
        if topic in nodes:
            result.errors.append(abs(nodes[topic]["confidence"] - mastery))
        else:
            result.unassessed += 1
        if topic in reported:
            result.tp, result.fp = result.tp + (topic in truth), result.fp + (topic not in truth)
        else:
            result.fn, result.tn = result.fn + (topic in truth), result.tn + (topic not in truth)
    tp, fp, fn = (
        now - then for now, then in zip((result.tp, result.fp, result.fn), before, strict=True)
    )
    result.by_learner.append((tp, fp, fn))


async def paraphrase_credit(path: Path) -> ParaphraseResult:
    """Evaluate every answer of the paraphrase file, and each question's reference answer."""
    rows = yaml.safe_load(path.read_text(encoding="utf-8"))["answers"]
    model = offline_engine()
    evaluator = Evaluator(model)
    scores: list[float] = []
    confidences: list[float] = []
    references: list[float] = []
    for row in rows:
        found = get_domain(row["domain"]).question(row["question"])
        if found is None:
            raise ValueError(f"{path}: no question {row['question']} in {row['domain']}")
        topic, bank_question = found
        question = as_question_output(bank_question)
        for answer, into in ((row["answer"], confidences), (question.reference_answer, references)):
            output = await evaluate_response(model, evaluator, topic, question, answer)
            into.append(output.confidence)
        verdict, _ = await evaluator.verdict(grading_request(topic, question, row["answer"]))
        scores.append(verdict.score)
    return ParaphraseResult(
        answers=len(rows),
        score=statistics.fmean(scores),
        confidence=statistics.fmean(confidences),
        confident_share=sum(c >= HIGH_CONFIDENCE for c in confidences) / len(confidences),
        reference_confidence=statistics.fmean(references),
        confidence_interval=mean_interval(confidences),
    )


def _table(result: AssessmentBenchmark, style: LearnerStyle) -> list[str]:
    rows = [
        "| domain / level | learners | max questions | mean questions (share) | confidence MAE "
        "| topics not reached | gap precision | gap recall | gap F1 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in result.styled(style):
        rows.append(
            f"| {c.domain} / {c.level} | {c.learners} | {c.max_questions} | "
            f"{statistics.fmean(c.questions):.1f} ({question_share(c):.0%}) | "
            f"{statistics.fmean(c.errors):.3f} | {c.unassessed}/{c.topics} | "
            f"{precision(c):.3f} | {recall(c):.3f} | {f1(c):.3f} |"
        )
    total = result.totals(style)
    rows.append(
        f"| **all** | {total.learners} | | **{question_shares(result.styled(style)):.0%}** | "
        f"{statistics.fmean(total.errors):.3f} | {total.unassessed}/{total.topics} | "
        f"{precision(total):.3f} | {recall(total):.3f} | **{f1(total):.3f}** |"
    )
    return rows


def verdicts(result: AssessmentBenchmark, style: LearnerStyle) -> str:
    configs = result.styled(style)
    score, share = f1(result.totals(style)), question_shares(configs)
    pooled = gap_f1_interval(result.totals(style).by_learner)
    return (
        f"gap F1 {score:.3f}, 95% interval [{pooled.low:.3f}, {pooled.high:.3f}] over "
        f"{pooled.n} learners (target >= 0.85: {'met' if score >= 0.85 else 'NOT met'}); "
        f"questions {share:.0%} of the maximum (target <= 60%: "
        f"{'met' if share <= 0.6 else 'NOT met'})"
    )


def markdown(result: AssessmentBenchmark, command: str) -> str:
    steps, agents = result.step_ms, result.agent_ms
    median = statistics.median(steps)
    lines = [
        "## Assessment (reference-worded simulated learners: an upper bound)",
        "",
        f"Command: `{command}`",
        "",
        "Simulated learners with a known true mastery per topic take full assessments with the "
        "offline engine on a SQLite checkpointer; `bench/src/tutorgraph_bench/learners.py` defines "
        "them. Confidence MAE: |final confidence - true mastery| over the topics assessed. Gap "
        "detection: a reported gap against a true mastery below the level's target, over every "
        "agenda topic (a topic never reached is reported as a gap, as the report shows it). "
        "Each answer's confidence is the share of the question's understanding it demonstrated "
        "(the lower of the grader's correctness and key-point coverage; "
        "`assessment/agents.py`). These learners answer with the knowledge base's own reference "
        "answers, fragments of them and misconception cues, so they measure the simulator as "
        "much as the assessment: an upper bound, not a measure.",
    ]
    for style in LEARNER_STYLES:
        if not result.styled(style):
            continue
        title = {
            "consistent": "Consistent learners (the issue's: reference answers on mastered "
            "topics, degraded or misconception-driven answers otherwise)",
            "noisy": "Noisy learners (each question known with probability = mastery)",
        }[style]
        lines += ["", f"### {title}", "", *_table(result, style), "", verdicts(result, style) + "."]
    if result.paraphrases is not None:
        p = result.paraphrases
        lines += [
            "",
            "### Correct answers in other words",
            "",
            f"{p.answers} correct answers to bank questions written in other words than the "
            "reference answers (`benchmarks/paraphrased_answers.yaml`, hand-written): mean "
            f"grading score {p.score:.2f}, mean evaluator confidence **{p.confidence:.2f}** "
            f"(95% bootstrap interval [{p.confidence_interval.low:.2f}, "
            f"{p.confidence_interval.high:.2f}]; {p.confident_share:.0%} of them at >= "
            f"{HIGH_CONFIDENCE}); the same questions' "
            f"reference answers get {p.reference_confidence:.2f}. Read this with care: the "
            "knowledge base's accepted phrasings were written by the same team that wrote these "
            "paraphrases, after it had read them, so the figure shows how far the phrasings "
            "reach one writer's wording, not how the grader does on learners it never met (see "
            "the independently written answers above).",
        ]
    lines += [
        "",
        "### Orchestration cost per answered question",
        "",
        f"{len(steps)} answers (resume -> evaluate -> update -> route -> next question, "
        f"its checkpoint written as the service writes it): median **{median:.1f} ms**, "
        f"p95 {percentile(steps, 0.95):.1f} ms; "
        f"of which inside the agents (offline grading, question choice, enrichment, plan): median "
        f"{statistics.median(agents):.1f} ms. Target median <= 25 ms: "
        f"{'met' if median <= 25 else 'NOT met'}.",
    ]
    return "\n".join(lines)


def as_pool(answers: Sequence[LearnerAnswer]) -> Pool:
    """Answers by question and category, as the pool learners draw them."""
    pool: Pool = {}
    for answer in answers:
        pool.setdefault(answer.question_id, {}).setdefault(answer.category, []).append(
            answer.answer
        )
    return pool


@dataclass(frozen=True)
class SeedRun:
    seed: int
    result: AssessmentBenchmark

    @property
    def total(self) -> ConfigResult:
        return self.result.totals("pool")

    @property
    def f1(self) -> float:
        return f1(self.total)

    @property
    def share(self) -> float:
        return question_shares(self.result.styled("pool"))

    @property
    def mae(self) -> float:
        return statistics.fmean(self.total.errors)

    def _share_of_answers(self, count: Callable[[ConfigResult], int]) -> float:
        configs = self.result.styled("pool")
        answers = sum(sum(c.questions) for c in configs)
        return sum(count(c) for c in configs) / answers if answers else 0.0

    @property
    def fallback_share(self) -> float:
        """Answers taken from another question of the topic (a question the pool lacks)."""
        return self._share_of_answers(lambda c: c.fallbacks)

    @property
    def unpooled_share(self) -> float:
        """Answers on a topic outside the pool (reference-worded, that topic not scored)."""
        return self._share_of_answers(lambda c: c.unpooled)


async def run_pool_benchmark(*, learners: int, seeds: Sequence[int], pool: Pool) -> list[SeedRun]:
    """The pool learners over several seeds (a new population per seed)."""
    runs = []
    for seed in seeds:
        result = await run_assessment_benchmark(
            learners=learners, seed=seed, styles=("pool",), pool=pool
        )
        runs.append(SeedRun(seed, result))
    return runs


def _mean_sd(values: Sequence[float], digits: int = 3) -> str:
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.{digits}f} ± {sd:.{digits}f}"


def gap_f1_interval(by_learner: Sequence[tuple[int, int, int]]) -> Interval:
    """Gap F1 over the learners' summed counts, with a bootstrap interval over learners."""
    counts = np.array(by_learner, dtype=np.float64).reshape(-1, 3)

    def f1_of(ix: npt.NDArray[np.intp]) -> float:
        tp, fp, fn = counts[ix].sum(axis=0)
        return float(2 * tp / (2 * tp + fp + fn)) if tp else 0.0

    return bootstrap(f1_of, len(counts))


def pool_markdown(runs: Sequence[SeedRun], command: str, *, source: str) -> str:
    f1s, shares = [r.f1 for r in runs], [r.share for r in runs]
    mean_f1, mean_share = statistics.fmean(f1s), statistics.fmean(shares)
    steps = [ms for r in runs for ms in r.result.step_ms]
    median = statistics.median(steps)
    pooled_f1 = gap_f1_interval([c for r in runs for c in r.total.by_learner])
    pooled_share = mean_interval(
        [q / c.max_questions for r in runs for c in r.result.styled("pool") for q in c.questions]
    )
    lines = [
        "## Assessment on independently written answers (simulated learners)",
        "",
        f"Command: `{command}`",
        "",
        "Simulated learners with a known true mastery per topic "
        "(`tutorgraph_bench/learners.py`, style `pool`) take full assessments with the offline "
        f"engine. On every topic the pool covers they answer from {source}: answers the grader "
        "was not tuned on, written by people who never saw the references or the grader; a "
        "correct one on a mastered topic, a partial one on a topic just below its target, a "
        "wrong one otherwise, one category off 10% of the time. A topic the pool does not cover "
        "is answered with reference-worded answers (as the upper-bound learners below do) and "
        "left out of every figure. Gap detection: a reported gap against a true mastery below "
        "the level's target, over the scored agenda topics. One population per seed.",
        "",
        "| seed | learners | scored topics | gap precision | gap recall | gap F1 | questions "
        "(share of max) | confidence MAE | answers from another question of the topic | "
        "answers on unscored topics |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        t = r.total
        lines.append(
            f"| {r.seed} | {t.learners} | {t.topics} | {precision(t):.3f} | {recall(t):.3f} | "
            f"{r.f1:.3f} | {r.share:.0%} | {r.mae:.3f} | {r.fallback_share:.0%} | "
            f"{r.unpooled_share:.0%} |"
        )
    learners = sum(r.total.learners for r in runs)
    lines += [
        "",
        f"Over {len(runs)} seeds: gap F1 **{_mean_sd(f1s)}** (mean ± sd of the seeds; target >= "
        f"0.85: {'met' if mean_f1 >= 0.85 else 'NOT met'}), pooled over the {learners} learners "
        f"{pooled_f1.number()} (95% bootstrap interval over learners); questions "
        f"**{_mean_sd(shares, 2)}** of the maximum (target <= 60%: "
        f"{'met' if mean_share <= 0.6 else 'NOT met'}), pooled {pooled_share.number(2)} over "
        f"{pooled_share.n} assessments; orchestration cost per answered question median "
        f"**{median:.1f} ms** over {len(steps)} answers (target <= 25 ms: "
        f"{'met' if median <= 25 else 'NOT met'}; a timing, so no interval).",
    ]
    return "\n".join(lines)
