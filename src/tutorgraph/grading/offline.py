"""The offline grader: reference-guided, deterministic; the fallback when no LLM judges.

Two readings of an answer, both deterministic:

- *Key points* (`keypoints.assess_points`, built on `meaning`): which rubric points the answer
  says, in its own words or the knowledge base's accepted phrasings (a paraphrase lexicon,
  numbers compared by value, code tokens, the reference sentence that says the point), which it
  denies ("mutable" for "immutable", "a copy is made" for "no copy is made"), and which known
  misconceptions it states (cues matched word for word, with their polarity; and, for an answer
  making at most `described_up_to` of the points, or without a rubric of the reference's content,
  the misconception's description said in other words: `keypoints.described_misconceptions`).
- *Lexical agreement* (`features.extract`): stemmed recall and precision against the reference
  (the best of any alternatives), bigrams, character grams, length ratio, negation flips and
  opposite swaps, turned into P(correct) by a logistic model (`calibration.json`, fitted on a
  public benchmark's train split only).

Score: the spec's weighted rubric (weights from the settings, 0.6 / 0.2 / 0.2 by default).
The `names` below are parameters (`grading/parameters.yaml`, with their provenance; the values
shown are today's).

With a rubric (every knowledge-base question), the key points decide:
- correctness = (1 - `lexical_share`) x coverage + `lexical_share` x P(correct), scaled by the
  share of points not denied and by the answer's focus (1 once `focus_share` of its new ideas,
  its tokens as `meaning` reads them, are said by the reference, the key points or their
  phrasings; less for an answer mostly about something else: a wrong idea told at length),
  capped at
  `misconception_cap` when a known misconception is stated;
- completeness = coverage, the mean point credit (halved when a misconception is stated);
- clarity = length adequacy (`adequate_words` content words are enough: a terse right answer is
  clear) x (0.5 + 0.5 x coverage), halved when the answer states a misconception or denies a
  point. Length past `adequate_words` earns nothing, so a long answer is not a better one.

Without a rubric (a caller's own question, the public benchmarks), the lexical reading decides:
correctness = P(correct) (capped likewise, halved when the answer denies a reference sentence
it talks about: "absorb less heat" for "absorb more heat"); completeness = the harmonic mean of
the share of the reference's new content words the answer says and the share of the answer's
new content words that are the reference's (so saying more earns nothing by itself); clarity =
`adequacy_share` x length adequacy against the reference (content words / max(1, an eighth of
the reference's: `adequate_share_of_reference`), capped at 1, x 0.7 past 4x the reference plus 20
words) + the rest x the share of the answer's words that are the reference's. These two halved
the length bias inside a human grade on SemEval and SAF at no cost in agreement (BENCHMARKS.md).

The verdict carries `certainty` (`uncertainty.py`): low when the two readings disagree, points
are half-said, or much of the answer is in words the grader cannot place.

An empty answer, or one that only restates the question (all its content words come from the
question and it repeats at least half of them), gets no credit: every criterion is 0.

Error type, only when score < 0.8, first rule that holds:

1. CONCEPTUAL  a known misconception is stated (or, with a rubric, a point is denied and the
               rules below would say INCOMPLETE);
1b. INCOMPLETE no real attempt ("I don't know", under four words): nothing to diagnose yet;
2. CARELESS    a near miss: coverage >= 0.7 with score >= 0.6, or a negation flip / opposite swap
               while coverage >= 0.5; and the answer talks about the point (at least `on_the_point`
               of its new content words are the reference's or the key points');
3. PROCEDURAL  the question asks for code, steps, a fix or a computation, the answer attempts it
               (code or numbers), coverage is partial and the answer talks about the point;
4. INCOMPLETE  what the answer says is right but points are missing: with a rubric, the graded
               examples near it read it as partly right (`ExampleReading.partly_right`), or,
               when none is near enough to say, at least `some_coverage` of the points are made
               and at least `own_ideas` of its new words are the reference's (less: it is mostly
               telling an idea of its own); without one, it talks about the point; also empty
               and echo answers;
5. CONCEPTUAL  otherwise: the answer makes (almost) none of the points, or says mostly
               something else.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache

from tutorgraph.grading import uncertainty
from tutorgraph.grading.calibration import Calibration, load_default
from tutorgraph.grading.classify import is_non_attempt
from tutorgraph.grading.examples import ExampleReading, read_examples
from tutorgraph.grading.features import Features, TextView, extract, is_echo, matches
from tutorgraph.grading.keypoints import (
    assess_points,
    described_misconceptions,
    split_sentences,
    stated_misconceptions,
)
from tutorgraph.grading.parameters import GradingParameters, ScoringParameters, grading_parameters
from tutorgraph.grading.types import (
    ERROR_CLASSIFICATION_BELOW,
    ErrorType,
    GradingRequest,
    RubricScores,
    Verdict,
)
from tutorgraph.settings import RubricWeights
from tutorgraph.text.meaning import Analysis, find
from tutorgraph.text.stemming import content_stems
from tutorgraph.text.tokens import words

PROCEDURAL_QUESTION = re.compile(
    r"\b(code|program|function|steps?|procedure|algorithm|fix|debug|bug|compute|calculate|"
    r"implement|write|output|run|error|traceback)\b",
    re.IGNORECASE,
)

ATTEMPTED_PROCEDURE = re.compile(r"\d|[=()\[\]]|\b(def|return|for|import)\b")

_default_calibration = cache(load_default)


def focus_of(share: float, scoring: ScoringParameters | None = None) -> float:
    """1 when at least `focus_share` of the answer's new ideas are the reference's or the key
    points' (`_focus_share`); less for an answer mostly about something else (a wrong idea at
    length)."""
    p = scoring or grading_parameters().scoring
    return min(1.0, share / p.focus_share)


def length_adequacy(answer: TextView, scoring: ScoringParameters | None = None) -> float:
    """1 from `adequate_words` content words up; less for a fragment; `rambling_factor` past
    `rambling_words`."""
    p = scoring or grading_parameters().scoring
    n = len(answer.stems)
    if n == 0:
        return 0.0
    adequacy = min(1.0, n / p.adequate_words)
    return round(adequacy * (p.rambling_factor if n > p.rambling_words else 1.0), 4)


def clarity_of(
    answer: TextView,
    reference: TextView,
    *,
    precision: float,
    scoring: ScoringParameters | None = None,
) -> float:
    """`adequacy_share` x length adequacy against the reference (a penalty for rambling) plus
    the rest x precision, the share of the answer's words on the reference's point (module
    doc)."""
    p = scoring or grading_parameters().scoring
    n, r = len(answer.stems), len(reference.stems)
    if n == 0:
        return 0.0
    adequacy = min(1.0, n / max(1.0, r * p.adequate_share_of_reference))
    rambling = n > p.rambling_reference_multiple * r + p.rambling_reference_margin
    adequacy *= p.rambling_factor if rambling else 1.0
    return round(p.adequacy_share * adequacy + (1 - p.adequacy_share) * precision, 4)


def completeness_of(features: Features) -> float:
    """The harmonic mean of how much of the reference's new content the answer says and how much
    of the answer's new content is the reference's: saying more earns nothing by itself."""
    recall, precision = features.values["ref_recall_novel"], features.values["precision_novel"]
    return 0.0 if recall + precision == 0 else 2 * recall * precision / (recall + precision)


class OfflineGrader:
    """Grades a `GradingRequest` against its reference and rubric; never calls a model."""

    def __init__(
        self,
        calibration: Calibration | None = None,
        *,
        weights: RubricWeights | None = None,
        parameters: GradingParameters | None = None,
    ) -> None:
        self.calibration = calibration if calibration is not None else _default_calibration()
        self.weights = weights or RubricWeights()
        self.parameters = parameters or grading_parameters()

    def grade(self, request: GradingRequest) -> Verdict:
        """The verdict for one answer against the request's reference answer."""
        return self.grade_with_alternatives(request)

    def grade_with_alternatives(
        self, request: GradingRequest, *, alternatives: Sequence[str] = ()
    ) -> Verdict:
        """The verdict against the reference or any alternative reference, whichever fits best."""
        points = list(request.rubric)
        if not words(request.answer):
            return _no_credit(points, "The answer is empty.")
        if is_echo(request.question, request.answer, self.parameters.non_answers):
            return _no_credit(points, "The answer only restates the question.")
        references = [r for r in (request.reference_answer, *alternatives) if r.strip()]
        features = extract(
            request.question, references or [request.reference_answer], request.answer
        )
        probability = self.calibration.probability(features.values)
        if points:
            return self._by_key_points(request, features, probability)
        reference = TextView.of(references[features.reference_index] if references else "")
        return self._by_reference(request, features, probability, reference)

    def _by_key_points(
        self,
        request: GradingRequest,
        features: Features,
        probability: float,
    ) -> Verdict:
        """Rubric questions: the key points said (in any words) decide; see the module doc."""
        p = self.parameters
        scoring = p.scoring
        results = assess_points(
            request.question,
            request.answer,
            request.rubric,
            request.phrasings,
            reference=request.reference_answer,
            parameters=p.key_points,
        )
        required = [r for r in results if r.point in request.required_points] or results
        coverage = sum(r.credit for r in required) / len(required)
        examples = _read_examples(request, p)
        misconceptions = _misconceptions(request, coverage, examples, p)
        denied = sum(r.contradicted for r in results) / len(results)
        share = scoring.lexical_share
        correctness = (1 - share) * coverage + share * probability
        on_topic = _on_topic_share(request, features)
        correctness *= (1 - denied) * focus_of(_focus_share(request), scoring)
        completeness = coverage
        if _wrong_idea(misconceptions, examples):  # what else it says stands on a wrong idea
            correctness = min(correctness, scoring.misconception_cap)
            completeness *= scoring.wrong_idea_completeness
        if examples is not None:
            correctness, completeness = examples.adjust(correctness, completeness)
        answer = TextView.of(request.answer)
        floor = scoring.clarity_at_no_coverage
        clarity = length_adequacy(answer, scoring) * (floor + (1 - floor) * coverage)
        if misconceptions or denied:  # said outright; a likeness to a wrong example is not
            clarity *= scoring.clarity_when_wrong
        rubric = RubricScores(
            correctness=round(correctness, 4),
            completeness=round(completeness, 4),
            clarity=round(clarity, 4),
        )
        score = rubric.weighted(self.weights)
        error = None
        if score < ERROR_CLASSIFICATION_BELOW:
            error = _error_type(
                request,
                features,
                rubric,
                coverage=coverage,
                on_topic=on_topic,
                misconceptions=misconceptions,
                examples=examples,
                parameters=p,
            )
            if denied and not misconceptions and error == "INCOMPLETE":
                error = "CONCEPTUAL"
        covered = [r.point for r in results if r.covered]
        missing = [r.point for r in required if not r.covered]
        contradicted = [r.point for r in results if r.contradicted]
        certainty = uncertainty.of_key_points(
            results=results,
            probability=probability,
            answer=request.answer,
            vocabulary=_vocabulary(request),
            misconceptions=misconceptions,
            parameters=p.certainty,
        )
        return Verdict(
            score=score,
            rubric=rubric,
            error_type=error,
            misconceptions=misconceptions,
            covered_key_points=covered,
            missing_key_points=missing,
            reasoning=_reasoning(
                features, rubric, misconceptions, covered, missing, error, contradicted, examples
            ),
            grader="offline",
            certainty=certainty,
        )

    def _by_reference(
        self,
        request: GradingRequest,
        features: Features,
        probability: float,
        reference: TextView,
    ) -> Verdict:
        """No rubric: the lexical model against the reference decides."""
        p = self.parameters
        scoring = p.scoring
        examples = _read_examples(request, p)
        coverage = features.values["ref_recall_novel"]
        misconceptions = _misconceptions(request, coverage, examples, p)
        wrong_idea = _wrong_idea(misconceptions, examples)
        correctness = min(probability, scoring.misconception_cap) if wrong_idea else probability
        denied = denied_sentences(
            request.question, request.reference_answer, request.answer, scoring=scoring
        )
        if denied:  # "absorb less heat" against "absorb more heat"
            correctness *= scoring.denial_factor
        completeness = completeness_of(features)
        if examples is not None:
            correctness, completeness = examples.adjust(correctness, completeness)
        answer = TextView.of(request.answer)
        precision = features.values["precision"]
        rubric = RubricScores(
            correctness=round(correctness, 4),
            completeness=round(completeness, 4),
            clarity=clarity_of(answer, reference, precision=precision, scoring=scoring),
        )
        score = rubric.weighted(self.weights)
        error = None
        if score < ERROR_CLASSIFICATION_BELOW:
            error = _error_type(
                request,
                features,
                rubric,
                coverage=coverage,
                on_topic=_on_topic_share(request, features),
                misconceptions=misconceptions,
                parameters=p,
            )
        return Verdict(
            score=score,
            rubric=rubric,
            error_type=error,
            misconceptions=misconceptions,
            reasoning=_reasoning(features, rubric, misconceptions, [], [], error, denied, examples),
            grader="offline",
            certainty=uncertainty.of_reference(probability, p.certainty),
        )


