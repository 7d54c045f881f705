"""LTI 1.3 for a school: an LMS launches a learner into a course (OIDC third-party login, then a
signed resource-link launch, validated by pylti1p3), and their grade goes back to the LMS's
gradebook (Assignment and Grade Services).

- Each platform is registered in `lti.platforms` (issuer, client id, its endpoints and JWKS,
  deployment ids, and the course a launch opens). The tool's RSA key is `data_dir/lti_tool_key.pem`
  (made on first use, mode 0600), published at `/lti/jwks`.
- A launch is trusted only as far as the platform's signature: the learner's account here is
  keyed by (issuer, client id, `sub`), never by an email address the platform asserts, and has
  no password. An instructor role in the launch makes them an instructor of that course.
- The grade is the learner's mean mastery over the course's concepts (0-100), sent after every
  graded answer on one of them. It waits in `lti_scores` (one pending row per link: the latest)
  and is retried with backoff until the LMS takes it."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import anyio.to_thread
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi.responses import Response
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException
from pylti1p3.grade import Grade
from pylti1p3.registration import Registration
from pylti1p3.service_connector import ServiceConnector
from pylti1p3.tool_config.dict import ToolConfDict
from sqlalchemy.orm import Session

from tutorgraph import instructor
from tutorgraph.errors import AuthenticationError, NotFoundError, RateLimitedError
from tutorgraph.learner_model import mastery
from tutorgraph.lti.framework import DatabaseLaunchStorage, Launch, Login, LtiRequest
from tutorgraph.lti.keys import KeySetCache, KeySetUnavailable
from tutorgraph.security import NO_PASSWORD
from tutorgraph.settings import LtiPlatform, Settings
from tutorgraph.signing_secret import create_private_file
from tutorgraph.store import courses, users
from tutorgraph.store import lti as stored
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath, LtiLink, User, utcnow

log = logging.getLogger(__name__)

KEY_FILE = "lti_tool_key.pem"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
TEACHING_ROLES = ("#Instructor", "#Administrator", "#ContentDeveloper", "#TeachingAssistant")
MAX_BACKOFF = timedelta(hours=6)
LAUNCH_LIFETIME = 600  # seconds a login's state and nonce wait for its launch
LOGIN_WINDOW = timedelta(minutes=1)  # logins are counted per client IP over this


class LtiError(AuthenticationError):
    """A login or launch the tool refuses (unknown platform, bad signature, replayed nonce...)."""

    title = "LTI launch refused"


def tool_key(settings: Settings) -> tuple[str, str]:
    """(private PEM, public PEM) of the tool's signing key, created on first use."""
    return _key_at((Path(settings.data_dir) / KEY_FILE).resolve())


@functools.cache
def _key_at(path: Path) -> tuple[str, str]:
    """Read (or make) the key once per process: it never changes under a running server."""
    if not path.exists():
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        if create_private_file(path, pem):
            log.info("generated the LTI tool key in %s", path)
    private = path.read_text(encoding="ascii")
    loaded = serialization.load_pem_private_key(private.encode("ascii"), password=None)
    public = loaded.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private, public.decode("ascii")


def tool_config(
    settings: Settings, *, key_sets: dict[str, dict[str, Any]] | None = None
) -> ToolConfDict:
    """pylti1p3's view of the registered platforms; `key_sets` (by URL) are used as they are,
    so checking a launch fetches nothing (`platform_key_sets` got them without blocking)."""
    key_sets = key_sets or {}
    private, public = tool_key(settings)
    config: dict[str, list[dict[str, Any]]] = {}
    for platform in settings.lti.platforms:
        config.setdefault(platform.issuer, []).append(
            {
                "default": not config.get(platform.issuer),
                "client_id": platform.client_id,
                "auth_login_url": platform.auth_login_url,
                "auth_token_url": platform.auth_token_url,
                "key_set_url": platform.key_set_url,
                "key_set": key_sets.get(platform.key_set_url),
                "deployment_ids": list(platform.deployment_ids),
            }
        )
    tool = ToolConfDict(config)  # type: ignore[arg-type]
    for platform in settings.lti.platforms:
        tool.set_private_key(platform.issuer, private, client_id=platform.client_id)
        tool.set_public_key(platform.issuer, public, client_id=platform.client_id)
    return tool


def jwks(settings: Settings) -> dict[str, Any]:
    """The tool's public key set, for platforms to check its service requests."""
    _, public = tool_key(settings)
    return {"keys": [Registration.get_jwk(public)]}


