"""A process that runs an assessment on the durable SQLite checkpointer and, with `--kill-at N`,
kills itself (SIGKILL, no cleanup) when this process asks the model for its Nth question: after the
answer before it was graded and the knowledge graph updated. Every answer the evaluator is asked
about is appended to `graded.log`, so a test can tell what was graded again.

    python -m tests.assessment.crash_child DATA_DIR start|answer|show [--kill-at N] [TEXT]
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from tests.crashing import KillingEngine, durable_store, parse_child_args
from tutorgraph.assessment.agents import EVALUATION_AGENT, QUESTION_AGENT
from tutorgraph.assessment.service import AssessmentService


class Killing(KillingEngine):
    """Dies asking for the Nth question; logs every answer the evaluator was asked about."""

    def __init__(self, log: Path, kill_at: int | None) -> None:
        super().__init__(QUESTION_AGENT, kill_at)
        self.log = log

    def record(self, agent: str, inputs: Any, out: Any) -> None:
        if agent == EVALUATION_AGENT:
            with self.log.open("a") as handle:
                handle.write(inputs.answer + "\n")


async def main(data: Path, command: str, kill_at: int | None, text: str) -> None:
    model = Killing(data / "graded.log", kill_at)
    async with durable_store(data) as (database, checkpointer):
        service = AssessmentService(
            database=database,
            checkpointer=checkpointer,
            model=model,  # type: ignore[arg-type]
        )
        if command == "start":
            view = await service.start(user_id=None, domain="python", target_level="mid")
            (data / "assessment_id").write_text(view.id)
        else:
            assessment_id = (data / "assessment_id").read_text()
            if command == "answer":
                await service.answer(assessment_id=assessment_id, user_id=None, answer=text)
            view = await service.get(assessment_id=assessment_id, user_id=None)
        print(view.model_dump_json())


if __name__ == "__main__":
    asyncio.run(main(*parse_child_args(sys.argv[1:])))
