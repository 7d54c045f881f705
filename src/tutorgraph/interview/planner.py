"""What to ask next: a resume anchor and an aspect of it, or a knowledge-base question for one of
the resume's skills. Deterministic, read-only over the state; the question node asks the model
(or the offline composer) to word it and the dedup layers to clear it.

Coverage first: anchors never explored come before a second aspect of one already explored
(projects, then jobs, then skills, then education); a skipped anchor (the candidate asked to
change topic) is not chosen again. Technical questions come from the domains the resume's skills
match (`resume.kb_domain`), at the Bloom level of the interview's target level, preferring
topics whose words the resume uses."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from tutorgraph.interview.resume import anchor_text, kb_domain
from tutorgraph.interview.state import (
    AnchorType,
    Aspect,
    QuestionRecord,
    ResumeExploration,
    ResumeStructured,
)
from tutorgraph.knowledge import TargetLevel, public_domain, starting_bloom

_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
TECHNICAL_QUESTIONS = 2  # asked before the evaluation when the resume has a testable skill
ANCHOR_ORDER: tuple[AnchorType, ...] = ("project", "experience", "skill", "education")
ASPECTS_BY_TYPE: dict[AnchorType, tuple[Aspect, ...]] = {
    "project": (
        "challenges",
        "design",
        "tradeoffs",
        "impact",
        "implementation",
        "tools",
        "results",
        "team",
    ),
    "experience": (
        "impact",
        "challenges",
        "team",
        "design",
        "tools",
        "results",
        "tradeoffs",
        "implementation",
    ),
    "skill": ("implementation", "tradeoffs", "challenges", "tools"),
    "education": ("results", "challenges"),
}


@dataclass(frozen=True)
class ResumeTarget:
    anchor_id: str
    anchor_type: AnchorType
    label: str
    aspect: Aspect
    detail: str  # a phrase of the resume about the anchor, to make the question specific


@dataclass(frozen=True)
class TechnicalTarget:
    domain: str
    topic_id: str
    topic_title: str
    question_id: str
    text: str
    skill: str


def resume_targets(
    resume: ResumeStructured,
    exploration: dict[str, ResumeExploration],
    *,
    skipped: Sequence[str] = (),
    avoid: str | None = None,
) -> Iterator[ResumeTarget]:
    """Candidate targets, best first."""
    anchors = [a for a in exploration.values() if a["anchor_id"] not in skipped]
    anchors.sort(
        key=lambda a: (
            a["depth_score"] > 0,
            len(a["aspects_covered"]),
            a["anchor_id"] == avoid,
            ANCHOR_ORDER.index(a["anchor_type"]),
            a["anchor_id"],
        )
    )
    for anchor in anchors:
        for aspect in ASPECTS_BY_TYPE[anchor["anchor_type"]]:
            if aspect in anchor["aspects_covered"]:
                continue
            detail = salient_detail(anchor_text(resume, anchor["anchor_id"]), aspect)
            yield ResumeTarget(
                anchor["anchor_id"], anchor["anchor_type"], anchor["label"], aspect, detail
            )


def explored_anchors(exploration: dict[str, ResumeExploration]) -> int:
    """How many anchors have had at least one aspect asked about (coverage's numerator)."""
    return sum(1 for a in exploration.values() if a["aspects_covered"])


def resume_left(exploration: dict[str, ResumeExploration], skipped: Sequence[str]) -> bool:
    return any(
        a["anchor_id"] not in skipped
        and len(a["aspects_covered"]) < len(ASPECTS_BY_TYPE[a["anchor_type"]])
        for a in exploration.values()
    )


def technical_targets(
    resume: ResumeStructured,
    level: TargetLevel,
    asked: Sequence[QuestionRecord],
    *,
    fallback: bool = False,
) -> Iterator[TechnicalTarget]:
    """Knowledge-base questions for the resume's testable skills, best first; with `fallback`,
    Python's when the resume has none (the candidate asked for a technical assessment)."""
    done = {r.get("topic_id") for r in asked if r.get("topic_id")}
    bloom = starting_bloom(level)
    words = set(re.findall(r"[a-z]+", _resume_words(resume)))
    skills = testable_skills(resume) or ([("Python", "python")] if fallback else [])
    for skill, domain in skills:
        kb = public_domain(domain)  # never a course's domain: the interview is anyone's
        topics = sorted(
            kb.domain.topics,
            key=lambda t: (
                -len(words & set(re.findall(r"[a-z]+", f"{t.title} {t.summary}".lower()))),
                t.difficulty,
            ),
        )
        for topic in topics:
            if topic.id in done or not topic.questions:
                continue
            by_level = sorted(
                topic.questions,
                key=lambda q: q.bloom_level.distance(bloom),
            )
            question = by_level[0]
            yield TechnicalTarget(domain, topic.id, topic.title, question.id, question.text, skill)


def testable_skills(resume: ResumeStructured) -> list[tuple[str, str]]:
    """(skill, knowledge-base domain) for the resume's skills the knowledge base can test; the
    python domain for any resume that mentions Python anywhere."""
    found: dict[str, str] = {}
    for skill in resume["skills"]:
        domain = kb_domain(skill)
        if domain is not None and domain not in found.values():
            found[skill] = domain
    if "python" not in found.values() and re.search(r"\bpython\b", _resume_words(resume)):
        found["Python"] = "python"
    return list(found.items())


def salient_detail(text: str, aspect: Aspect) -> str:
    """A phrase of the resume entry that the aspect can ask about: a result with a number for
    impact and results, a tool or method for the others; the first clause otherwise."""
    clauses = [c.strip() for c in re.split(r"(?<=[.;])\s+|\s+[–—]\s+", text) if c.strip()]
    if not clauses:
        return ""
    # Not a line of tools and dates ("React Native, FastAPI · Jan 2024"): a sentence of the work.
    sentences = [c for c in clauses if len(c.split()) >= 5 and not _YEAR.search(c)]
    clauses = sentences or clauses
    if aspect in ("impact", "results"):
        numbered = [c for c in clauses if re.search(r"\d", c)]
        clauses = numbered or clauses
    clause = clauses[0].rstrip(".;")
    words = clause.split()
    return " ".join(words[:18]) + ("…" if len(words) > 18 else "")


def _resume_words(resume: ResumeStructured) -> str:
    parts = [resume["summary"], *resume["skills"]]
    parts += [f"{p['name']} {p['text']}" for p in resume["projects"]]
    parts += [f"{j['title']} {j['text']}" for j in resume["experience"]]
    return " ".join(parts).lower()
