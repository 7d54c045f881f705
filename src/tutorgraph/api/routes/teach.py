"""The instructor's cohort dashboard: the courses you teach, their learners' mastery per
concept, common misconceptions with example answers, open alerts, and a CSV export."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from tutorgraph import instructor
from tutorgraph.api.openapi_problems import problem_responses
from tutorgraph.content import quiz_export
from tutorgraph.http.deps import CurrentUser, DatabaseDep, InstructorUser, SessionDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.learner_model.refit_schedule import refit

router = APIRouter(route_class=UnitOfWorkRoute, prefix="/teach", tags=["instructor"])


class TaughtCourse(BaseModel):
    slug: str
    title: str
    learners: int


@router.get("/courses", responses=problem_responses(403))
def taught(session: SessionDep, user: CurrentUser) -> list[TaughtCourse]:
    """The courses you teach or own (admins: every course)."""
    return [
        TaughtCourse(slug=s.course.slug, title=s.course.title, learners=len(s.learner_ids))
        for s in instructor.scopes(session, user=user)
    ]


@router.get("/courses/{slug}", responses=problem_responses(403, 404))
def course_dashboard(slug: str, session: SessionDep, user: CurrentUser) -> instructor.Dashboard:
    """The cohort of a course you teach."""
    return instructor.dashboard(session, scope=instructor.scope_of(session, user=user, slug=slug))


@router.get(
    "/courses/{slug}/export.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}}, **problem_responses(403, 404)},
)
def export(slug: str, session: SessionDep, user: CurrentUser) -> Response:
    """Mastery per learner and concept of a course you teach, as CSV."""
    scope = instructor.scope_of(session, user=user, slug=slug)
    return Response(
        instructor.export_csv(session, scope=scope),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{scope.course.slug}-cohort.csv"'},
    )


class RefitOut(BaseModel):
    model: str = Field(description="bkt or bkt_forgetting: the model fitted.")
    reason: str
    holdout_auc: dict[str, float]
    fitted: dict[str, int] = Field(description="Concepts refitted, with their answers.")
    skipped: dict[str, int] = Field(description="Concepts with too few answers, with their count.")


@router.post("/refit", responses=problem_responses(403))
def refit_now(request: Request, user: InstructorUser, database: DatabaseDep) -> RefitOut:
    """Refit every concept's BKT parameters from the stored answers now (parameters only:
    no learner's data leaves the server)."""
    report = refit(database, request.app.state.settings.mastery)
    return RefitOut(**report.__dict__)


@router.get(
    "/courses/{slug}/quiz-bank.qti.zip",
    response_class=Response,
    responses={200: {"content": {"application/zip": {}}}, **problem_responses(403, 404)},
)
def export_qti(slug: str, session: SessionDep, user: CurrentUser) -> Response:
    """The course's quiz bank (lesson cards and knowledge-base questions, answers included)
    as a QTI 3.0 content package: for the instructors of the course only."""
    scope = instructor.scope_of(session, user=user, slug=slug)
    return Response(
        quiz_export.qti_package(quiz_export.quiz_bank(scope.course, scope.knowledge)),
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{slug}-qti3.zip"'},
    )


@router.get(
    "/courses/{slug}/quiz-bank.moodle.xml",
    response_class=Response,
    responses={200: {"content": {"application/xml": {}}}, **problem_responses(403, 404)},
)
def export_moodle(slug: str, session: SessionDep, user: CurrentUser) -> Response:
    """The course's quiz bank as a Moodle XML question-bank import file."""
    scope = instructor.scope_of(session, user=user, slug=slug)
    return Response(
        quiz_export.moodle_xml(quiz_export.quiz_bank(scope.course, scope.knowledge)),
        media_type="application/xml",
        headers={"Content-Disposition": f'attachment; filename="{slug}-moodle.xml"'},
    )
