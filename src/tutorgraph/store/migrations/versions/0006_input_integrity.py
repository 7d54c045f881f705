"""input integrity: quiz cards count once per learner and only once shown; assistant replies
are stored as they stream (marked interrupted until complete)

Revision ID: 0006
Revises: 0004
Create Date: 2026-11-23 21:20:00
"""

from __future__ import annotations

import json
import re
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_QUIZ = re.compile(r"<quiz>(.*?)</quiz>", re.DOTALL)
_WHEN = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "tutor_quiz_cards",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("lesson_id", sa.Integer(), nullable=False),
        sa.Column("quiz_id", sa.String(length=200), nullable=False),
        sa.Column("shown_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("counted_index", sa.Integer(), nullable=True),
        sa.Column("counted_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["lesson_id"],
            ["lessons.id"],
            name=op.f("fk_tutor_quiz_cards_lesson_id_lessons"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_tutor_quiz_cards_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tutor_quiz_cards")),
        sa.UniqueConstraint(
            "user_id", "lesson_id", "quiz_id", name=op.f("uq_tutor_quiz_cards_user_id")
        ),
    )
    for table in ("chat_messages", "exploration_messages"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(
                sa.Column("interrupted", sa.Boolean(), server_default=sa.false(), nullable=False)
            )
    _backfill_cards()


def _backfill_cards() -> None:
    """Cards already shown (in stored tutor replies) or answered stay shown, and a card already
    answered keeps its first answer as the one that counted."""
    bind = op.get_bind()
    cards: dict[tuple[int, int, str], dict[str, Any]] = {}
    shown = bind.execute(
        sa.text(
            "SELECT user_id, lesson_id, content, created_at FROM chat_messages "
            "WHERE role = 'assistant' AND content LIKE '%<quiz>%' ORDER BY id"
        ).columns(created_at=_WHEN)  # typed, so SQLite's stored text comes back as datetimes
    )
    for user_id, lesson_id, content, created_at in shown:
        for body in _QUIZ.findall(content):
            try:
                quiz_id = json.loads(body).get("id")
            except (ValueError, AttributeError):
                continue
            if isinstance(quiz_id, str) and quiz_id:
                key = (user_id, lesson_id, quiz_id[:200])
                cards.setdefault(key, {"shown_at": created_at, "index": None, "at": None})
    answered = bind.execute(
        sa.text(
            "SELECT a.user_id, s.lesson_id, a.quiz_id, a.selected_index, a.created_at "
            "FROM tutor_quiz_answers a JOIN tutor_sessions s ON s.id = a.session_id "
            "ORDER BY a.created_at, a.id"
        ).columns(created_at=_WHEN)
    )
    for user_id, lesson_id, quiz_id, index, created_at in answered:
        card = cards.setdefault(
            (user_id, lesson_id, quiz_id), {"shown_at": created_at, "index": None, "at": None}
        )
        if card["at"] is None:
            card["index"], card["at"] = index, created_at
    table = sa.table(
        "tutor_quiz_cards",
        sa.column("user_id", sa.Integer()),
        sa.column("lesson_id", sa.Integer()),
        sa.column("quiz_id", sa.String()),
        sa.column("shown_at", sa.DateTime(timezone=True)),
        sa.column("counted_index", sa.Integer()),
        sa.column("counted_at", sa.DateTime(timezone=True)),
    )
    rows = [
        {
            "user_id": user_id,
            "lesson_id": lesson_id,
            "quiz_id": quiz_id,
            "shown_at": card["shown_at"],
            "counted_index": card["index"],
            "counted_at": card["at"],
        }
        for (user_id, lesson_id, quiz_id), card in cards.items()
    ]
    if rows:
        op.bulk_insert(table, rows)


def downgrade() -> None:
    for table in ("exploration_messages", "chat_messages"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("interrupted")
    op.drop_table("tutor_quiz_cards")
