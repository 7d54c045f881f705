"""tutor quiz answers

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 08:27:15.215377
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tutor_quiz_answers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.String(length=36), nullable=False),
        sa.Column("quiz_id", sa.String(length=200), nullable=False),
        sa.Column("selected_index", sa.Integer(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["tutor_sessions.id"],
            name=op.f("fk_tutor_quiz_answers_session_id_tutor_sessions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_tutor_quiz_answers_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tutor_quiz_answers")),
        sa.UniqueConstraint("session_id", "quiz_id", name=op.f("uq_tutor_quiz_answers_session_id")),
    )


def downgrade() -> None:
    op.drop_table("tutor_quiz_answers")
