"""A course's cohort as CSV: one row per learner and concept."""

from __future__ import annotations

import csv
import io
from collections import Counter

from sqlalchemy.orm import Session

from tutorgraph.instructor.alerts import alerts
from tutorgraph.instructor.dashboard import mastery_rows
from tutorgraph.instructor.scope import Scope
from tutorgraph.learner_model.alerts import ALERT_TEXT_CHARS
from tutorgraph.store import cohort


def export_csv(session: Session, *, scope: Scope) -> str:
    """One row per learner and concept of the course: mastery, attempts, open alerts."""
    names = cohort.learner_names(session, scope.learner_ids)
    open_alerts = Counter((a.learner, a.concept) for a in alerts(session, scope=scope))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        ["learner_id", "learner", "concept", "concept_title", "mastery", "bkt", "answers",
         "open_alerts", "updated_at"]
    )  # fmt: skip
    rows = sorted(mastery_rows(session, scope), key=lambda r: (r.user_id, r.concept))
    for row in rows:
        name = names.get(row.user_id, "")
        writer.writerow(
            [row.user_id, _cell(name), row.concept, scope.concept_title(row.concept),
             f"{row.wma:.4f}", f"{row.bkt:.4f}", row.attempts,
             open_alerts[(name, row.concept)], row.updated_at.isoformat()]
        )  # fmt: skip
    return out.getvalue()


def _cell(text: str) -> str:
    """No spreadsheet formula from a learner's name (CSV injection)."""
    text = text[:ALERT_TEXT_CHARS]
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
