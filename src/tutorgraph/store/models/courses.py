"""Courses and their content: modules, lessons, sharing, enrolment, progress, and the
knowledge-base domain a published course brought."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Boolean, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tutorgraph.store.models.base import Base, utcnow

Visibility = Literal["public", "private"]


class LearningPath(Base):
    """A course."""

    __tablename__ = "learning_paths"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(200), unique=True)
    title: Mapped[str] = mapped_column(String(300))
    description: Mapped[str] = mapped_column(Text, default="")
    level: Mapped[str] = mapped_column(String(50), default="")
    domain: Mapped[str] = mapped_column(String(100), default="")
    order_index: Mapped[int] = mapped_column(Integer, default=0)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    visibility: Mapped[str] = mapped_column(String(20), default="private")
    share_token: Mapped[str | None] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    modules: Mapped[list[Module]] = relationship(
        back_populates="learning_path", order_by="Module.order_index", cascade="all, delete-orphan"
    )


class CourseShare(Base):
    __tablename__ = "course_shares"
    __table_args__ = (UniqueConstraint("learning_path_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    learning_path_id: Mapped[int] = mapped_column(
        ForeignKey("learning_paths.id", ondelete="CASCADE")
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class CourseEnrollment(Base):
    """A learner studying a course, or an instructor teaching it: the cohort an instructor's
    dashboard shows. Learners enrol by opening a lesson or joining by share link; the owner or
    an admin assigns instructors."""

    __tablename__ = "course_enrollments"
    __table_args__ = (UniqueConstraint("learning_path_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    learning_path_id: Mapped[int] = mapped_column(
        ForeignKey("learning_paths.id", ondelete="CASCADE")
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(20), default="learner")  # learner | instructor
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Module(Base):
    __tablename__ = "modules"

    id: Mapped[int] = mapped_column(primary_key=True)
    learning_path_id: Mapped[int] = mapped_column(
        ForeignKey("learning_paths.id", ondelete="CASCADE"), index=True
    )
    title: Mapped[str] = mapped_column(String(300))
    order_index: Mapped[int] = mapped_column(Integer, default=0)

    learning_path: Mapped[LearningPath] = relationship(back_populates="modules")
    lessons: Mapped[list[Lesson]] = relationship(
        back_populates="module", order_by="Lesson.order_index", cascade="all, delete-orphan"
    )


class Lesson(Base):
    __tablename__ = "lessons"

    id: Mapped[int] = mapped_column(primary_key=True)
    module_id: Mapped[int] = mapped_column(ForeignKey("modules.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(300))
    slug: Mapped[str] = mapped_column(String(200), index=True)
    order_index: Mapped[int] = mapped_column(Integer, default=0)
    content: Mapped[str] = mapped_column(Text, default="")
    summary: Mapped[str] = mapped_column(Text, default="")
    concepts: Mapped[list[Any]] = mapped_column(default=list)
    reference_kb: Mapped[str] = mapped_column(Text, default="")
    sources_used: Mapped[list[Any]] = mapped_column(default=list)
    image_metadata: Mapped[list[Any]] = mapped_column(default=list)
    quiz: Mapped[list[Any]] = mapped_column(default=list)
    youtube_id: Mapped[str | None] = mapped_column(String(50))
    video_title: Mapped[str | None] = mapped_column(String(300))
    transcript: Mapped[str | None] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(String(64), default="")

    module: Mapped[Module] = relationship(back_populates="lessons")


class UserLessonProgress(Base):
    __tablename__ = "user_lesson_progress"
    __table_args__ = (UniqueConstraint("user_id", "lesson_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    lesson_id: Mapped[int] = mapped_column(ForeignKey("lessons.id", ondelete="CASCADE"))
    completed: Mapped[bool] = mapped_column(Boolean, default=False)
    completed_at: Mapped[datetime | None] = mapped_column()


class ConceptPage(Base):
    __tablename__ = "concept_pages"

    id: Mapped[int] = mapped_column(primary_key=True)
    topic: Mapped[str] = mapped_column(String(200), unique=True)
    body: Mapped[str] = mapped_column(Text)
    lesson_id: Mapped[int | None] = mapped_column(ForeignKey("lessons.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Project(Base):
    __tablename__ = "projects"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(200), unique=True)
    title: Mapped[str] = mapped_column(String(300))
    learning_path_id: Mapped[int | None] = mapped_column(
        ForeignKey("learning_paths.id", ondelete="SET NULL")
    )
    vision: Mapped[str] = mapped_column(Text, default="")
    outcomes: Mapped[list[Any]] = mapped_column(default=list)
    challenges: Mapped[list[Any]] = mapped_column(default=list)
    architecture_mermaid: Mapped[str] = mapped_column(Text, default="")
    demo_url: Mapped[str | None] = mapped_column(String(500))
    repo_url: Mapped[str | None] = mapped_column(String(500))


class AuthoredDomain(Base):
    """The knowledge-base domain a published course brought (its YAML, validated on load)."""

    __tablename__ = "authored_domains"

    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    learning_path_id: Mapped[int] = mapped_column(
        ForeignKey("learning_paths.id", ondelete="CASCADE"), unique=True
    )
    document: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
