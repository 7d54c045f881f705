"""Runs scenarios end to end: scripted and simulated learner turns through the real tutor, then
every scoring layer. One `ScenarioResult` per scenario, one `RunResult` per run (saved as JSON).

Pass rates (per scenario): layers 0-1 when its layer-0 behaviour checks (the spec's metrics
against its teaching rhythm) and every layer-1 format-safety check hold; expectations when every
behaviour the scenario itself lists holds (stricter); pedagogy when its automatic pedagogy checks
hold."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from tutorgraph.evals.checks import CheckContext, CheckResult, pedagogy, run_expectations
from tutorgraph.evals.judges import JudgeResult, judge
from tutorgraph.evals.layers import behaviour, behaviour_checks, format_safety
from tutorgraph.evals.runner import Transcript, TutorRunner
from tutorgraph.evals.scenario import Scenario
from tutorgraph.evals.simulator import StudentSimulator
from tutorgraph.llm import Model


class Check(BaseModel):
    name: str
    turn: int
    passed: bool
    detail: str = ""

    @classmethod
    def of(cls, result: CheckResult) -> Check:
        return cls(name=result.name, turn=result.turn, passed=result.passed, detail=result.detail)


class ScenarioResult(BaseModel):
    id: str
    title: str
    lesson: str
    mode: str
    explore: bool
    persona: str
    transcript: dict[str, Any]
    behaviour: dict[str, Any]
    behaviour_checks: list[Check] = Field(default_factory=list)
    format_checks: list[Check]
    expectations: list[Check]
    pedagogy: list[Check]
    judges: list[JudgeResult]
    error: str | None = None

    @property
    def layers_pass(self) -> bool:
        """Layers 0 (behaviour against the spec's rhythm) and 1 (format safety) all hold."""
        checks = self.behaviour_checks + self.format_checks
        return self.error is None and all(c.passed for c in checks)

    @property
    def expectations_pass(self) -> bool:
        """Every behaviour the scenario itself expects holds (stricter than layers 0-1)."""
        return self.error is None and all(c.passed for c in self.expectations)

    @property
    def pedagogy_pass(self) -> bool:
        return self.error is None and all(c.passed for c in self.pedagogy)


class RunResult(BaseModel):
    label: str
    engine: str
    model: str
    ablate: list[str] = Field(default_factory=list)
    started: str
    scenarios: list[ScenarioResult]

    def summary(self) -> dict[str, Any]:
        n = len(self.scenarios)
        expectations = [c for s in self.scenarios for c in s.expectations]
        fmt = [c for s in self.scenarios for c in s.format_checks]
        ped = [c for s in self.scenarios for c in s.pedagogy]
        layer0 = [c for s in self.scenarios for c in s.behaviour_checks]
        judged: dict[str, list[int]] = {}
        for s in self.scenarios:
            for j in s.judges:
                for k, v in j.scores.items():
                    judged.setdefault(k, []).append(v)
        return {
            "scenarios": n,
            "layers_0_1_pass_rate": _rate([s.layers_pass for s in self.scenarios]),
            "expectations_pass_rate": _rate([s.expectations_pass for s in self.scenarios]),
            # only scenarios where a pedagogy check applied (a tutor that never teaches from the
            # course triggers none, and must not score 100% for it)
            "pedagogy_pass_rate": _rate(
                [s.pedagogy_pass for s in self.scenarios if s.pedagogy], empty=float("nan")
            ),
            "pedagogy_scenarios": sum(bool(s.pedagogy) for s in self.scenarios),
            "expectations_passed": _rate([c.passed for c in expectations]),
            "expectations": len(expectations),
            "behaviour_checks_passed": _rate([c.passed for c in layer0]),
            "format_checks_passed": _rate([c.passed for c in fmt]),
            "format_checks": len(fmt),
            "pedagogy_checks_passed": _rate([c.passed for c in ped]),
            "pedagogy_checks": len(ped),
            "errors": sum(s.error is not None for s in self.scenarios),
            "judges_scored": any(j.scored for s in self.scenarios for j in s.judges),
            "judge_means": {k: sum(v) / len(v) for k, v in judged.items()},
        }

    def by_check(self) -> dict[str, tuple[int, int]]:
        """(passed, total) per expectation check name."""
        counts: dict[str, tuple[int, int]] = {}
        for s in self.scenarios:
            for c in s.expectations:
                passed, total = counts.get(c.name, (0, 0))
                counts[c.name] = (passed + c.passed, total + 1)
        return dict(sorted(counts.items()))


def _rate(flags: Sequence[bool], *, empty: float = 1.0) -> float:
    return sum(flags) / len(flags) if flags else empty


async def run_scenario(
    scenario: Scenario,
    *,
    runner: TutorRunner,
    simulator: StudentSimulator,
    judge_model: Model,
    checks: CheckContext,
    course_text: Callable[[str], str],
) -> ScenarioResult:
    context = runner.context(lesson=scenario.lesson, mode=scenario.mode, explore=scenario.explore)
    transcript = Transcript(
        lesson=scenario.lesson,
        mode=scenario.mode,
        explore=scenario.explore,
        engine=runner.model.name,
    )
    error = None
    try:
        for learner in scenario.turns:
            transcript.turns.append(await runner.turn(context, transcript.history(), learner))
        for _ in range(scenario.generated_turns):
            learner = await simulator.next_turn(scenario, transcript, context.concepts)
            transcript.turns.append(await runner.turn(context, transcript.history(), learner))
    except Exception as exc:  # one broken scenario must not stop the run; it is reported
        error = f"{type(exc).__name__}: {exc}"
    errors = [t.error for t in transcript.turns if t.error]
    error = error or (errors[0] if errors else None)
    judges = [
        await judge(judge_model, scenario, transcript, "alignment"),
        await judge(judge_model, scenario, transcript, "outcome"),
    ]
    measured = behaviour(transcript)
    lesson_text = course_text("")  # a reply may cite any lesson of the course
    return ScenarioResult(
        id=scenario.id,
        title=scenario.title,
        lesson=scenario.lesson,
        mode=scenario.mode,
        explore=scenario.explore,
        persona=scenario.persona.kind,
        transcript=transcript.as_dict(),
        behaviour=measured.__dict__,
        behaviour_checks=[Check.of(r) for r in behaviour_checks(transcript, measured)],
        format_checks=[Check.of(r) for r in format_safety(transcript, course_text=lesson_text)],
        expectations=[Check.of(r) for r in run_expectations(scenario, transcript, checks)],
        pedagogy=[Check.of(r) for r in pedagogy(transcript)],
        judges=judges,
        error=error,
    )


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
