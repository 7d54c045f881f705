"""`tutorgraph bench interview`: the interviewer measured on data written without the code.

1. Intent accuracy: the offline classifier on labelled sets of candidate messages
   (benchmarks/interview/intent_labels_*.yaml, written by helpers who never saw the classifier).
   The classifier's cues were developed on `dev1`, `dev2` and `dev3` (their figures show fit);
   the `final` set was never looked at while it was developed and was scored once.
2. Simulated candidates over independent resumes (benchmarks/interview/resumes) through the
   real service on a durable SQLite checkpointer: thorough and terse candidates answer from
   pools written for each resume (benchmarks/interview/answers), picking the answer about the
   project or job the question names; others give empty answers, gibberish, repeat themselves,
   ask to change topic, ask to stop, or write failing code in the sandbox.
   - repeated questions: pairs of questions in one interview that are the same text, the same
     anchor and aspect, or share most content words (Jaccard >= REPEAT_JACCARD, a measure the
     interviewer's own dedup does not use);
   - anchor coverage: the share of the resume's anchors explored before the evaluation, over
     the candidates that let the interview run its course (not those who stop or skip topics);
   - orchestration cost per turn: the wall time of an answer minus the time inside model calls
     (offline engine), median over all turns.
"""

from __future__ import annotations

import random
import re
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tutorgraph import sandbox
from tutorgraph.engines import offline_engine
from tutorgraph.interview.context import InterviewContext
from tutorgraph.interview.dedup import content_words, normalise
from tutorgraph.interview.intent import ACTIVE_CONFIDENCE, classify
from tutorgraph.interview.service import InterviewService
from tutorgraph.settings import Settings
from tutorgraph.store import migrate
from tutorgraph.store.checkpoints import open_checkpointer
from tutorgraph.store.db import Database
from tutorgraph_bench.metrics import wilson

REPEAT_JACCARD = 0.6
MAX_TURNS = 40
PERSONAS = (
    "thorough",
    "terse",
    "empty",
    "gibberish",
    "repeats",
    "change_topic",
    "stop",
    "failing_code",
)
RUN_ITS_COURSE = ("thorough", "terse", "empty", "gibberish", "repeats", "failing_code")
EMPTY = ("I don't know.", "no idea", "pass", "not sure", "I can't remember.")
CHANGE = (
    "Could we talk about something else?",
    "I'd rather move on to another project.",
    "Can we skip this one?",
)
STOP = "I'm sorry, I have to go. Can we stop the interview here?"
FAILING = ("def f(x)\n    return x", "print(undefined_name)", "for i in range(3) print(i)")


@dataclass
class IntentResult:
    path: Path
    items: int
    correct: int
    by_label: dict[str, tuple[int, int]]  # label -> (correct, total)

    @property
    def accuracy(self) -> float:
        return self.correct / self.items if self.items else 0.0


@dataclass
class Run:
    resume: str
    persona: str
    turns: int
    questions: list[dict[str, Any]]
    coverage: float
    evaluated: bool
    repeats: int
    turn_ms: list[float]
    orchestration_ms: list[float]


@dataclass
class InterviewBench:
    intents: list[IntentResult]
    runs: list[Run] = field(default_factory=list)
    sandbox: bool = False

    def coverage(self, personas: Sequence[str] = RUN_ITS_COURSE) -> float:
        chosen = [r.coverage for r in self.runs if r.persona in personas]
        return statistics.mean(chosen) if chosen else 0.0

    @property
    def repeats(self) -> int:
        return sum(r.repeats for r in self.runs)

    @property
    def median_orchestration_ms(self) -> float:
        return statistics.median(ms for r in self.runs for ms in r.orchestration_ms)

    @property
    def median_turn_ms(self) -> float:
        return statistics.median(ms for r in self.runs for ms in r.turn_ms)


def intent_set_use(path: Path) -> str:
    """What a label set was used for, from its name: `intent_labels_devN` developed the
    classifier's cues, `intent_labels_final` was scored once, unseen."""
    stem = path.stem.removeprefix("intent_labels_")
    if stem.startswith("dev"):
        return "development (cues tuned on it)"
    if stem == "final":
        return "final (scored once, unseen)"
    return "not recorded in its name"


def intent_accuracy(path: Path) -> IntentResult:
    items = yaml.safe_load(path.read_text(encoding="utf-8"))["items"]
    correct = 0
    by_label: dict[str, list[int]] = {}
    for item in items:
        guess = classify(item["text"])
        predicted = guess.type if guess.confidence > ACTIVE_CONFIDENCE else "no_intent"
        hit = predicted == item["intent"]
        correct += hit
        tally = by_label.setdefault(item["intent"], [0, 0])
        tally[0] += hit
        tally[1] += 1
    return IntentResult(path, len(items), correct, {k: (v[0], v[1]) for k, v in by_label.items()})


