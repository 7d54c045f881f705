"""What the knowledge base says about checking an answer that is code, a document or numbers.

The format, with examples, is docs/answer-checks.md; `run.py` and `numbers.py` carry it out."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


CheckLanguage = Literal["python", "toml", "json", "sql"]


class CodeCase(_Strict):
    """One executable check of a code answer (docs/answer-checks.md): run `given`, then the
    answer, then look at `expr` (or, without one, at the values of the answer's top-level
    expressions)."""

    name: str = Field(min_length=3)  # what the case checks, said to the learner
    given: str = ""  # Python run before the answer in this case: the inputs ("nums = [1, 2]")
    expr: str | None = None  # Python expression read after the answer ran
    args: str | None = None  # without expr: call each function the answer defines with these
    expect: str | None = None  # a Python literal the value must equal (floats within tolerance)
    raises: str | None = None  # or: the exception class name evaluating `expr` must raise
    tolerance: float = Field(default=1e-6, ge=0.0)
    points: list[str] = Field(default_factory=list)  # rubric points a pass demonstrates

    @model_validator(mode="after")
    def _one_outcome(self) -> CodeCase:
        if (self.expect is None) == (self.raises is None):
            raise ValueError(f"case {self.name!r}: give exactly one of expect and raises")
        if self.raises is not None and self.expr is None:
            raise ValueError(f"case {self.name!r}: raises needs an expr to evaluate")
        return self


class NumberSlip(_Strict):
    """Values a known mistake produces in place of the expected ones, and what to tell the
    learner. `slip`: the right method carried out with one error (a factor dropped, a sign,
    the wrong log base), which earns `checks.slip_credit` and reads as CARELESS; `wrong method`:
    another computation (an arithmetic mean for F1, sampling with replacement), named the same
    way but earning nothing and reading as CONCEPTUAL."""

    values: list[float] = Field(min_length=1)
    says: str = Field(min_length=5)
    kind: Literal["slip", "wrong method"] = "slip"


class NumberCheck(_Strict):
    """A value (or vector) a worked answer must arrive at: final or intermediate."""

    name: str = Field(min_length=2)
    values: list[float] = Field(min_length=1)
    tolerance: float = Field(default=0.01, ge=0.0)  # absolute, per value
    also: list[list[float]] = Field(default_factory=list)  # the same values in other units
    points: list[str] = Field(default_factory=list)
    slips: list[NumberSlip] = Field(default_factory=list)


class AnswerChecks(_Strict):
    """What runs or is computed to grade an answer that is code, a config file or numbers.

    `solution` is a correct answer the checks must accept (`tutorgraph kb checks` runs it), so
    a check that cannot pass is caught before a learner meets it."""

    language: CheckLanguage = "python"
    setup: str = ""  # trusted Python run first in every case (helpers the cases use)
    fixture: str = ""  # sql: the schema and rows of the in-memory database
    cases: list[CodeCase] = Field(default_factory=list)
    requires: list[str] = Field(default_factory=list)  # static: names or constructs to use
    forbid: list[str] = Field(default_factory=list)  # modules or names the answer must not use
    numbers: list[NumberCheck] = Field(default_factory=list)
    solution: str = Field(min_length=1)

    @model_validator(mode="after")
    def _something_to_check(self) -> AnswerChecks:
        if not self.cases and not self.numbers:
            raise ValueError("checks need cases (code) or numbers (worked values)")
        return self

    @property
    def points(self) -> list[str]:
        """The rubric points the checks decide, in order."""
        named = [p for c in self.cases for p in c.points]
        named += [p for n in self.numbers for p in n.points]
        return list(dict.fromkeys(named))
