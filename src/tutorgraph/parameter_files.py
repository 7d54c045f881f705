"""Parameter files: the offline engines' thresholds, weights and caps as typed data, each value
with where it came from.

A parameter file is YAML, one mapping per section, one record per parameter:

    key_points:
      # Share of a phrasing's tokens that earns a point in full.
      full_share:
        value: 0.75
        source: hand-set        # or fitted: the output of a documented procedure
        date: 2026-11-24        # when the value was last set
        procedure: ...          # how it was chosen, in a sentence or two
        split: ...              # the data it was chosen or checked on ("none" if only reasoned)
        decision: '0007'        # the docs/decisions record, if there is one
        cv: {...}               # the last cross-validation of the value, if one ran

The typed schema (a `ParameterSet` of `ParameterSection`s, pydantic models with ranges) says what
each value means and which values are allowed; `load_parameter_file` checks both the records and
the values and names the file and the parameter in every error. The file is written back by
`render_parameter_file`, so a refit (`tutorgraph calibrate ...`) rewrites values and provenance
without touching anything else, and each parameter's comment is its schema description.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, Self, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tutorgraph.errors import ConfigurationError

Source = Literal["hand-set", "fitted"]
Number = int | float


class ParameterFileError(ConfigurationError):
    """A parameter file is unreadable, incomplete, or holds a value its schema refuses."""


class ParameterSection(BaseModel):
    """One group of parameters read by one piece of code; fields carry ranges and descriptions."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")


class ParameterSet(BaseModel):
    """The sections of one parameter file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @classmethod
    def sections(cls) -> dict[str, type[ParameterSection]]:
        found = {}
        for name, info in cls.model_fields.items():
            section = info.annotation
            if not (isinstance(section, type) and issubclass(section, ParameterSection)):
                raise TypeError(f"{cls.__name__}.{name} is not a ParameterSection")
            found[name] = section
        return found

    @classmethod
    def names(cls) -> list[str]:
        """Every parameter as "section.name", in the schema's order."""
        return [f"{s}.{n}" for s, section in cls.sections().items() for n in section.model_fields]

    @classmethod
    def description(cls, name: str) -> str:
        section, key = _split_name(name)
        return cls.sections()[section].model_fields[key].description or ""

    def value(self, name: str) -> Number:
        section, key = _split_name(name)
        found: Number = getattr(getattr(self, section), key)
        return found

    def replaced(self, changes: Mapping[str, Number]) -> Self:
        """A copy with some values changed ("section.name" -> value), validated like the file."""
        data = self.model_dump()
        for name, value in changes.items():
            section, key = _split_name(name)
            if section not in data or key not in data[section]:
                raise KeyError(f"no parameter {name!r} in {type(self).__name__}")
            data[section][key] = value
        return type(self).model_validate(data)


class CrossValidation(BaseModel):
    """The last cross-validation of a value: its objective's mean and standard error over the
    folds, what the procedure concluded, and the file with every grid point's folds."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")

    date: datetime.date
    objective: str = Field(min_length=1)
    folds: int = Field(ge=2)
    mean: float
    se: float = Field(ge=0)
    outcome: str = Field(min_length=1)
    results: str = Field(min_length=1)


class Provenance(BaseModel):
    """Where a value came from: who set it, when, how, on what data, and why (the record)."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")

    source: Source
    date: datetime.date
    procedure: str = Field(min_length=1)
    split: str = Field(min_length=1)
    decision: str | None = Field(default=None, min_length=4)
    cv: CrossValidation | None = None

    @model_validator(mode="after")
    def _fitted_has_cv(self) -> Provenance:
        if self.source == "fitted" and self.cv is None:
            raise ValueError("a fitted value needs its cross-validation record (cv)")
        return self


class ParameterRecord(Provenance):
    value: Number


S = TypeVar("S", bound=ParameterSet)