class TimedModel:
    """The offline engine, timing every model call (to take it out of the orchestration cost)."""

    name = "offline"
    supports_tools = True
    can_stream = True

    def __init__(self) -> None:
        self.inner = offline_engine()
        self.seconds = 0.0

    async def structured(
        self, schema: Any, messages: Any, *, agent: str, inputs: Any = None
    ) -> Any:
        started = time.perf_counter()
        try:
            return await self.inner.structured(schema, messages, agent=agent, inputs=inputs)
        finally:
            self.seconds += time.perf_counter() - started

    def stream_chat(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner.stream_chat(*args, **kwargs)


@dataclass
class Candidate:
    persona: str
    pool: dict[str, Any]
    rng: random.Random
    turn: int = 0
    said: list[str] = field(default_factory=list)

    def answer(self, question: str) -> str:
        self.turn += 1
        persona = self.persona
        if persona == "empty":
            return self.rng.choice(EMPTY)
        if persona == "gibberish":
            return " ".join(
                "".join(
                    self.rng.choice("qwrtzpsdfghjklxcvbnm") for _ in range(self.rng.randint(3, 8))
                )
                for _ in range(self.rng.randint(3, 10))
            )
        if persona == "repeats" and self.said:
            return self.said[0]
        if persona == "change_topic" and self.turn % 2 == 0:
            return self.rng.choice(CHANGE)
        if persona == "stop" and self.turn == 4:
            return STOP
        kind = "terse" if persona in ("terse", "failing_code") else "thorough"
        text = self._from_pool(question, kind)
        self.said.append(text)
        return text

    def _from_pool(self, question: str, kind: str) -> str:
        words = content_words(question)
        best, overlap = None, 0
        for item in self.pool.get("items", []):
            shared = len(words & content_words(item["about"]))
            if shared > overlap:
                best, overlap = item, shared
        if best is not None:
            return str(self.rng.choice(best[kind]))
        technical = self.pool.get("technical", [])
        if technical and re.search(r"\btechnical question\b", question, re.IGNORECASE):
            return str(self.rng.choice(technical)["answer"])
        general = self.pool.get("general") or ["I worked on that as part of my job."]
        return str(self.rng.choice(general)) if kind == "thorough" else "I did some of that."


def repeats(questions: Sequence[dict[str, Any]]) -> int:
    primary = [q for q in questions if q["source"] in ("resume", "knowledge_base")]
    found = 0
    for i, a in enumerate(primary):
        for b in primary[:i]:
            same_text = normalise(a["text"]) == normalise(b["text"])
            same_slot = (
                a["source"] == b["source"] == "resume"  # a technical question has its own topic
                and (a["resume_anchor"], a["aspect"]) == (b["resume_anchor"], b["aspect"])
            )
            same_topic = a.get("topic_id") is not None and a.get("topic_id") == b.get("topic_id")
            # A technical question is compared by its knowledge-base text, without the framing
            # every technical question shares ("A technical question on ...").
            left = content_words(a.get("kb_text") or a["text"])
            right = content_words(b.get("kb_text") or b["text"])
            jaccard = len(left & right) / len(left | right) if left | right else 0.0
            if same_text or same_slot or same_topic or jaccard >= REPEAT_JACCARD:
                found += 1
                break
    return found


async def run_interview_benchmark(
    *,
    resumes: Path,
    answers: Path,
    labels: Sequence[Path],
    seed: int = 7,
    progress: Callable[[str], None] = lambda _: None,
) -> InterviewBench:
    bench = InterviewBench(intents=[intent_accuracy(p) for p in labels])
    bench.sandbox = sandbox.sandbox_available()
    files = sorted(p for p in resumes.iterdir() if p.suffix in (".md", ".txt"))
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), environment="development")
        migrate.upgrade(settings)
        database = Database(settings)
        model = TimedModel()
        try:
            async with open_checkpointer(settings) as checkpointer:
                service = InterviewService(
                    database=database,
                    checkpointer=checkpointer,
                    context=InterviewContext.for_model(model),
                    settings=settings.interview,
                )
                for index, path in enumerate(files):
                    pool_path = answers / f"{path.stem}.yaml"
                    pool = yaml.safe_load(pool_path.read_text()) if pool_path.exists() else {}
                    for persona in PERSONAS:
                        if persona == "failing_code" and not bench.sandbox:
                            continue
                        progress(f"{path.name}: {persona}")
                        rng = random.Random(f"{seed}-{index}-{persona}")
                        bench.runs.append(
                            await _interview(service, model, path, persona, pool, rng)
                        )
        finally:
            database.dispose()
    return bench