def login(
    settings: Settings,
    database: Database,
    request: LtiRequest,
    *,
    launch_url: str,
    client: str = "unknown",
) -> Response:
    """OIDC third-party initiated login: send the browser to the platform's auth endpoint.
    Each stores a state and a nonce, so a client IP gets `limits.lti_logins_per_minute_per_ip`
    (429 beyond). Blocks on the database: call it from a thread."""
    _count_login(settings, database, client)
    storage = DatabaseLaunchStorage(database)
    oidc = Login(request, tool_config(settings), storage)
    try:
        redirect: Response = oidc.set_launch_data_lifetime(LAUNCH_LIFETIME).redirect(launch_url)
        return redirect
    except (LtiException, AssertionError) as exc:
        raise LtiError(f"login: {exc}") from None
    except Exception as exc:  # pylti1p3 raises bare Exception for an unknown issuer
        raise LtiError(f"login: {exc}") from None


def _count_login(settings: Settings, database: Database, client: str) -> None:
    key = f"lti-login:ip:{client}"
    with database.session() as session:
        if users.count_recent_attempts(session=session, key=key, window=LOGIN_WINDOW) >= (
            settings.limits.lti_logins_per_minute_per_ip
        ):
            raise RateLimitedError("too many LTI logins from your network; wait a minute")
        users.record_login_attempt(session=session, key=key)


async def platform_key_sets(
    settings: Settings, request: LtiRequest, cache: KeySetCache
) -> dict[str, dict[str, Any]]:
    """The key set of the registered platform a launch names (by its unverified `iss`, `aud`
    and `kid`), from the cache or fetched without blocking; {} when it names none, which the
    launch's checks then refuse."""
    token = request.get_param("id_token")
    try:
        kid = jwt.get_unverified_header(token).get("kid")
        claims = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        return {}
    audience = claims.get("aud")
    audiences = audience if isinstance(audience, list) else [audience]
    for platform in settings.lti.platforms:
        if platform.issuer == claims.get("iss") and platform.client_id in audiences:
            try:
                keys = await cache.key_set(platform.key_set_url, str(kid) if kid else None)
            except KeySetUnavailable as exc:
                raise LtiError(
                    f"launch: the platform's key set could not be fetched: {exc}"
                ) from None
            return {platform.key_set_url: keys}
    return {}


@dataclass(frozen=True)
class Launched:
    user: User
    course: LearningPath
    link: LtiLink


def launch(
    settings: Settings,
    database: Database,
    session: Session,
    request: LtiRequest,
    *,
    key_sets: dict[str, dict[str, Any]] | None = None,
) -> Launched:
    """Validate a resource-link launch (state, nonce, signature, deployment, message), then
    find or make the learner, enrol them and remember where their grade goes. The platform's
    key set comes in `key_sets` (`platform_key_sets`); without it, pylti1p3 would fetch it
    here. Blocks on the database: call it from a thread."""
    tool = tool_config(settings, key_sets=key_sets)
    message = Launch(request, tool, DatabaseLaunchStorage(database))
    try:
        data: dict[str, Any] = dict(message.get_launch_data())
        if not message.is_resource_launch():
            raise LtiError("launch: only resource-link launches open a course")
        issuer, client_id = message.get_iss(), message.get_client_id()
    except LtiError:
        raise
    except Exception as exc:  # pylti1p3's validation errors
        raise LtiError(f"launch: {exc}") from None
    platform = _platform(settings, issuer, client_id)
    course = courses.course_with_slug(session=session, slug=platform.course)
    if course is None:
        raise NotFoundError(f"lti: the course {platform.course!r} of this platform does not exist")
    subject = str(data.get("sub") or "")
    if not subject:
        raise LtiError("launch: an anonymous launch (no sub) cannot be graded")
    teaching = any(role.endswith(TEACHING_ROLES) for role in data.get(CLAIM + "roles", []))
    user = _user(session, issuer, client_id, subject, data, teaching=teaching)
    link = _link(session, user, issuer, client_id, subject, data, course)
    instructor.enroll(
        session, course=course, user_id=user.id, role="instructor" if teaching else "learner"
    )
    session.flush()
    return Launched(user=user, course=course, link=link)


def _platform(settings: Settings, issuer: str, client_id: str) -> LtiPlatform:
    for platform in settings.lti.platforms:
        if platform.issuer == issuer and platform.client_id == client_id:
            return platform
    raise LtiError(f"launch: no platform {issuer} with client id {client_id} is registered")