@dataclass(frozen=True)
class ParameterFile(Generic[S]):
    """A loaded file: the typed values and each value's provenance ("section.name" keys)."""

    path: Path
    values: S
    provenance: dict[str, Provenance] = field(default_factory=dict)

    def updated(self, changes: Mapping[str, tuple[Number, Provenance]]) -> ParameterFile[S]:
        """A copy with new values and provenance for some parameters."""
        values = self.values.replaced({name: value for name, (value, _) in changes.items()})
        provenance = dict(self.provenance)
        provenance.update({name: record for name, (_, record) in changes.items()})
        return ParameterFile(self.path, values, provenance)


def load_parameter_file(path: Path, schema: type[S]) -> ParameterFile[S]:
    """The file at `path` read against `schema`: every parameter present with a complete
    provenance, nothing unknown, every value of the right type and in range."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ParameterFileError(f"{path}: cannot read the parameter file: {exc}") from exc
    if not isinstance(raw, dict):
        raise ParameterFileError(f"{path}: expected a mapping of sections")
    sections = schema.sections()
    _no_unknown(path, "", raw, sections)
    values: dict[str, dict[str, Any]] = {}
    provenance: dict[str, Provenance] = {}
    for section, section_type in sections.items():
        entries = raw.get(section)
        if not isinstance(entries, dict):
            raise ParameterFileError(f"{path}: section {section!r} is missing")
        _no_unknown(path, f"{section}.", entries, section_type.model_fields)
        values[section] = {}
        for key in section_type.model_fields:
            name = f"{section}.{key}"
            if key not in entries:
                raise ParameterFileError(f"{path}: {name} is missing")
            try:
                record = ParameterRecord.model_validate(entries[key])
            except ValidationError as exc:
                raise ParameterFileError(f"{path}: {name}: {_problems(exc)}") from exc
            values[section][key] = record.value
            provenance[name] = Provenance.model_validate(record.model_dump(exclude={"value"}))
    try:
        parameters = schema.model_validate(values)
    except ValidationError as exc:
        raise ParameterFileError(f"{path}: {_problems(exc)}") from exc
    return ParameterFile(path, parameters, provenance)


def render_parameter_file(parameters: ParameterFile[S], header: str) -> str:
    """The file's text: `header` as comments, then each section's records with their
    descriptions as comments (what `load_parameter_file` reads back unchanged)."""
    lines = [f"# {line}".rstrip() for line in header.strip().splitlines()]
    schema = type(parameters.values)
    for section, section_type in schema.sections().items():
        lines += ["", f"{section}:"]
        for key, info in section_type.model_fields.items():
            name = f"{section}.{key}"
            record = {"value": parameters.values.value(name)}
            record |= parameters.provenance[name].model_dump(exclude_none=True)
            lines += [f"  # {line}" for line in _wrap(info.description or "", 94)]
            dumped = yaml.dump(
                {key: record}, Dumper=_Dumper, sort_keys=False, width=92, allow_unicode=True
            )
            lines += [f"  {line}" for line in dumped.rstrip().splitlines()]
    return "\n".join(lines) + "\n"


class _Dumper(yaml.SafeDumper):
    """Safe YAML without anchors: a date written twice is written twice, not aliased."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _split_name(name: str) -> tuple[str, str]:
    section, _, key = name.partition(".")
    if not key:
        raise KeyError(f"a parameter is named 'section.name', not {name!r}")
    return section, key


def _no_unknown(
    path: Path, prefix: str, found: Mapping[Any, Any], known: Mapping[str, Any]
) -> None:
    unknown = sorted(str(k) for k in found if k not in known)
    if unknown:
        listed = ", ".join(prefix + k for k in unknown)
        raise ParameterFileError(f"{path}: not a parameter of this file: {listed}")


def _problems(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in error['loc'])}: {error['msg']}".lstrip(": ")
        for error in exc.errors()
    )


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def share(description: str) -> Any:
    """A field holding a share: a number from 0 to 1."""
    return Field(ge=0.0, le=1.0, description=description)


def weight(description: str) -> Any:
    """A field holding a weight: a number of at least 0."""
    return Field(ge=0.0, description=description)


def count(description: str, *, least: int = 1) -> Any:
    """A field holding a count: a whole number of at least `least`."""
    return Field(ge=least, description=description)