def denied_sentences(
    question: str, reference: str, answer: str, *, scoring: ScoringParameters | None = None
) -> list[str]:
    """Reference sentences the answer mostly agrees with (`denial_min_share` of their words or
    more) but denies in one place: "absorb less heat" for "absorb more heat". (Counting
    sentences merely talked about flagged 5% of SciEntsBank's correct train answers and 4% of
    its wrong ones: noise.)"""
    p = scoring or grading_parameters().scoring
    said, asked = Analysis.of(answer), Analysis.of(question).texts
    denied = []
    for sentence in split_sentences(reference):
        match = find(Analysis.of(sentence), said, ignore=asked)
        if match.contradicted and match.share >= p.denial_min_share:
            denied.append(sentence)
    return denied


def _vocabulary(request: GradingRequest) -> frozenset[str]:
    """The tokens the grader can interpret: question, reference, points and their phrasings."""
    texts = [request.question, request.reference_answer, *request.rubric]
    texts += [p for alts in request.phrasings.values() for p in alts]
    return _vocabulary_of(tuple(texts))


@lru_cache(maxsize=4096)
def _vocabulary_of(texts: tuple[str, ...]) -> frozenset[str]:
    return frozenset().union(*(Analysis.of(t).texts for t in texts))


def _no_credit(points: list[str], reason: str) -> Verdict:
    rubric = RubricScores(correctness=0.0, completeness=0.0, clarity=0.0)
    return Verdict(
        score=0.0,
        rubric=rubric,
        error_type="INCOMPLETE",
        missing_key_points=points,
        reasoning=reason,
        grader="offline",
    )


