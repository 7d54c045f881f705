"""the learning loop: evaluation events are the path planner's outbox (planned_at), its next
steps, one FSRS review card per learner and concept, course enrollments (the cohort an
instructor sees), alerts that keep the answer and who handled them, the xAPI outbox, and LTI 1.3
(launch state, platform links, grades going back)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25 03:00:00

Events stored before this revision are marked planned: their learners have moved on, and a
next step planned from an old answer would point them backwards.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("evaluation_events") as batch:
        batch.add_column(sa.Column("planned_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_index(batch.f("ix_evaluation_events_planned_at"), ["planned_at"])
    op.execute("UPDATE evaluation_events SET planned_at = created_at")
    op.create_table(
        "next_steps",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("decision", sa.String(length=20), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("title", sa.String(length=300), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("target", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("taken_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["evaluation_events.id"],
            name=op.f("fk_next_steps_event_id_evaluation_events"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_next_steps_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_next_steps")),
        sa.UniqueConstraint("event_id", name=op.f("uq_next_steps_event_id")),
    )
    op.create_index("ix_next_steps_user_taken", "next_steps", ["user_id", "taken_at", "id"])
    op.create_table(
        "concept_reviews",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("concept", sa.String(length=200), nullable=False),
        sa.Column("card", sa.JSON(), nullable=False),
        sa.Column("due", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reviews", sa.Integer(), nullable=False),
        sa.Column("lapses", sa.Integer(), nullable=False),
        sa.Column("last_rating", sa.Integer(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_concept_reviews_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_concept_reviews")),
        sa.UniqueConstraint("user_id", "concept", name=op.f("uq_concept_reviews_user_id")),
    )
    op.create_index(op.f("ix_concept_reviews_user_id"), "concept_reviews", ["user_id"])
    op.create_index(op.f("ix_concept_reviews_due"), "concept_reviews", ["due"])
    op.create_table(
        "course_enrollments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("learning_path_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["learning_path_id"],
            ["learning_paths.id"],
            name=op.f("fk_course_enrollments_learning_path_id_learning_paths"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_course_enrollments_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_course_enrollments")),
        sa.UniqueConstraint(
            "learning_path_id", "user_id", name=op.f("uq_course_enrollments_learning_path_id")
        ),
    )
    op.create_index(op.f("ix_course_enrollments_user_id"), "course_enrollments", ["user_id"])
    # members who joined by share link are the course's learners
    op.execute(
        "INSERT INTO course_enrollments (learning_path_id, user_id, role, created_at) "
        "SELECT learning_path_id, user_id, 'learner', created_at FROM course_shares"
    )
    op.create_table(
        "xapi_statements",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("verb", sa.String(length=20), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_xapi_statements_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_xapi_statements")),
    )
    op.create_index(op.f("ix_xapi_statements_user_id"), "xapi_statements", ["user_id"])
    op.create_index("ix_xapi_statements_pending", "xapi_statements", ["sent_at", "next_attempt_at"])
    op.create_table(
        "lti_cache",
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("value", sa.JSON(), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_lti_cache")),
    )
    op.create_index(op.f("ix_lti_cache_expires_at"), "lti_cache", ["expires_at"])
    op.create_table(
        "lti_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("issuer", sa.String(length=255), nullable=False),
        sa.Column("client_id", sa.String(length=255), nullable=False),
        sa.Column("deployment_id", sa.String(length=255), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("resource_link_id", sa.String(length=255), nullable=False),
        sa.Column("course_slug", sa.String(length=200), nullable=False),
        sa.Column("ags", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_lti_links_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_links")),
        sa.UniqueConstraint(
            "issuer", "client_id", "subject", "resource_link_id", name=op.f("uq_lti_links_issuer")
        ),
    )
    op.create_index(op.f("ix_lti_links_user_id"), "lti_links", ["user_id"])
    op.create_table(
        "lti_scores",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("link_id", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["link_id"],
            ["lti_links.id"],
            name=op.f("fk_lti_scores_link_id_lti_links"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lti_scores")),
    )
    op.create_index(op.f("ix_lti_scores_link_id"), "lti_scores", ["link_id"])
    op.create_index(op.f("ix_lti_scores_sent_at"), "lti_scores", ["sent_at"])
    with op.batch_alter_table("instructor_alerts") as batch:
        batch.add_column(sa.Column("answer", sa.Text(), server_default="", nullable=False))
        batch.add_column(sa.Column("handled_by", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            batch.f("fk_instructor_alerts_handled_by_users"),
            "users",
            ["handled_by"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    with op.batch_alter_table("instructor_alerts") as batch:
        batch.drop_constraint(batch.f("fk_instructor_alerts_handled_by_users"), type_="foreignkey")
        batch.drop_column("handled_by")
        batch.drop_column("answer")
    op.drop_table("lti_scores")
    op.drop_table("lti_links")
    op.drop_table("lti_cache")
    op.drop_table("xapi_statements")
    op.drop_table("course_enrollments")
    op.drop_table("concept_reviews")
    op.drop_table("next_steps")
    with op.batch_alter_table("evaluation_events") as batch:
        batch.drop_index(batch.f("ix_evaluation_events_planned_at"))
        batch.drop_column("planned_at")
