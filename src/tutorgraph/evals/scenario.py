"""Evaluation scenarios: a persona, a lesson (or Explore), a teaching mode, the learner's scripted
turns and the behaviours a good tutor shows, one YAML file each (`evals/scenarios/*.yaml`).

Expectations name a deterministic check (`evals/checks.py`) and the scripted turn whose reply it
applies to (counted from 1), with the check's own arguments."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tutorgraph.errors import InputError
from tutorgraph.tutor.context import Mode

SCENARIO_DIR = Path(__file__).with_name("scenarios")

PersonaKind = Literal[
    "beginner",
    "intermediate",
    "factual_probe",
    "wrong_intuition",
    "confusion_recovery",
    "demands_answer",
    "tangent",
    "cross_topic",
    "code_mode",
    "analogy_mode",
    "eli5",
    "deep_dive",
    "format_probe",
    "explore",
    "off_topic",
]
PERSONA_KINDS: tuple[str, ...] = get_args(PersonaKind)

CheckName = Literal[
    "grounded",
    "heading",
    "lesson",
    "same_concept",
    "simpler",
    "uses_conversation",
    "asks_question",
    "no_reveal",
    "reveals",
    "quiz",
    "code",
    "analogy",
    "redirect",
    "no_redirect",
    "mentions",
    "not_mentions",
    "lists_courses",
    "next_lesson",
]
REQUIRED_ARGS: dict[str, tuple[str, ...]] = {
    "heading": ("any",),
    "lesson": ("slug",),
    "same_concept": ("as_turn",),
    "simpler": ("than_turn",),
    "no_reveal": ("answer",),
    "reveals": ("any",),
    "mentions": ("any",),
    "not_mentions": ("any",),
    "next_lesson": ("slug",),
}


class Persona(BaseModel):
    kind: PersonaKind
    description: str = ""


class Expectation(BaseModel):
    """One behaviour: `check` on the reply to scripted turn `turn`, with the check's arguments."""

    model_config = ConfigDict(extra="allow")

    check: CheckName
    turn: int = Field(ge=1)

    @property
    def args(self) -> dict[str, Any]:
        return dict(self.model_extra or {})

    @model_validator(mode="after")
    def _has_arguments(self) -> Expectation:
        missing = [a for a in REQUIRED_ARGS.get(self.check, ()) if a not in self.args]
        if missing:
            raise ValueError(f"check {self.check!r} needs {', '.join(missing)}")
        return self


class Scenario(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    title: str
    lesson: str
    mode: Mode = "default"
    explore: bool = False
    persona: Persona
    turns: list[str] = Field(min_length=1, max_length=8)
    generated_turns: int = Field(default=0, ge=0, le=3)
    expect: list[Expectation] = Field(default_factory=list)

    @model_validator(mode="after")
    def _turns_exist(self) -> Scenario:
        for item in self.expect:
            if item.turn > len(self.turns):
                raise ValueError(
                    f"expectation {item.check!r} names turn {item.turn}, beyond the script"
                )
            for key in ("as_turn", "than_turn"):
                other = item.args.get(key)
                if other is not None and not (isinstance(other, int) and 1 <= other < item.turn):
                    raise ValueError(f"{item.check}: {key} must be an earlier turn")
        return self


def load_scenarios(directory: Path = SCENARIO_DIR) -> list[Scenario]:
    """Every scenario in `directory`, sorted by id; a clear error names a file that is wrong."""
    files = sorted(directory.glob("*.yaml"))
    if not files:
        raise InputError(f"no scenarios (*.yaml) in {directory}")
    scenarios = []
    for path in files:
        try:
            raw = yaml.safe_load(path.read_text(encoding="utf-8"))
            scenario = Scenario.model_validate(raw)
        except (OSError, yaml.YAMLError) as exc:
            raise InputError(f"{path.name}: cannot read it ({exc})") from exc
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise InputError(f"{path.name}: {where}: {first['msg']}") from exc
        if scenario.id != path.stem:
            raise InputError(f"{path.name}: id {scenario.id!r} differs from the file name")
        scenarios.append(scenario)
    return scenarios


def select(
    scenarios: list[Scenario],
    *,
    lesson: str | None = None,
    scenario: str | None = None,
    explore: bool | None = None,
) -> list[Scenario]:
    chosen = [
        s
        for s in scenarios
        if (lesson is None or s.lesson == lesson or lesson in s.lesson)
        and (scenario is None or s.id == scenario or scenario in s.id)
        and (explore is None or s.explore == explore)
    ]
    if not chosen:
        raise InputError("no scenario matches the filters given")
    return chosen