def _user(
    session: Session,
    issuer: str,
    client_id: str,
    subject: str,
    data: dict[str, Any],
    *,
    teaching: bool,
) -> User:
    existing = stored.link_of_subject(session, issuer=issuer, client_id=client_id, subject=subject)
    if existing is not None:
        user = users.get_user(session=session, user_id=existing.user_id)
        if user is not None:
            return user
    digest = hashlib.sha256(f"{issuer}|{client_id}|{subject}".encode()).hexdigest()[:24]
    name = str(data.get("name") or data.get("given_name") or "LMS learner")[:200]
    return stored.add_user(
        session,
        email=f"lti-{digest}@lti.invalid",  # never the platform's email claim: no takeover
        name=name,
        password_hash=NO_PASSWORD,
        role="instructor" if teaching else "learner",
    )


def _link(
    session: Session,
    user: User,
    issuer: str,
    client_id: str,
    subject: str,
    data: dict[str, Any],
    course: LearningPath,
) -> LtiLink:
    resource = str((data.get(CLAIM + "resource_link") or {}).get("id") or "")
    link = stored.link_of_resource(
        session, issuer=issuer, client_id=client_id, subject=subject, resource_link_id=resource
    )
    if link is None:
        link = stored.add_link(
            session,
            user_id=user.id,
            issuer=issuer,
            client_id=client_id,
            subject=subject,
            resource_link_id=resource,
            deployment_id=str(data.get(CLAIM + "deployment_id") or ""),
            course_slug=course.slug,
        )
    link.ags = dict(data.get(AGS_CLAIM) or {})
    link.course_slug, link.updated_at = course.slug, utcnow()
    session.flush()
    return link


# ---- grades back to the LMS -----------------------------------------------------------------


def queue_grades(session: Session, *, user_id: int, concept: str) -> int:
    """After a graded answer: the learner's new grade for every launched course teaching the
    concept (mean mastery over its concepts), replacing a pending one."""
    queued = 0
    for link in stored.links_of(session, user_id):
        if not link.ags.get("lineitem"):
            continue
        course = courses.course_with_slug(session=session, slug=link.course_slug)
        if course is None:
            continue
        concepts = courses.course_concepts(course)
        if concept not in concepts:
            continue
        known = mastery.mastery_by_concept(session=session, user_id=user_id)
        grade = round(100 * sum(known.get(c, 0.0) for c in concepts) / len(concepts), 2)
        pending = stored.pending_score(session, link.id)
        if pending is None:
            stored.add_score(session, link_id=link.id, score=grade)
        else:
            pending.score, pending.created_at = grade, utcnow()
        queued += 1
    session.flush()
    return queued


@dataclass(frozen=True)
class PassbackReport:
    sent: int
    failed: int
    error: str = ""


def send_grades(
    settings: Settings, database: Database, *, now: datetime | None = None
) -> PassbackReport:
    """Send the pending grades that are due; a refused one waits for its backoff."""
    now = now or utcnow()
    tool = tool_config(settings)
    sent = failed = 0
    error = ""
    with database.session() as session:
        for score, link in stored.due_scores(session, now=now):
            try:
                registration = tool.find_registration_by_params(link.issuer, link.client_id)
                ags = AssignmentsGradesService(ServiceConnector(registration), link.ags)  # type: ignore[arg-type]
                grade = (
                    Grade()
                    .set_score_given(score.score)
                    .set_score_maximum(100)
                    .set_timestamp(score.created_at.isoformat())
                    .set_activity_progress("InProgress")
                    .set_grading_progress("FullyGraded")
                    .set_user_id(link.subject)
                )
                ags.put_grade(grade)
                score.sent_at = now
                sent += 1
            except Exception as exc:  # the LMS refused or could not be reached
                score.attempts += 1
                score.last_error = f"{type(exc).__name__}: {str(exc)[:300]}"
                score.next_attempt_at = now + min(
                    timedelta(minutes=2 ** min(score.attempts, 20)), MAX_BACKOFF
                )
                failed += 1
                error = score.last_error
    if failed:
        log.warning("LTI: %d grade(s) not taken by the LMS: %s", failed, error)
    return PassbackReport(sent, failed, error)


async def send_periodically(settings: Settings, database: Database) -> None:
    while True:
        await asyncio.sleep(settings.lti.flush_seconds)
        try:
            await anyio.to_thread.run_sync(lambda: send_grades(settings, database))
        except Exception:
            log.exception("LTI grade passback failed; the grades stay queued")
