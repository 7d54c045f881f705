"""The instructor's view of a course's cohort: mastery per concept, common misconceptions with
example answers, open alerts, and a CSV export.

Scope is the privacy rule, decided in one place (`scope.Scope`): an instructor sees a learner's
data only for a course they teach (an `instructor` enrollment; admins teach every course; its
owner, the author who published it, sees it too whatever their role), only for learners enrolled
in it, and only on the concepts its lessons teach. A learner enrolled in
two courses is seen by each course's instructors on that course's concepts alone."""

from __future__ import annotations

from tutorgraph.instructor.alerts import AlertView, alerts, handle_alert, visible_alerts
from tutorgraph.instructor.dashboard import (
    BUCKETS,
    EXAMPLE_CHARS,
    EXAMPLES,
    TOP_MISCONCEPTIONS,
    ConceptCohort,
    Dashboard,
    Example,
    MisconceptionCohort,
    dashboard,
)
from tutorgraph.instructor.enrollment import assign_instructor, join_as_learner
from tutorgraph.instructor.export import export_csv
from tutorgraph.instructor.scope import Scope, courses_seen, scope_of, scopes
from tutorgraph.store.cohort import enroll, taught_courses

__all__ = [
    "BUCKETS",
    "EXAMPLES",
    "EXAMPLE_CHARS",
    "TOP_MISCONCEPTIONS",
    "AlertView",
    "ConceptCohort",
    "Dashboard",
    "Example",
    "MisconceptionCohort",
    "Scope",
    "alerts",
    "assign_instructor",
    "courses_seen",
    "dashboard",
    "enroll",
    "export_csv",
    "handle_alert",
    "join_as_learner",
    "scope_of",
    "scopes",
    "taught_courses",
    "visible_alerts",
]
