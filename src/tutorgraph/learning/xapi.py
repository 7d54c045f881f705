"""xAPI statements for a school's Learning Record Store: answered (every graded answer),
mastered (a concept's mastery crossing MASTERED_MASTERY) and completed (a lesson marked
complete; queued by `store.courses.set_progress`).

Statements are queued in the `xapi_statements` outbox inside the transaction of what they
record, and sent in batches while `xapi.endpoint` is set. A batch the LRS refuses or cannot be
reached for stays queued and is tried again later (exponential backoff up to MAX_BACKOFF); a
statement leaves the queue only once the LRS has it (200/204, or 409: it had it already, the
statement id being derived from what it records). Nothing is ever dropped.

Actors are accounts on this platform (`base_url`, user id), never email addresses."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import anyio.to_thread
import httpx
from sqlalchemy.orm import Session

from tutorgraph.knowledge import concept_title, find_topic
from tutorgraph.settings import XapiSettings
from tutorgraph.store import xapi_outbox as outbox
from tutorgraph.store.db import Database
from tutorgraph.store.models import EvaluationEvent, XapiStatement, utcnow
from tutorgraph.store.xapi_outbox import enqueue

log = logging.getLogger(__name__)

VERSION = "1.0.3"
VERBS = {
    "answered": "http://adlnet.gov/expapi/verbs/answered",
    "mastered": "http://adlnet.gov/expapi/verbs/mastered",
    "completed": "http://adlnet.gov/expapi/verbs/completed",
}
ACTIVITY_TYPES = {
    "question": "http://adlnet.gov/expapi/activities/cmi.interaction",
    "concept": "http://adlnet.gov/expapi/activities/objective",
    "lesson": "http://adlnet.gov/expapi/activities/lesson",
}
PASS_SCORE = 0.6  # the evaluator's ALTERNATE threshold: `result.success`
MASTERED_MASTERY = 0.8
BATCH = 50
MAX_BACKOFF = timedelta(hours=6)
TEXT_CHARS = 1000


# ---- what is queued ---------------------------------------------------------------------------


def queue_evaluation(session: Session, event: EvaluationEvent) -> None:
    """Queue `answered` for a graded answer, and `mastered` when it took the concept's mastery
    across MASTERED_MASTERY."""
    if event.user_id is None or not event.concept:
        return
    payload = event.payload
    source = payload.get("source") or {}
    found = find_topic(event.concept)
    domain = str(source.get("domain") or (found[0].name if found else ""))
    at = event.created_at.isoformat()
    enqueue(
        session,
        user_id=event.user_id,
        verb="answered",
        key=f"event:{event.id}",
        data={
            "concept": event.concept,
            "domain": domain,
            "question_id": source.get("question_source_id"),
            "question": str(payload.get("question") or "")[:TEXT_CHARS],
            "answer": str(payload.get("answer") or "")[:TEXT_CHARS],
            "score": event.score,
            "decision": event.decision,
            "source": str(source.get("kind") or "api"),
            "at": at,
        },
    )
    change = payload.get("mastery") or {}
    before = (change.get("before") or {}).get("wma")
    after = (change.get("after") or {}).get("wma")
    if before is not None and after is not None and before < MASTERED_MASTERY <= after:
        enqueue(
            session,
            user_id=event.user_id,
            verb="mastered",
            key=f"event:{event.id}",
            data={"concept": event.concept, "domain": domain, "mastery": after, "at": at},
        )


# ---- the statements --------------------------------------------------------------------------


def compose(row: XapiStatement, settings: XapiSettings) -> dict[str, Any]:
    """The xAPI 1.0.3 statement of a queued row."""
    base = settings.base_url.rstrip("/")
    data = row.data
    statement: dict[str, Any] = {
        "id": row.id,
        "actor": {"objectType": "Agent", "account": {"homePage": base, "name": str(row.user_id)}},
        "verb": {"id": VERBS[row.verb], "display": {"en-US": row.verb}},
        "timestamp": data["at"],
        "context": {"platform": "tutorgraph", "language": "en"},
    }
    if row.verb == "completed":
        statement["object"] = _activity(
            f"{base}/learn/{data['course']}/{data['lesson']}", "lesson", data["title"]
        )
        statement["result"] = {"completion": True}
        return statement
    title = concept_title(data["concept"])
    concept = _activity(_concept_iri(base, data), "concept", title)
    if row.verb == "mastered":
        statement["object"] = concept
        statement["result"] = {"success": True, "score": {"scaled": round(data["mastery"], 4)}}
        return statement
    question_iri = _concept_iri(base, data) + (
        f"/questions/{data['question_id']}" if data.get("question_id") else f"/answers/{row.id}"
    )
    question = _activity(
        question_iri, "question", data["question"] or concept_title(data["concept"])
    )
    question["definition"]["interactionType"] = "long-fill-in"
    statement["object"] = question
    result: dict[str, Any] = {
        "score": {"scaled": round(float(data["score"]), 4)},
        "success": float(data["score"]) >= PASS_SCORE,
    }
    if settings.include_responses and data.get("answer"):
        result["response"] = data["answer"]
    statement["result"] = result
    statement["context"]["contextActivities"] = {"parent": [concept]}
    statement["context"]["extensions"] = {
        f"{base}/xapi/extensions/decision": data["decision"],
        f"{base}/xapi/extensions/source": data["source"],
    }
    return statement


def _activity(iri: str, kind: str, name: str) -> dict[str, Any]:
    return {
        "objectType": "Activity",
        "id": iri,
        "definition": {"type": ACTIVITY_TYPES[kind], "name": {"en-US": name[:TEXT_CHARS]}},
    }


def _concept_iri(base: str, data: dict[str, Any]) -> str:
    return f"{base}/kb/{data.get('domain') or 'unknown'}/{data['concept']}"


# ---- sending ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FlushReport:
    sent: int
    failed: int  # statements of batches the LRS refused or could not be reached for
    pending: int  # still queued after this flush
    error: str = ""


def flush(
    database: Database,
    settings: XapiSettings,
    *,
    client: httpx.Client | None = None,
    now: datetime | None = None,
) -> FlushReport:
    """Send the queued statements that are due, a batch at a time, until the queue is empty or
    the LRS fails (then they wait for their backoff)."""
    if not settings.enabled:
        return FlushReport(0, 0, pending_count(database))
    now = now or utcnow()
    owned = client is None
    client = client or httpx.Client(timeout=10.0)
    sent = failed = 0
    error = ""
    try:
        while True:
            with database.session() as session:
                rows = outbox.due_statements(session, now=now, limit=BATCH)
                if not rows:
                    break
                problem = _post(client, settings, [compose(row, settings) for row in rows])
                for row in rows:
                    if problem is None:
                        row.sent_at = now
                    else:
                        row.attempts += 1
                        row.last_error = problem[:500]
                        row.next_attempt_at = now + min(
                            timedelta(minutes=2 ** min(row.attempts, 20)), MAX_BACKOFF
                        )
                if problem is not None:
                    failed, error = len(rows), problem
                    break
                sent += len(rows)
    finally:
        if owned:
            client.close()
    if error:
        log.warning("xAPI: the LRS did not take %d statement(s): %s", failed, error)
    return FlushReport(sent, failed, pending_count(database), error)


def _post(
    client: httpx.Client, settings: XapiSettings, statements: list[dict[str, Any]]
) -> str | None:
    """None when the LRS has them all; else what went wrong (the secret never appears)."""
    assert settings.endpoint is not None
    password = settings.password.get_secret_value() if settings.password else ""
    auth = httpx.BasicAuth(settings.username, password) if settings.username else None
    try:
        response = client.post(
            settings.endpoint.rstrip("/") + "/statements",
            json=statements,
            headers={"X-Experience-API-Version": VERSION},
            auth=auth if auth is not None else httpx.USE_CLIENT_DEFAULT,
        )
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__}: the LRS could not be reached"
    if response.status_code in (200, 204, 409):  # 409: it has these statement ids already
        return None
    return f"HTTP {response.status_code}: {response.text[:300]}"


def pending_count(database: Database) -> int:
    with database.session() as session:
        return outbox.unsent_count(session)


async def flush_periodically(database: Database, settings: XapiSettings) -> None:
    """Flush every `flush_seconds` while the server runs (only with an endpoint set)."""
    while True:
        await asyncio.sleep(settings.flush_seconds)
        try:
            await anyio.to_thread.run_sync(lambda: flush(database, settings))
        except Exception:
            log.exception("xAPI flush failed; the statements stay queued")
