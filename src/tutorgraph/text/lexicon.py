"""The paraphrase lexicon's file format (`lexicon.yaml`): what an author writes for each group and
how it is read. A mistake in the file names the file, the group (number and first entry) and the
problem, so an author can fix it without reading this code. What a well-formed file must also get
right (no entry in two groups, no everyday word read as a technical idea without context, every
group's example read as it should be) is checked by `lexicon_check` (`tutorgraph kb lexicon`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

Domain = Literal["general", "python", "ml"]


class Context(BaseModel):
    """Entries read in the group's sense only when their text also has one of the context words
    ("processes" is multiprocessing near "GIL" or "threads", not in "the training process")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entries: list[str] = Field(min_length=1)
    context: list[str] = Field(min_length=1)

    @field_validator("context")
    @classmethod
    def _single_words(cls, words: list[str]) -> list[str]:
        phrases = [w for w in words if len(w.split()) != 1]
        if phrases:
            raise ValueError(f"context words are single words, not {phrases}")
        return words


class LexiconGroup(BaseModel):
    """Words and phrases that say one idea; the first entry names it (the canonical one)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entries: list[str] = Field(min_length=2)
    domain: Domain
    example: list[str] = Field(min_length=1)
    counterexample: list[str] = Field(min_length=1)
    when: Context | None = None

    @field_validator("example", "counterexample", mode="before")
    @classmethod
    def _one_or_more(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value

    @field_validator("entries", "example", "counterexample")
    @classmethod
    def _not_blank(cls, values: list[str]) -> list[str]:
        if any(not v.strip() for v in values):
            raise ValueError("an empty entry or sentence")
        return values

    @model_validator(mode="after")
    def _context_entries_are_entries(self) -> LexiconGroup:
        if self.when is None:
            return self
        unknown = [e for e in self.when.entries if e not in self.entries]
        if unknown:
            raise ValueError(f"when.entries {unknown} are not entries of this group")
        if self.entries[0] in self.when.entries:
            raise ValueError(
                f"the first entry ({self.entries[0]!r}) names the group: it cannot need context"
            )
        return self

    @property
    def canonical(self) -> str:
        return self.entries[0]

    def conditional(self, entry: str) -> bool:
        return self.when is not None and entry in self.when.entries


class LexiconFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    groups: list[LexiconGroup] = Field(min_length=1)


class LexiconFormatError(ValueError):
    """The lexicon file does not follow the format; the message says where and what."""


def read_groups(path: Path) -> list[LexiconGroup]:
    """The groups of a lexicon file, or LexiconFormatError listing every format problem."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise LexiconFormatError(f"{path}: cannot read it as YAML: {exc}") from exc
    try:
        return LexiconFile.model_validate(raw).groups
    except ValidationError as exc:
        problems = [
            f"{path}: {_where(raw, error['loc'])}{_message(error)}" for error in exc.errors()
        ]
        raise LexiconFormatError("\n".join(problems)) from None


def _message(error: ErrorDetails) -> str:
    if error["type"] == "model_type" and len(error["loc"]) == 2:
        return (
            "a group is a mapping with entries, domain, example and counterexample (and "
            "optionally when), not a plain list of phrases"
        )
    return error["msg"]


def _where(raw: object, location: tuple[int | str, ...]) -> str:
    """'group 12 (compute), example: ' from pydantic's ('groups', 11, 'example')."""
    if len(location) < 2 or location[0] != "groups" or not isinstance(location[1], int):
        return f"{'.'.join(str(part) for part in location)}: " if location else ""
    index = location[1]
    group = raw["groups"][index] if isinstance(raw, dict) else None
    entries = group.get("entries") if isinstance(group, dict) else None
    first = f" ({entries[0]})" if isinstance(entries, list) and entries else ""
    field = ".".join(str(part) for part in location[2:])
    return f"group {index + 1}{first}{', ' + field if field else ''}: "
