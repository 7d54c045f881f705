"""Courses: list, detail with modules and lessons, progress, sharing."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from fastapi import APIRouter, Response
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from tutorgraph import instructor
from tutorgraph.api.openapi_problems import problem_responses
from tutorgraph.http.deps import CurrentUser, OptionalUser, SessionDep
from tutorgraph.http.unit_of_work import UnitOfWorkRoute
from tutorgraph.ids import DbId
from tutorgraph.store import courses
from tutorgraph.store.models import LearningPath, User

router = APIRouter(route_class=UnitOfWorkRoute, prefix="/courses", tags=["courses"])


class CourseOut(BaseModel):
    slug: str
    title: str
    description: str
    level: str
    domain: str
    visibility: str
    section: courses.Section = Field(
        description="my (yours), shared (joined by its link, or you teach it), platform (the "
        "platform's own), community (another user's course, made public)."
    )
    author: str | None = Field(description="The owner's name; null for a platform course.")
    lesson_count: int
    completed_count: int


class LessonRef(BaseModel):
    id: int
    slug: str
    title: str
    summary: str
    completed: bool


class ModuleOut(BaseModel):
    title: str
    lessons: list[LessonRef]


class CourseDetail(CourseOut):
    modules: list[ModuleOut]


class ShareOut(BaseModel):
    share_token: str
    join_url: str


class MemberOut(BaseModel):
    user_id: int
    name: str
    joined_at: datetime


class VisibilityIn(BaseModel):
    visibility: Literal["public", "private"]


def course_out(
    course: LearningPath, section: courses.Section, done: set[int], author: str | None
) -> CourseOut:
    lessons = courses.course_lessons(course)
    return CourseOut(
        slug=course.slug,
        title=course.title,
        description=course.description,
        level=course.level,
        domain=course.domain,
        visibility=course.visibility,
        section=section,
        author=author,
        lesson_count=len(lessons),
        completed_count=sum(1 for lesson in lessons if lesson.id in done),
    )


@router.get("")
def list_courses(session: SessionDep, user: OptionalUser) -> list[CourseOut]:
    """Courses you can see, by `section`: my, shared, platform, then community."""
    done = courses.completed_lesson_ids(session=session, user=user)
    return [
        course_out(v.course, v.section, done, v.author)
        for v in courses.visible_courses(session=session, user=user)
    ]


@router.get("/{slug}")
def get_course(slug: str, session: SessionDep, user: OptionalUser) -> CourseDetail:
    """A course with its modules and their lessons (404 when it is not visible to you)."""
    course = courses.get_course(session=session, slug=slug, user=user)
    done = courses.completed_lesson_ids(session=session, user=user)
    modules = [
        ModuleOut(
            title=module.title,
            lessons=[
                LessonRef(
                    id=lesson.id,
                    slug=lesson.slug,
                    title=lesson.title,
                    summary=lesson.summary,
                    completed=lesson.id in done,
                )
                for lesson in module.lessons
            ],
        )
        for module in course.modules
    ]
    return CourseDetail(**_out(session, course, user, done).model_dump(), modules=modules)


def _out(session: Session, course: LearningPath, user: User | None, done: set[int]) -> CourseOut:
    section = courses.section_of(session=session, user=user, course=course)
    return course_out(course, section, done, courses.author_of(session=session, course=course))


@router.post("/{slug}/share", responses=problem_responses(403))
def share_course(slug: str, session: SessionDep, user: CurrentUser) -> ShareOut:
    """Create (or replace) the course's share link; owners only."""
    course = courses.get_course(session=session, slug=slug, user=user)
    token = courses.create_share_token(session=session, course=course, user=user)
    return ShareOut(share_token=token, join_url=f"/api/v1/shares/{token}")


@router.delete("/{slug}/share", status_code=204, responses=problem_responses(403))
def revoke_share(slug: str, session: SessionDep, user: CurrentUser) -> Response:
    """Turn the share link off; owners only. People who joined keep access until removed."""
    course = courses.get_course(session=session, slug=slug, user=user)
    courses.revoke_share_token(session=session, course=course, user=user)
    return Response(status_code=204)


@router.get("/{slug}/shares", responses=problem_responses(403))
def list_members(slug: str, session: SessionDep, user: CurrentUser) -> list[MemberOut]:
    """Who joined through a share link; owners only."""
    course = courses.get_course(session=session, slug=slug, user=user)
    return [
        MemberOut(user_id=m.user_id, name=m.name, joined_at=m.joined_at)
        for m in courses.course_members(session=session, course=course, user=user)
    ]


@router.delete("/{slug}/shares/{user_id}", status_code=204, responses=problem_responses(403))
def remove_member(slug: str, user_id: DbId, session: SessionDep, user: CurrentUser) -> Response:
    """Take a member's access away; owners only."""
    course = courses.get_course(session=session, slug=slug, user=user)
    courses.remove_member(session=session, course=course, user=user, member_id=user_id)
    return Response(status_code=204)


@router.put("/{slug}/visibility", responses=problem_responses(403))
def change_visibility(
    slug: str, body: VisibilityIn, session: SessionDep, user: CurrentUser
) -> CourseOut:
    """Make the course public or private (its owner or an admin). Only an owner who is an
    instructor or an admin makes a course public (403 for a learner: an admin publishes it);
    a learner's course made public is listed as theirs, under community."""
    course = courses.get_course(session=session, slug=slug, user=user)
    courses.set_visibility(session=session, course=course, user=user, visibility=body.visibility)
    return _out(session, course, user, courses.completed_lesson_ids(session=session, user=user))


class InstructorIn(BaseModel):
    email: str = Field(max_length=320)


class EnrollmentOut(BaseModel):
    course: str
    user_id: int
    role: str


@router.post("/{slug}/enroll", responses=problem_responses(404))
def enroll(slug: str, session: SessionDep, user: CurrentUser) -> EnrollmentOut:
    """Join the course's cohort (opening one of its lessons does this too): its instructors
    then see your progress on its concepts."""
    course = courses.get_course(session=session, slug=slug, user=user)
    row = instructor.enroll(session, course=course, user_id=user.id)
    return EnrollmentOut(course=course.slug, user_id=user.id, role=row.role)


@router.post("/{slug}/instructors", responses=problem_responses(403, 404, 422))
def add_instructor(
    slug: str, body: InstructorIn, session: SessionDep, user: CurrentUser
) -> EnrollmentOut:
    """Make a user with the instructor role an instructor of the course (owner or admin)."""
    course = courses.get_course(session=session, slug=slug, user=user)
    teacher = instructor.assign_instructor(session, course=course, actor=user, email=body.email)
    return EnrollmentOut(course=course.slug, user_id=teacher.id, role="instructor")


shares_router = APIRouter(route_class=UnitOfWorkRoute, prefix="/shares", tags=["courses"])


@shares_router.post("/{token}")
def accept_share(token: str, session: SessionDep, user: CurrentUser) -> CourseOut:
    """Accept a share link: the course appears under Shared with Me."""
    course = courses.join_by_token(session=session, token=token, user=user)
    instructor.join_as_learner(session, course=course, user=user)
    return _out(session, course, user, courses.completed_lesson_ids(session=session, user=user))
