"""`tutorgraph users ...`: accounts created by an operator."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer
from sqlalchemy import select
from sqlalchemy.orm import Session

from tutorgraph import instructor
from tutorgraph.cli._console import console
from tutorgraph.errors import InputError, NotFoundError
from tutorgraph.settings import load_settings
from tutorgraph.store import migrate, users
from tutorgraph.store.db import Database
from tutorgraph.store.models import ROLES, LearningPath

users_app = typer.Typer(help="Manage user accounts.", no_args_is_help=True)


@contextmanager
def _session() -> Iterator[Session]:
    """A committed session on the configured database, refused if its schema is not current."""
    settings = load_settings()
    migrate.require_current(settings)
    database = Database(settings)
    try:
        with database.session() as session:
            yield session
    finally:
        database.dispose()


@users_app.command("create")
def create(
    email: Annotated[str, typer.Option(help="Login email.")],
    name: Annotated[str, typer.Option(help="Display name.")],
    role: Annotated[str, typer.Option(help=f"One of: {', '.join(ROLES)}.")] = "learner",
    password: Annotated[
        str,
        typer.Option(prompt=True, hide_input=True, confirmation_prompt=True, help="Password."),
    ] = "",
) -> None:
    """Create a user (a learner unless --role says otherwise: an admin account is asked for,
    never made by default); the password is prompted for unless given."""
    with _session() as session:
        user = users.create_user(
            session=session, email=email, password=password, name=name, role=role
        )
        console.print(f"created {user.role} [bold]{user.email}[/] (id {user.id})")


@users_app.command("set-password")
def set_password(
    email: Annotated[str, typer.Option(help="Login email of the account.")],
    password: Annotated[
        str,
        typer.Option(prompt=True, hide_input=True, confirmation_prompt=True, help="New password."),
    ] = "",
) -> None:
    """Set a user's password (prompted for unless given); every session of theirs ends."""
    with _session() as session:
        user = users.get_user_by_email(session=session, email=email)
        if user is None:
            raise NotFoundError(f"no user with the email {email}")
        users.set_password(session=session, user=user, password=password)
        console.print(f"password set for [bold]{user.email}[/]; their sessions have ended")


@users_app.command("set-role")
def set_role(
    email: Annotated[str, typer.Option(help="Login email of the account.")],
    role: Annotated[str, typer.Option(help=f"One of: {', '.join(ROLES)}.")],
) -> None:
    """Give a user another role (instructor to teach courses, admin to run the platform)."""
    if role not in ROLES:
        raise InputError(f"role: must be one of {', '.join(ROLES)}")
    with _session() as session:
        user = users.get_user_by_email(session=session, email=email)
        if user is None:
            raise NotFoundError(f"no user with the email {email}")
        user.role = role
        console.print(f"[bold]{user.email}[/] is now {role}")


@users_app.command("teach")
def teach(
    email: Annotated[str, typer.Option(help="Login email of an instructor.")],
    course: Annotated[str, typer.Option(help="The course's slug.")],
) -> None:
    """Make an instructor a course's instructor: its cohort dashboard appears under Teach."""
    with _session() as session:
        found = session.scalar(select(LearningPath).where(LearningPath.slug == course))
        if found is None:
            raise NotFoundError(f"no course {course!r}")
        teacher = instructor.assign_instructor(session, course=found, actor=None, email=email)
        console.print(f"[bold]{teacher.email}[/] now teaches {found.title}")
