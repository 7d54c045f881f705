"""Loading and validating domain YAML files; every error names the file and the topic."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from tutorgraph.errors import InputError, NotFoundError
from tutorgraph.knowledge.graph import KnowledgeBase
from tutorgraph.knowledge.schema import Domain

DOMAINS_DIR = Path(__file__).parent / "domains"
EXAMPLES_DIR = "examples"  # beside a domain file: its questions' graded example answers
CHECKS_DIR = "checks"  # beside a domain file: its questions' executable answer checks


class KnowledgeBaseError(InputError):
    """A domain file is malformed; the message says where."""


def load_domain_file(path: Path) -> KnowledgeBase:
    """Parse, validate and index one domain file."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise KnowledgeBaseError(f"{path}: no such file") from exc
    except yaml.YAMLError as exc:
        raise KnowledgeBaseError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise KnowledgeBaseError(f"{path}: expected a mapping with domain, title and topics")
    _add_examples(raw, path.parent / EXAMPLES_DIR / path.name)
    _add_checks(raw, path.parent / CHECKS_DIR / path.name)
    try:
        domain = Domain.model_validate(raw)
    except ValidationError as exc:
        raise KnowledgeBaseError(_describe(path, raw, exc)) from exc
    try:
        return KnowledgeBase(domain)
    except ValueError as exc:
        raise KnowledgeBaseError(f"{path}: {exc}") from exc


def _add_examples(raw: dict[str, Any], path: Path) -> None:
    """Graded example answers kept beside a domain file (`examples/<file>`: question id -> list
    of {grade, answer, misconception}) join their questions' `examples`."""
    questions = _questions(raw)
    for question_id, answers in _beside(path, "examples", "answers").items():
        if question_id not in questions:
            raise KnowledgeBaseError(f"{path}: examples for unknown question {question_id!r}")
        questions[question_id]["examples"] = [
            *(questions[question_id].get("examples") or []),
            *(answers or []),
        ]


def _add_checks(raw: dict[str, Any], path: Path) -> None:
    """Executable answer checks kept beside a domain file (`checks/<file>`: question id ->
    {language, cases, numbers, solution, ...}) become their questions' `checks`."""
    questions = _questions(raw)
    for question_id, checks in _beside(path, "checks", "their checks").items():
        if question_id not in questions:
            raise KnowledgeBaseError(f"{path}: checks for unknown question {question_id!r}")
        if "checks" in questions[question_id]:
            raise KnowledgeBaseError(f"{path}: question {question_id!r} has checks already")
        questions[question_id]["checks"] = checks


def _beside(path: Path, key: str, what: str) -> dict[Any, Any]:
    """The `key:` mapping of a file kept beside a domain file; empty when there is none."""
    if not path.is_file():
        return {}
    try:
        found = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise KnowledgeBaseError(f"{path}: not valid YAML: {exc}") from exc
    mapping = found.get(key) if isinstance(found, dict) else None
    if not isinstance(mapping, dict):
        raise KnowledgeBaseError(f"{path}: expected '{key}:' mapping question ids to {what}")
    return mapping


def _questions(raw: dict[str, Any]) -> dict[Any, dict[str, Any]]:
    return {
        question.get("id"): question
        for topic in raw.get("topics") or []
        if isinstance(topic, dict)
        for question in topic.get("questions") or []
        if isinstance(question, dict)
    }


def _describe(path: Path, raw: dict[str, Any], exc: ValidationError) -> str:
    """Turn the first validation error into 'file: topic X: field: message'."""
    error = exc.errors()[0]
    loc = list(error["loc"])
    where = ""
    if len(loc) >= 2 and loc[0] == "topics" and isinstance(loc[1], int):
        topics = raw.get("topics") or []
        topic = topics[loc[1]] if loc[1] < len(topics) else {}
        topic_id = topic.get("id", f"#{loc[1] + 1}") if isinstance(topic, dict) else f"#{loc[1]}"
        where = f"topic {topic_id}: "
        loc = loc[2:]
        if len(loc) >= 2 and loc[0] == "questions" and isinstance(loc[1], int):
            questions = topic.get("questions") or [] if isinstance(topic, dict) else []
            q = questions[loc[1]] if loc[1] < len(questions) else {}
            where += f"question {q.get('id', f'#{loc[1] + 1}') if isinstance(q, dict) else ''}: "
            loc = loc[2:]
    field = ".".join(str(p) for p in loc)
    message = error["msg"].removeprefix("Value error, ")
    return f"{path}: {where}{field + ': ' if field else ''}{message}"


@cache
def shipped_domains() -> dict[str, KnowledgeBase]:
    """The domains that ship with tutorgraph, by name (loaded once per process)."""
    bases = [load_domain_file(p) for p in sorted(DOMAINS_DIR.glob("*.yaml"))]
    return {kb.domain.domain: kb for kb in bases}


# Domains that published courses brought: loaded from the store at start-up and on publish.
_authored: dict[str, KnowledgeBase] = {}


def parse_domain(text: str, *, source: str) -> KnowledgeBase:
    """Parse and validate a domain document held somewhere other than a file."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise KnowledgeBaseError(f"{source}: not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise KnowledgeBaseError(f"{source}: expected a mapping with domain, title and topics")
    try:
        return KnowledgeBase(Domain.model_validate(raw))
    except ValidationError as exc:
        raise KnowledgeBaseError(_describe(Path(source), raw, exc)) from exc
    except ValueError as exc:
        raise KnowledgeBaseError(f"{source}: {exc}") from exc


def register_authored(kb: KnowledgeBase) -> None:
    """Make a published course's domain known to assessment, practice and grading."""
    if kb.domain.domain in shipped_domains():
        raise KnowledgeBaseError(f"domain {kb.domain.domain!r} is a shipped domain's name")
    _authored[kb.domain.domain] = kb


def forget_authored(name: str) -> None:
    _authored.pop(name, None)


def authored_domains() -> dict[str, KnowledgeBase]:
    return dict(_authored)


def all_domains() -> dict[str, KnowledgeBase]:
    """Shipped domains, then authored ones."""
    return {**shipped_domains(), **_authored}


def get_domain(name: str) -> KnowledgeBase:
    """Any loaded domain, with no visibility check: for a domain a check already let through
    (a stored round or assessment names it). On a user's behalf: `knowledge.visibility`."""
    domains = all_domains()
    if name not in domains:
        raise no_domain(name)
    return domains[name]


def no_domain(name: str) -> NotFoundError:
    """The one answer for a domain that does not exist or that the caller may not see: it
    names no other domain."""
    return NotFoundError(f"no knowledge-base domain {name!r}")


def find_topic(topic_id: str) -> tuple[KnowledgeBase, str] | None:
    """The domain that holds a topic id, across every loaded domain (no visibility check: on a
    user's behalf, `knowledge.visibility`)."""
    for kb in all_domains().values():
        if topic_id in kb.topics:
            return kb, topic_id
    return None


def concept_title(concept: str) -> str:
    """A concept's title for people (its id when no shipped domain has it)."""
    found = find_topic(concept)
    return found[0].topic(concept).title if found else concept


def misconception_description(concept: str, misconception: str) -> str:
    """A known misconception of a concept in the knowledge base's words (else its id)."""
    found = find_topic(concept)
    known = found[0].topic(concept).misconception(misconception) if found else None
    return known.description if known else misconception
