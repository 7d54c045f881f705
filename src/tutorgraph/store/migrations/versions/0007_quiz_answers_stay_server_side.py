"""quiz answers stay server-side: a card the tutor wrote is kept whole in tutor_quiz_cards (also
in explore chats, without a lesson); stored replies keep only each card's public form; a quiz
answer keeps the learner's "why"

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24 21:00:00

Stored replies are rewritten: every `<quiz>` block loses `correct_index` and `explanation`. A
lesson's own card (same id, question and options) keeps its id; any other card gets an id of
its own and its row here. Downgrading keeps the rewritten replies (the answers are not put back
into them) and drops the cards of explore chats.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_QUIZ = re.compile(r"<quiz>(.*?)</quiz>", re.DOTALL)


def upgrade() -> None:
    with op.batch_alter_table("tutor_quiz_cards") as batch:
        batch.alter_column("lesson_id", existing_type=sa.Integer(), nullable=True)
        batch.add_column(sa.Column("session_id", sa.String(length=36), nullable=True))
        batch.add_column(sa.Column("card", sa.JSON(), nullable=True))
        batch.create_index(batch.f("ix_tutor_quiz_cards_session_id"), ["session_id"])
    with op.batch_alter_table("tutor_quiz_answers") as batch:
        batch.add_column(sa.Column("why", sa.Text(), nullable=True))
    _strip_stored_cards()


def _strip_stored_cards() -> None:
    bind = op.get_bind()
    quizzes: dict[int, dict[str, dict[str, Any]]] = {}
    for lesson_id, raw in bind.execute(sa.text("SELECT id, quiz FROM lessons")):
        items = json.loads(raw) if isinstance(raw, str) else raw
        quizzes[lesson_id] = {
            str(item["id"]): item for item in items or [] if isinstance(item, dict) and "id" in item
        }
    cards: list[dict[str, Any]] = []
    for table, lesson_column in (("chat_messages", "lesson_id"), ("exploration_messages", "NULL")):
        rows = bind.execute(
            sa.text(
                f"SELECT id, user_id, {lesson_column}, session_id, content FROM {table} "
                "WHERE role = 'assistant' AND content LIKE '%<quiz>%'"
            )
        ).all()
        for message_id, user_id, lesson_id, chat_id, content in rows:
            where = _Where(user_id, lesson_id, chat_id, quizzes.get(lesson_id, {}), cards)
            bind.execute(
                sa.text(f"UPDATE {table} SET content = :content WHERE id = :id"),
                {"content": _QUIZ.sub(where.public, content), "id": message_id},
            )
    cards_table = sa.table(
        "tutor_quiz_cards",
        sa.column("user_id", sa.Integer()),
        sa.column("lesson_id", sa.Integer()),
        sa.column("quiz_id", sa.String()),
        sa.column("session_id", sa.String()),
        sa.column("card", sa.JSON()),
        sa.column("shown_at", sa.DateTime(timezone=True)),
    )
    if cards:
        op.bulk_insert(cards_table, cards)


class _Where:
    """One stored reply's conversation, and the cards found so far. (Not a dataclass: alembic
    loads this file without registering it as a module, which dataclasses need.)"""

    def __init__(
        self,
        user_id: int,
        lesson_id: int | None,
        chat_id: str,
        lesson_quiz: dict[str, dict[str, Any]],
        cards: list[dict[str, Any]],
    ) -> None:
        self.user_id = user_id
        self.lesson_id = lesson_id
        self.chat_id = chat_id
        self.lesson_quiz = lesson_quiz
        self.cards = cards

    def public(self, match: re.Match[str]) -> str:
        try:
            block = json.loads(match.group(1))
            question, options = str(block["question"]), [str(o) for o in block["options"]]
            correct = int(block["correct_index"])
        except (ValueError, KeyError, TypeError, AttributeError):
            return ""  # not a card the chat could show; what it holds may be the answer
        own = self.lesson_quiz.get(str(block.get("id", "")))
        if own and own.get("question") == question and own.get("options") == options:
            card_id = str(own["id"])
        else:
            card_id = f"chat-{uuid.uuid4().hex[:16]}"
            card = {
                "id": card_id,
                "question": question,
                "options": options,
                "correct_index": correct,
                "explanation": str(block.get("explanation", "")),
                "reference_answer": "",
                "concept": str(block.get("concept", "")),
            }
            self.cards.append(
                {
                    "user_id": self.user_id,
                    "lesson_id": self.lesson_id,
                    "quiz_id": card_id,
                    "session_id": self.chat_id,
                    "card": card,
                    "shown_at": datetime.now(UTC),
                }
            )
        shown = {"id": card_id, "question": question, "options": options}
        return f"<quiz>{json.dumps(shown, ensure_ascii=False)}</quiz>"


def downgrade() -> None:
    op.execute("DELETE FROM tutor_quiz_cards WHERE lesson_id IS NULL")
    with op.batch_alter_table("tutor_quiz_answers") as batch:
        batch.drop_column("why")
    with op.batch_alter_table("tutor_quiz_cards") as batch:
        batch.drop_index(batch.f("ix_tutor_quiz_cards_session_id"))
        batch.drop_column("card")
        batch.drop_column("session_id")
        batch.alter_column("lesson_id", existing_type=sa.Integer(), nullable=False)
