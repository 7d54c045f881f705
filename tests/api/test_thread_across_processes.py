"""Two server processes on one PostgreSQL database advance a checkpoint thread one request at a
time. Before the advisory lock, each process ordered only its own requests: the same answer sent
to both at once was taken by both, each resuming the same checkpoint."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import REPO_CONTENT, make_settings
from tutorgraph_bench.load import running_servers

PASSWORD = "a long two-process password"
EACH = 3  # copies of the answer sent to each process at once


async def _answer_on_both(urls: list[str]) -> tuple[list[httpx.Response], dict[str, Any]]:
    async with httpx.AsyncClient(timeout=120) as http:
        account = {"email": "both@example.org", "password": PASSWORD, "name": "Both"}
        assert (await http.post(f"{urls[0]}/api/v1/auth/register", json=account)).status_code == 201
        login = await http.post(
            f"{urls[0]}/api/v1/auth/login", json={"email": account["email"], "password": PASSWORD}
        )
        headers = {"Authorization": f"Bearer {login.json()['access_token']}"}
        started = await http.post(
            f"{urls[0]}/api/v1/assessments",
            json={"domain": "machine-learning", "target_level": "junior"},
            headers=headers,
        )
        assert started.status_code == 201, started.text
        assessment = started.json()
        body = {
            "answer": "I don't know.",
            "question_id": assessment["interrupt"]["question"]["id"],
        }
        path = f"/api/v1/assessments/{assessment['id']}/answers"
        answers = await asyncio.gather(
            *(
                http.post(f"{url}{path}", json=body, headers=headers)
                for _ in range(EACH)
                for url in urls
            )
        )
        after = await http.get(f"{urls[1]}/api/v1/assessments/{assessment['id']}", headers=headers)
    return answers, after.json()


@pytest.mark.timeout(300)
def test_one_answer_sent_to_two_processes_at_once_advances_the_assessment_once(
    tmp_path: Path,
) -> None:
    settings = make_settings(tmp_path, "postgres")  # skips without PostgreSQL
    with running_servers(
        count=2,
        database_url=settings.database_url,
        workdir=tmp_path,
        content_dir=REPO_CONTENT,
    ) as urls:
        answers, after = asyncio.run(_answer_on_both(urls))
    statuses = sorted(response.status_code for response in answers)
    assert statuses == [200] + [409] * (2 * EACH - 1), [r.text for r in answers]
    assert after["interrupt"]["total_questions"] == 2  # the first answered once, the next waits