def _error_type(
    request: GradingRequest,
    features: Features,
    rubric: RubricScores,
    *,
    coverage: float,
    on_topic: float,
    misconceptions: list[str],
    examples: ExampleReading | None = None,
    parameters: GradingParameters,
) -> ErrorType:
    """The first rule of the module docstring's list that holds; `coverage` is the key-point
    coverage, or without a rubric the share of the reference's new content words said;
    `on_topic` is `_on_topic_share`; `examples` the graded examples' reading, if any."""
    p = parameters.error_types
    slip = features.values["negation_mismatch"] > 0 or features.values["opposite_swap"] > 0
    if misconceptions:
        return "CONCEPTUAL"
    if is_non_attempt(request.answer, parameters.non_answers):
        return "INCOMPLETE"
    talks_about_it = on_topic >= p.on_the_point
    if talks_about_it and (
        (coverage >= p.near_miss_coverage and rubric.score >= p.near_miss_score)
        or (slip and coverage >= p.slip_coverage)
    ):
        return "CARELESS"
    if (
        talks_about_it
        and PROCEDURAL_QUESTION.search(request.question)
        and ATTEMPTED_PROCEDURE.search(request.answer)
        and 0.0 < coverage < p.near_miss_coverage
    ):
        return "PROCEDURAL"
    if request.rubric:
        right_so_far = examples.partly_right if examples is not None else None
        if right_so_far is None:
            right_so_far = coverage >= p.some_coverage and on_topic >= p.own_ideas
        return "INCOMPLETE" if right_so_far else "CONCEPTUAL"
    return "INCOMPLETE" if talks_about_it else "CONCEPTUAL"


