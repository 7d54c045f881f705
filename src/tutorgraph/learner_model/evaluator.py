"""The evaluator: all 8 phases of the spec around one answer.

1 context (knowledge base + stored mastery) -> 2 judge -> 3 error type and misconceptions ->
4 feedback -> 5 path decision -> 6 mastery (`mastery.record_score`: the one update rule, BKT
kept beside it) -> 7 instructor alert -> 8 event.
Phases 2-4 are the text grader's (`tutorgraph.grading`); its model calls fall back to the
offline implementations when they fail."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from tutorgraph.errors import ProviderError
from tutorgraph.grading import uncertainty
from tutorgraph.grading.checks.grade import with_checks
from tutorgraph.grading.classify import classify_error
from tutorgraph.grading.feedback import FeedbackInputs, generate_feedback, offline_feedback
from tutorgraph.grading.judge import judge
from tutorgraph.grading.keypoints import stated_misconceptions
from tutorgraph.grading.offline import OfflineGrader
from tutorgraph.grading.types import (
    ChecksSummary,
    ErrorType,
    GraderName,
    GradingRequest,
    PathDecision,
    RubricScores,
    Verdict,
)
from tutorgraph.knowledge.grading_context import enrich_request
from tutorgraph.learner_model import alerts, mastery
from tutorgraph.learner_model.decision import decide
from tutorgraph.learner_model.events import (
    EVALUATION_COMPLETED,
    EVENT_TEXT_CHARS,
    EventBus,
    store_event,
)
from tutorgraph.llm import Model
from tutorgraph.offload import run_blocking, run_cpu_bound, run_in_pool
from tutorgraph.settings import GradingSettings

log = logging.getLogger(__name__)


class MisconceptionOut(BaseModel):
    id: str
    description: str


class MasteryValues(BaseModel):
    wma: float
    bkt: float
    attempts: int


class MasteryOut(BaseModel):
    concept: str
    before: MasteryValues
    after: MasteryValues
    kind: mastery.EvidenceKind = Field(
        default="answer",
        description="The kind of evidence, which sets how far one answer can move mastery.",
    )


class GradeResult(BaseModel):
    """Everything the evaluator concluded about one answer."""

    score: float
    rubric: RubricScores
    error_type: ErrorType | None
    misconceptions: list[MisconceptionOut]
    covered_key_points: list[str]
    missing_key_points: list[str]
    feedback: str
    decision: PathDecision
    grader: GraderName
    certainty: float = Field(
        default=1.0, description="How sure the grader is; below 0.6 the feedback says so."
    )
    reasoning: str
    warnings: list[str] = Field(default_factory=list)
    checks: ChecksSummary | None = Field(
        default=None,
        description="What running the answer's code or computing with its numbers found "
        "(questions with checks).",
    )
    mastery: MasteryOut | None = None
    alert_id: int | None = None


class Evaluator:
    def __init__(
        self,
        model: Model,
        *,
        bus: EventBus | None = None,
        offline_grader: OfflineGrader | None = None,
        grading: GradingSettings | None = None,
    ) -> None:
        self.model = model
        self.bus = bus or EventBus()
        self.grading = grading or GradingSettings()
        self.offline_grader = offline_grader or OfflineGrader(weights=self.grading.rubric_weights)

    async def verdict(self, request: GradingRequest) -> tuple[Verdict, list[str]]:
        """Phases 2-3: judge, then classify and detect misconceptions."""
        request = enrich_request(request)
        warnings: list[str] = []
        if not request.answer.strip():
            log.warning("empty answer graded 0.0 (concept %s)", request.concept)
            warnings.append("empty answer: scored 0.0")
            verdict = Verdict(
                score=0.0,
                rubric=RubricScores(correctness=0.0, completeness=0.0, clarity=0.0),
                error_type="INCOMPLETE",  # nothing shown: try again, not re-learn
                missing_key_points=list(request.rubric),
                reasoning="No answer was given.",
            )
        else:
            try:
                verdict = await judge(
                    self.model,
                    request,
                    runs=self.grading.judge_runs,
                    weights=self.grading.rubric_weights,
                )
            except ProviderError as exc:
                log.warning("judge failed (%s); using the offline grader", type(exc).__name__)
                warnings.append(
                    f"model judge unavailable ({type(exc).__name__}); offline grader used"
                )
                verdict = await run_cpu_bound(self.offline_grader.grade, request)
        if request.checks is not None and request.answer.strip():
            # What ran or was computed decides the points it names; misconceptions are then
            # read in the prose only (grading/checks/grade.py).
            verdict = await run_in_pool("sandbox", with_checks, request, verdict)
            return verdict, warnings
        known = {m.id for m in request.misconceptions}
        detected = [m for m in verdict.misconceptions if m in known]
        for found in stated_misconceptions(request.answer, request.misconceptions):
            if found not in detected:
                detected.append(found)
        if verdict.score >= 0.8:
            error_type = None
        else:
            error_type = verdict.error_type or classify_error(
                verdict, question=request.question, answer=request.answer, misconceptions=detected
            )
            if detected and error_type != "CONCEPTUAL":
                error_type = "CONCEPTUAL"
        return verdict.model_copy(
            update={"error_type": error_type, "misconceptions": detected}
        ), warnings

    async def grade(self, request: GradingRequest, *, current_mastery: float = 0.0) -> GradeResult:
        """Phases 1-5 without storage: the result a caller with no account gets."""
        request = enrich_request(request)
        verdict, warnings = await self.verdict(request)
        decision = decide(
            score=verdict.score,
            error_type=verdict.error_type,
            difficulty=request.difficulty,
            mastery=current_mastery,
        )
        inputs = FeedbackInputs(request=request, verdict=verdict, decision=decision)
        try:
            feedback = await generate_feedback(self.model, inputs)
        except ProviderError as exc:
            log.warning("feedback model failed (%s); offline feedback used", type(exc).__name__)
            feedback = offline_feedback(inputs)
        if uncertainty.is_unsure(verdict.certainty):
            feedback = f"{uncertainty.UNSURE_PREFIX} {uncertainty.explain(verdict)} {feedback}"
        descriptions = {m.id: m.description for m in request.misconceptions}
        return GradeResult(
            score=verdict.score,
            rubric=verdict.rubric,
            error_type=verdict.error_type,
            misconceptions=[
                MisconceptionOut(id=m, description=descriptions.get(m, m))
                for m in verdict.misconceptions
            ],
            covered_key_points=verdict.covered_key_points,
            missing_key_points=verdict.missing_key_points,
            feedback=feedback,
            decision=decision,
            grader=verdict.grader,
            certainty=verdict.certainty,
            reasoning=verdict.reasoning,
            warnings=warnings,
            checks=verdict.checks,
        )

    async def evaluate(
        self,
        request: GradingRequest,
        *,
        session: Session,
        user_id: int,
        source: dict[str, Any] | None = None,
    ) -> GradeResult:
        """All 8 phases for a learner: mastery read and updated, alert and event stored.

        `session` is the caller's unit of work; its transaction is ended before grading, so
        no connection is held while the judge (a model, or the offline grader) works."""
        concept = request.concept
        current = 0.0
        if concept:
            snapshot = await run_blocking(
                _read_then_release, session, user_id=user_id, concept=concept
            )
            current = snapshot.wma
        result = await self.grade(request, current_mastery=current)
        result = await run_blocking(
            self._record_and_commit, session, request, result, user_id, source
        )
        await run_blocking(self.publish_completed, request, result, user_id, source)
        return result

    def _record_and_commit(
        self,
        session: Session,
        request: GradingRequest,
        result: GradeResult,
        user_id: int,
        source: dict[str, Any] | None,
    ) -> GradeResult:
        try:
            result = self.record(session, request, result, user_id, source=source)
            session.commit()
        except BaseException:
            session.rollback()
            raise
        return result

    def publish_completed(
        self,
        request: GradingRequest,
        result: GradeResult,
        user_id: int,
        source: dict[str, Any] | None = None,
    ) -> None:
        """Phase 8, after the transaction committed: tell in-process subscribers (the path
        planner). Subscribers may use the database: call it off the event loop. The stored
        event is the durable copy: a subscriber that fails or never runs loses nothing."""
        self.bus.publish(
            EVALUATION_COMPLETED, self._event_payload(request, result, user_id, source)
        )

    def record(
        self,
        session: Session,
        request: GradingRequest,
        result: GradeResult,
        user_id: int,
        *,
        source: dict[str, Any] | None = None,
    ) -> GradeResult:
        """Phases 6-8 inside the caller's transaction (the event is stored, not yet published)."""
        update: dict[str, object] = {}
        if request.concept:
            change = mastery.record_score(
                session=session,
                user_id=user_id,
                concept=request.concept,
                score=result.score,
                certainty=result.certainty,
                kind="answer",  # a typed answer the grader read
            )
            update["mastery"] = MasteryOut(
                concept=change.concept,
                before=MasteryValues(**change.before.__dict__),
                after=MasteryValues(**change.after.__dict__),
                kind=change.kind,
            )
        if alerts.needs_alert(result.score):
            alert = alerts.raise_alert(
                session=session,
                user_id=user_id,
                concept=request.concept or "",
                score=result.score,
                question=request.question,
                answer=request.answer,
            )
            update["alert_id"] = alert.id
        result = result.model_copy(update=update)
        store_event(
            session,
            user_id=user_id,
            concept=request.concept or "",
            score=result.score,
            decision=result.decision,
            payload=self._event_payload(request, result, user_id, source),
        )
        return result

    @staticmethod
    def _event_payload(
        request: GradingRequest,
        result: GradeResult,
        user_id: int,
        source: dict[str, Any] | None = None,
    ) -> dict[str, object]:
        """The event: what the planner, the review queue and the learner's Progress page read.
        `source` says where the answer was given (`kind`: practice, api...; for practice the
        round, question, attempt and Bloom level)."""
        return {
            "source": dict(source or {"kind": "api"}),
            "question": request.question[:EVENT_TEXT_CHARS],
            "answer": request.answer[:EVENT_TEXT_CHARS],
            "missing_key_points": result.missing_key_points,
            "mastery": result.mastery.model_dump(mode="json") if result.mastery else None,
            "user_id": user_id,
            "concept": request.concept,
            "score": result.score,
            "decision": result.decision,
            "error_type": result.error_type,
            "misconceptions": [m.id for m in result.misconceptions],
            "grader": result.grader,
            "certainty": result.certainty,
        }


def _read_then_release(session: Session, *, user_id: int, concept: str) -> mastery.MasterySnapshot:
    """The learner's mastery, with the read transaction ended (its connection released)."""
    try:
        return mastery.current_mastery(session=session, user_id=user_id, concept=concept)
    finally:
        session.commit()
