"""A process that runs an interview on the durable SQLite checkpointer and, with `--kill-at N`,
kills itself (SIGKILL, no cleanup) during the Nth interviewer line a model is asked for. Every
line asked of the model is appended to `calls.log`, so a test can tell what was replayed.

    python -m tests.interview.crash_child DATA_DIR start|answer|show [--kill-at N] [TEXT]
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from tests.crashing import KillingEngine, durable_store, parse_child_args
from tests.interview.resumes import RESUME
from tutorgraph.interview.agents import INTERVIEWER_AGENT
from tutorgraph.interview.context import InterviewContext
from tutorgraph.interview.service import InterviewService


class Logged(KillingEngine):
    """Dies during the Nth interviewer line; logs every line the model was asked for."""

    def __init__(self, log: Path, kill_at: int | None) -> None:
        super().__init__(INTERVIEWER_AGENT, kill_at, after=True)
        self.log = log

    def record(self, agent: str, inputs: Any, out: Any) -> None:
        if agent == INTERVIEWER_AGENT:
            with self.log.open("a") as handle:
                handle.write(json.dumps({"kind": inputs.kind, "text": out.text}) + "\n")


async def main(data: Path, command: str, kill_at: int | None, text: str) -> None:
    model = Logged(data / "calls.log", kill_at)
    async with durable_store(data) as (database, checkpointer):
        service = InterviewService(
            database=database,
            checkpointer=checkpointer,
            context=InterviewContext.for_model(model),  # type: ignore[arg-type]
        )
        if command == "start":
            resume = await service.add_resume(user_id=None, text=RESUME)
            view = await service.start(user_id=None, resume_id=resume.id, role="Dev", level="mid")
            (data / "interview_id").write_text(view.id)
        else:
            interview_id = (data / "interview_id").read_text()
            if command == "answer":
                await service.answer(interview_id=interview_id, user_id=None, text=text)
            view = await service.get(interview_id=interview_id, user_id=None)
        print(view.model_dump_json())


if __name__ == "__main__":
    asyncio.run(main(*parse_child_args(sys.argv[1:])))