def _misconceptions(
    request: GradingRequest,
    coverage: float,
    examples: ExampleReading | None,
    parameters: GradingParameters,
) -> list[str]:
    """The known misconceptions the answer states: by a cue, word for word; or, when it makes at
    most `described_up_to` of what it was asked for (`coverage`: of the key points, or without
    a rubric of the reference's new content words), by its description in other words; or as
    the graded example nearest to it states it (`examples`). The description, the weakest
    reading, is not read for an answer the examples vouch for (`ExampleReading.vouches`)."""
    p = parameters.misconceptions
    found = stated_misconceptions(request.answer, request.misconceptions)
    if coverage <= p.described_up_to and not (examples is not None and examples.vouches):
        described = described_misconceptions(
            request.answer, request.question, request.misconceptions, parameters=p
        )
        found += [m for m in described if m not in found]
    known = {m.id for m in request.misconceptions}
    if (
        examples is not None
        and examples.misconception in known
        and examples.misconception not in found
    ):
        found.append(examples.misconception)
    return found


def _wrong_idea(misconceptions: list[str], examples: ExampleReading | None) -> bool:
    """What else the answer says stands on a wrong idea: it states a known misconception, or it
    says what a graded wrong answer said (`ExampleReading.wrong_idea`)."""
    return bool(misconceptions) or (examples is not None and examples.wrong_idea)