async def _interview(
    service: InterviewService,
    model: TimedModel,
    path: Path,
    persona: str,
    pool: dict[str, Any],
    rng: random.Random,
) -> Run:
    resume = await service.add_resume(user_id=None, filename=path.name, text=path.read_text())
    view = await service.start(
        user_id=None, resume_id=resume.id, role="Software engineer", level="mid"
    )
    candidate = Candidate(persona, pool, rng)
    turn_ms: list[float] = []
    orchestration_ms: list[float] = []
    for _ in range(MAX_TURNS):
        if view.status == "complete":
            break
        if persona == "failing_code":
            await service.run_code(interview_id=view.id, user_id=None, code=rng.choice(FAILING))
        text = candidate.answer(view.current_question or "")
        model.seconds = 0.0
        started = time.perf_counter()
        view = await service.answer(interview_id=view.id, user_id=None, text=text)
        elapsed = time.perf_counter() - started
        turn_ms.append(1000 * elapsed)
        orchestration_ms.append(1000 * max(0.0, elapsed - model.seconds))
    state = (
        await service.graph.aget_state({"configurable": {"thread_id": f"interview-{view.id}"}})
    ).values
    questions = list(state["questions_asked"])
    final = view.coverage  # the evaluation and closing ask nothing: this is coverage before them
    coverage = final.explored / final.total if final.total else 1.0
    return Run(
        resume=path.name,
        persona=persona,
        turns=len(turn_ms),
        questions=questions,
        coverage=coverage,
        evaluated=view.scorecard is not None,
        repeats=repeats(questions),
        turn_ms=turn_ms,
        orchestration_ms=orchestration_ms,
    )


def markdown(bench: InterviewBench, command: str) -> str:
    lines = [
        "## Interviewer",
        "",
        f"Command: `{command}`",
        "",
        "Intent accuracy of the offline classifier (an intent counts when its confidence is "
        "above 0.7, as `decide` obeys it), with its 95% Wilson interval. The sets were written "
        "by helpers who never saw the classifier; its cues were developed on the three "
        "`dev` sets (they measure fit), and the `final` set was scored once, unseen.",
        "",
        "| set | used for | items | accuracy | per label (correct/total) |",
        "|---|---|---|---|---|",
    ]
    for result in bench.intents:
        labels = ", ".join(f"{k} {c}/{t}" for k, (c, t) in sorted(result.by_label.items()))
        accuracy = wilson(result.correct, result.items)
        lines.append(
            f"| `{result.path.name}` | {intent_set_use(result.path)} | {result.items} | "
            f"{accuracy.number()} | {labels} |"
        )
    personas = Counter(r.persona for r in bench.runs)
    resumes = len({r.resume for r in bench.runs})
    lines += [
        "",
        f"Simulated candidates: {len(bench.runs)} interviews ({resumes} independent resumes x "
        f"{len(personas)} personas), offline engine, SQLite checkpointer, sandbox "
        f"{'on (bubblewrap)' if bench.sandbox else 'unavailable: failing_code skipped'}.",
        "",
        "The resumes (8 Markdown, 4 plain text, from a new graduate to a staff engineer) and "
        "each one's answer pool (thorough and terse answers about every project and job, in the "
        "candidate's voice) were written by a helper who never saw the interviewer. Coverage "
        "counts anchors asked about before the evaluation, however well they were answered; a "
        "repeat is two questions of one interview with the same text, the same resume anchor "
        "and aspect, the same knowledge-base topic, or a content-word Jaccard >= 0.6.",
        "",
        "| persona | interviews | turns (mean) | evaluated | anchor coverage | repeats |",
        "|---|---|---|---|---|---|",
    ]
    for persona in PERSONAS:
        runs = [r for r in bench.runs if r.persona == persona]
        if not runs:
            continue
        lines.append(
            f"| {persona} | {len(runs)} | {statistics.mean(r.turns for r in runs):.1f} | "
            f"{sum(r.evaluated for r in runs)}/{len(runs)} | "
            f"{statistics.mean(r.coverage for r in runs):.0%} | {sum(r.repeats for r in runs)} |"
        )
    lines += [
        "",
        f"- Repeated questions, all interviews: **{bench.repeats}**.",
        f"- Anchor coverage before the evaluation, candidates who let it run its course "
        f"({', '.join(RUN_ITS_COURSE)}): **{bench.coverage():.0%}** of anchors.",
        f"- Median orchestration cost per turn (turn wall time minus time in model calls): "
        f"**{bench.median_orchestration_ms:.1f} ms**; median whole turn with the offline "
        f"engine: {bench.median_turn_ms:.1f} ms.",
    ]
    return "\n".join(lines)
