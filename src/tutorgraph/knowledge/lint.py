"""Checks of a domain's grading content against the offline grader (`tutorgraph kb validate`),
and the warm-up that analyses that content once at start-up.

- a phrasing of a rubric point that only repeats words of the question is weak evidence (an
  answer that echoes the question earns it): a warning;
- a misconception cue of one word flags too much (a warning); no cue may fire on a reference
  answer of its topic (a cue a correct answer states is a wrong cue: an error);
- each question's reference answer earns full credit on at least half of its own rubric points
  (a warning: the points or their phrasings do not say what the reference says).
"""

from __future__ import annotations

from dataclasses import dataclass

from tutorgraph.grading.keypoints import (
    assess_points,
    stated_misconceptions,
    supporting_sentences,
)
from tutorgraph.grading.types import KnownMisconception
from tutorgraph.knowledge.schema import Domain
from tutorgraph.text.meaning import Analysis
from tutorgraph.text.tokens import words

MIN_CUE_TOKENS = 2
MIN_REFERENCE_COVERAGE = 0.5


@dataclass(frozen=True)
class Finding:
    level: str  # "error" or "warning"
    where: str
    message: str


def lint_domain(domain: Domain) -> list[Finding]:
    findings: list[Finding] = []
    for topic in domain.topics:
        known = [
            KnownMisconception(id=m.id, description=m.description, cues=list(m.cues))
            for m in topic.misconceptions
        ]
        for misconception in topic.misconceptions:
            for cue in misconception.cues:
                if len(words(cue)) < MIN_CUE_TOKENS:
                    findings.append(
                        Finding(
                            "warning",
                            f"{topic.id}/{misconception.id}",
                            f"cue {cue!r} has fewer than {MIN_CUE_TOKENS} words",
                        )
                    )
        for question in topic.questions:
            where = f"{topic.id}/{question.id}"
            asked = Analysis.of(question.text).texts
            for point, alternatives in question.phrasings.items():
                for phrasing in alternatives:
                    if not Analysis.of(phrasing).texts - asked:
                        findings.append(
                            Finding(
                                "warning",
                                where,
                                f"phrasing {phrasing!r} of {point!r} only repeats the question",
                            )
                        )
            for fired in stated_misconceptions(question.reference_answer, known):
                findings.append(
                    Finding(
                        "error",
                        where,
                        f"a cue of misconception {fired} fires on this question's reference answer",
                    )
                )
            results = assess_points(
                question.text, question.reference_answer, question.rubric, question.phrasings
            )
            covered = sum(r.credit >= 1.0 for r in results) / len(results)
            if covered < MIN_REFERENCE_COVERAGE:
                findings.append(
                    Finding(
                        "warning",
                        where,
                        f"the reference answer earns only {covered:.0%} of its rubric points; "
                        "reword the points or add phrasings",
                    )
                )
    return findings


def warm_up(domains: list[Domain]) -> int:
    """Analyse every rubric point, phrasing, cue and reference once, so the first learners to
    answer a question do not pay for it (the analyses are cached). Returns the texts analysed."""
    count = 0
    for domain in domains:
        for topic in domain.topics:
            for misconception in topic.misconceptions:
                for cue in misconception.cues:
                    Analysis.of(cue, verbatim=True)
                    count += 1
            for question in topic.questions:
                texts = [question.text, question.reference_answer, *question.rubric]
                texts += [p for alts in question.phrasings.values() for p in alts]
                for text in texts:
                    Analysis.of(text)
                count += len(texts)
                supporting_sentences(question.reference_answer, tuple(question.rubric))
    return count