def _read_examples(request: GradingRequest, parameters: GradingParameters) -> ExampleReading | None:
    return read_examples(
        request.question,
        request.reference_answer,
        request.answer,
        request.examples,
        parameters=parameters.examples,
    )


def _focus_share(request: GradingRequest) -> float:
    """Share of the answer's ideas (its tokens as `meaning` reads them, beyond the question's)
    that the question's reference, key points or phrasings also say: the reading that credits the
    points, so "quadratic" for "O(n^2)" is on the point here too."""
    asked = Analysis.of(request.question).texts
    new = [t for t in dict.fromkeys(x.text for x in Analysis.of(request.answer).tokens)]
    new = [t for t in new if t not in asked]
    if not new:
        return 1.0
    vocabulary = _vocabulary(request)
    return sum(t in vocabulary for t in new) / len(new)


def _on_topic_share(request: GradingRequest, features: Features) -> float:
    """Share of the answer's new content words found in the reference or the key points."""
    question = set(content_stems(request.question))
    new = [s for s in dict.fromkeys(content_stems(request.answer)) if s not in question]
    if not new:
        return 1.0
    pool = frozenset(features.covered_stems | features.missing_stems).union(
        *(content_stems(p) for p in request.rubric)
    )
    return sum(matches(s, pool) for s in new) / len(new)


def _reasoning(
    features: Features,
    rubric: RubricScores,
    misconceptions: list[str],
    covered: list[str],
    missing: list[str],
    error: ErrorType | None,
    contradicted: list[str],
    examples: ExampleReading | None = None,
) -> str:
    values = features.values
    parts = [
        f"Covers {values['ref_recall_novel']:.0%} of the reference's content words beyond the "
        f"question's ({values['precision']:.0%} of the answer's words are in the reference); "
        f"P(correct) {rubric.correctness:.2f}."
    ]
    if covered or missing:
        parts.append(f"Key points covered {len(covered)}/{len(covered) + len(missing)}.")
    if values["negation_mismatch"]:
        parts.append("Negation differs from the reference.")
    if values["opposite_swap"]:
        parts.append("Uses the opposite of a reference word.")
    if contradicted:
        parts.append("Says the opposite of: " + "; ".join(contradicted) + ".")
    if examples is not None and examples.weight > 0:
        parts.append(
            f"Nearest graded example: {examples.nearest_grade} "
            f"(similarity {examples.nearest_similarity:.2f})."
        )
    if misconceptions:
        parts.append("Known misconception: " + ", ".join(misconceptions) + ".")
    if error is not None:
        parts.append(f"Error type {error}.")
    return " ".join(parts)
