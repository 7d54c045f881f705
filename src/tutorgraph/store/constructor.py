"""Course builds as stored: the build (ConstructorSession) with its claimed turn, the files its
author uploaded, the images read out of them, its progress events, and the knowledge-base domain
a published build brought (AuthoredDomain)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import Row, select, update
from sqlalchemy.orm import Session

from tutorgraph.store.models import (
    AuthoredDomain,
    ConstructorEvent,
    ConstructorImage,
    ConstructorSession,
    ConstructorUpload,
    utcnow,
)

# ---- builds -------------------------------------------------------------------------------------


def add_build(session: Session, *, build_id: str, owner_id: int, title: str) -> None:
    session.add(ConstructorSession(id=build_id, owner_id=owner_id, title=title))


def build_by_id(session: Session, build_id: str) -> ConstructorSession | None:
    return session.get(ConstructorSession, build_id)


def builds_of(session: Session, owner_id: int) -> Sequence[ConstructorSession]:
    """An author's builds, most recently changed first."""
    return session.scalars(
        select(ConstructorSession)
        .where(ConstructorSession.owner_id == owner_id)
        .order_by(ConstructorSession.updated_at.desc())
    ).all()


def claim_build(session: Session, build_id: str, *, turn: dict[str, Any]) -> bool:
    """Mark an idle (or failed) build running with the turn it is to run; False when it is
    running already. One conditional update, so of two turns submitted at once one wins."""
    claimed = session.execute(  # type: ignore[attr-defined]
        update(ConstructorSession)
        .where(ConstructorSession.id == build_id, ConstructorSession.status != "running")
        .values(status="running", error="", pending_turn=turn, updated_at=utcnow())
    ).rowcount
    return bool(claimed)


def running_builds(session: Session) -> Sequence[Row[str, dict[str, Any] | None]]:
    """(id, pending turn) of every build marked running."""
    return session.execute(
        select(ConstructorSession.id, ConstructorSession.pending_turn).where(
            ConstructorSession.status == "running"
        )
    ).all()


# ---- uploads ------------------------------------------------------------------------------------


def add_upload(
    session: Session,
    *,
    upload_id: str,
    build_id: str,
    filename: str,
    size: int,
    sha256: str,
    data: bytes,
    kind: str,
) -> ConstructorUpload:
    """Queue a new upload (written at the caller's next flush)."""
    upload = ConstructorUpload(
        id=upload_id,
        session_id=build_id,
        filename=filename,
        size=size,
        sha256=sha256,
        data=data,
        kind=kind,
    )
    session.add(upload)
    return upload


def upload_by_id(session: Session, upload_id: str) -> ConstructorUpload | None:
    return session.get(ConstructorUpload, upload_id)


def delete_upload(session: Session, upload: ConstructorUpload) -> None:
    session.delete(upload)


def uploads_of(session: Session, build_id: str) -> Sequence[ConstructorUpload]:
    """A build's uploads, in the order they came."""
    return session.scalars(
        select(ConstructorUpload)
        .where(ConstructorUpload.session_id == build_id)
        .order_by(ConstructorUpload.created_at, ConstructorUpload.id)
    ).all()


def uploads_by_ids(
    session: Session, build_id: str, upload_ids: Collection[str]
) -> Sequence[ConstructorUpload]:
    return session.scalars(
        select(ConstructorUpload).where(
            ConstructorUpload.session_id == build_id, ConstructorUpload.id.in_(upload_ids)
        )
    ).all()


def pending_upload_ids(session: Session, build_id: str) -> list[str]:
    """The build's uploads no turn has read yet."""
    return list(
        session.scalars(
            select(ConstructorUpload.id)
            .where(
                ConstructorUpload.session_id == build_id,
                ConstructorUpload.status == "pending",
            )
            # Upload order is the author's order of the units.
            .order_by(ConstructorUpload.created_at, ConstructorUpload.id)
        )
    )


# ---- images and events --------------------------------------------------------------------------


def image_by_id(session: Session, build_id: str, image_id: str) -> ConstructorImage | None:
    return session.get(ConstructorImage, (build_id, image_id))


def keep_image(
    session: Session,
    *,
    build_id: str,
    image_id: str,
    name: str,
    media_type: str,
    caption: str,
    data: bytes,
) -> None:
    """Keep an image read out of an upload, unless the build has it already (a re-read)."""
    if image_by_id(session, build_id, image_id) is None:
        session.add(
            ConstructorImage(
                session_id=build_id,
                id=image_id,
                name=name,
                media_type=media_type,
                caption=caption,
                data=data,
            )
        )


def add_event(
    session: Session, *, build_id: str, stage: str, message: str, done: int, total: int
) -> None:
    session.add(
        ConstructorEvent(session_id=build_id, stage=stage, message=message, done=done, total=total)
    )


def events_after(
    session: Session, build_id: str, after: int, *, limit: int
) -> Sequence[ConstructorEvent]:
    """The build's progress events after event id `after`, oldest first, at most `limit`."""
    return session.scalars(
        select(ConstructorEvent)
        .where(ConstructorEvent.session_id == build_id, ConstructorEvent.id > after)
        .order_by(ConstructorEvent.id)
        .limit(limit)
    ).all()


def last_event_id(session: Session, build_id: str) -> int | None:
    return session.scalar(
        select(ConstructorEvent.id)
        .where(ConstructorEvent.session_id == build_id)
        .order_by(ConstructorEvent.id.desc())
        .limit(1)
    )


# ---- published domains --------------------------------------------------------------------------


def save_authored_domain(session: Session, *, name: str, course_id: int, document: str) -> None:
    """Create or update the domain a published course brought, as its YAML document."""
    row = session.get(AuthoredDomain, name)
    if row is None:
        row = AuthoredDomain(name=name, learning_path_id=course_id, document="")
        session.add(row)
    row.document = document
    row.updated_at = utcnow()
    session.flush()


def authored_domains(session: Session) -> Sequence[AuthoredDomain]:
    return session.scalars(select(AuthoredDomain)).all()
