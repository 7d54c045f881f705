"""the course constructor: build sessions (their LangGraph thread ids), uploaded files, the
images extracted from them, progress events a reloaded page replays, and the knowledge-base
domains published courses bring

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 05:47:45
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "constructor_sessions",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(length=300), nullable=False),
        sa.Column("phase", sa.String(length=30), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("pending_turn", sa.JSON(), nullable=True),
        sa.Column("course_slug", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_constructor_sessions_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_constructor_sessions")),
    )
    with op.batch_alter_table("constructor_sessions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_constructor_sessions_owner_id"), ["owner_id"], unique=False
        )

    op.create_table(
        "authored_domains",
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("learning_path_id", sa.Integer(), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["learning_path_id"],
            ["learning_paths.id"],
            name=op.f("fk_authored_domains_learning_path_id_learning_paths"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_authored_domains")),
        sa.UniqueConstraint("learning_path_id", name=op.f("uq_authored_domains_learning_path_id")),
    )
    op.create_table(
        "constructor_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.String(length=36), nullable=False),
        sa.Column("stage", sa.String(length=40), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["constructor_sessions.id"],
            name=op.f("fk_constructor_events_session_id_constructor_sessions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_constructor_events")),
    )
    with op.batch_alter_table("constructor_events", schema=None) as batch_op:
        batch_op.create_index("ix_constructor_events_session", ["session_id", "id"], unique=False)

    op.create_table(
        "constructor_images",
        sa.Column("session_id", sa.String(length=36), nullable=False),
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=300), nullable=False),
        sa.Column("media_type", sa.String(length=100), nullable=False),
        sa.Column("caption", sa.Text(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["constructor_sessions.id"],
            name=op.f("fk_constructor_images_session_id_constructor_sessions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("session_id", "id", name=op.f("pk_constructor_images")),
    )
    op.create_table(
        "constructor_uploads",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("session_id", sa.String(length=36), nullable=False),
        sa.Column("filename", sa.String(length=300), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("title", sa.String(length=300), nullable=False),
        sa.Column("words", sa.Integer(), nullable=False),
        sa.Column("pages", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["constructor_sessions.id"],
            name=op.f("fk_constructor_uploads_session_id_constructor_sessions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_constructor_uploads")),
        sa.UniqueConstraint("session_id", "sha256", name=op.f("uq_constructor_uploads_session_id")),
    )
    with op.batch_alter_table("constructor_uploads", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_constructor_uploads_session_id"), ["session_id"], unique=False
        )


def downgrade() -> None:

    with op.batch_alter_table("constructor_uploads", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_constructor_uploads_session_id"))

    op.drop_table("constructor_uploads")
    op.drop_table("constructor_images")
    with op.batch_alter_table("constructor_events", schema=None) as batch_op:
        batch_op.drop_index("ix_constructor_events_session")

    op.drop_table("constructor_events")
    op.drop_table("authored_domains")
    with op.batch_alter_table("constructor_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_constructor_sessions_owner_id"))

    op.drop_table("constructor_sessions")
