"""xAPI: the statements pass a real LRS's validator (Learning Locker's `@learninglocker/
xapi-validation`, from the npm registry), and the queue loses none when the LRS fails."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from tests.conftest import make_settings, register_and_login
from tutorgraph.cli.seed import run_seed
from tutorgraph.knowledge import get_domain
from tutorgraph.learning import xapi
from tutorgraph.server import create_app
from tutorgraph.settings import Settings, XapiSettings
from tutorgraph.store import migrate
from tutorgraph.store.db import Database
from tutorgraph.store.models import Lesson, XapiStatement, utcnow

VALIDATOR = "@learninglocker/xapi-validation@3.0.0"
VALIDATE_JS = """
const validate = require('@learninglocker/xapi-validation').default;
const statements = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const found = statements.map(
  (s) => validate(s).map((w) => ({path: w.path, name: w.name, data: w.data})));
process.stdout.write(JSON.stringify(found));
"""
SECRET = "lrs-secret-123"


@pytest.fixture(scope="module")
def validator(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Learning Locker's statement validator, installed from the npm registry."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs node and npm for the xAPI validator")
        pytest.skip("no node/npm here: the xAPI statement validator is an npm package")
    root = tmp_path_factory.mktemp("xapi-validator")
    subprocess.run(
        [npm, "install", "--prefix", str(root), "--no-audit", "--no-fund", "--silent", VALIDATOR],
        check=True,
        timeout=300,
        capture_output=True,
    )
    (root / "validate.js").write_text(VALIDATE_JS, encoding="utf-8")
    return root


def warnings(validator: Path, statements: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    done = subprocess.run(
        ["node", str(validator / "validate.js")],
        input=json.dumps(statements),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        cwd=validator,
    )
    found: list[list[dict[str, Any]]] = json.loads(done.stdout)
    return found


class FakeLRS:
    """An LRS on a real socket: refuses the first `failures` POSTs with 503, then stores."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.stored: dict[str, dict[str, Any]] = {}
        self.auth: list[str] = []
        lrs = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                lrs.auth.append(self.headers.get("Authorization", ""))
                if self.path != "/xapi/statements" or not self.headers.get(
                    "X-Experience-API-Version"
                ):
                    self.send_response(400)
                elif lrs.failures > 0:
                    lrs.failures -= 1
                    self.send_response(503)
                elif any(s["id"] in lrs.stored for s in body):
                    self.send_response(409)
                else:
                    lrs.stored.update({s["id"]: s for s in body})
                    self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/xapi"

    def __enter__(self) -> FakeLRS:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def lrs() -> Iterator[FakeLRS]:
    with FakeLRS(failures=1) as server:
        yield server


def seeded_settings(tmp_path: Path, **xapi_values: object) -> Settings:
    settings = make_settings(tmp_path, content_dir=Path(__file__).resolve().parents[2] / "content")
    return settings.model_copy(update={"xapi": XapiSettings(**xapi_values)})  # type: ignore[arg-type]


def learn_and_answer(client: TestClient, settings: Settings) -> None:
    """Three right answers (the third masters the concept: 50%, 75%, 87.5%), one wrong, a lesson
    completed."""
    run_seed(settings)
    headers = register_and_login(client)
    topic = get_domain("python").topic("python-data-model")
    round_ = client.post(
        "/api/v1/practice/rounds",
        json={"domain": "python", "topic": topic.id},
        headers=headers,
    ).json()
    for answer in ("right", "right", "right", "no idea"):
        current = client.get(f"/api/v1/practice/rounds/{round_['id']}", headers=headers).json()
        text = current["current"]["text"]
        reference = next(q.reference_answer for q in topic.questions if q.text == text)
        client.post(
            f"/api/v1/practice/rounds/{round_['id']}/answers",
            json={"answer": reference if answer == "right" else answer},
            headers=headers,
        )
    database = Database(settings)
    with database.session() as session:
        lesson = session.scalars(select(Lesson).where(Lesson.slug == "python-data-model")).one()
    database.dispose()
    done = client.put(
        f"/api/v1/lessons/{lesson.id}/progress", json={"completed": True}, headers=headers
    )
    assert done.status_code == 200


def test_statements_pass_a_real_lrs_validator(tmp_path: Path, validator: Path) -> None:
    settings = seeded_settings(tmp_path, base_url="https://learn.example.org")
    migrate.upgrade(settings)
    with TestClient(create_app(settings)) as client:
        learn_and_answer(client, settings)
    database = Database(settings)
    with database.session() as session:
        rows = list(session.scalars(select(XapiStatement).order_by(XapiStatement.created_at)))
        statements = [xapi.compose(row, settings.xapi) for row in rows]
    database.dispose()
    verbs = [s["verb"]["display"]["en-US"] for s in statements]
    assert verbs.count("answered") == 4 and verbs.count("mastered") == 1
    assert verbs.count("completed") == 1
    assert warnings(validator, statements) == [[] for _ in statements]
    answered = next(s for s in statements if s["verb"]["id"].endswith("answered"))
    assert answered["actor"]["account"] == {"homePage": "https://learn.example.org", "name": "1"}
    assert "mbox" not in answered["actor"]  # no email address leaves the platform
    # the validator is real: a broken statement is caught
    broken = {**answered, "result": {"score": {"scaled": 1.5}}}
    assert warnings(validator, [broken])[0][0]["path"][-1] == "scaled"


def test_the_queue_loses_nothing_when_the_lrs_fails(
    tmp_path: Path, lrs: FakeLRS, caplog: pytest.LogCaptureFixture
) -> None:
    settings = seeded_settings(
        tmp_path, endpoint=lrs.endpoint, username="tutorgraph", password=SECRET
    )
    migrate.upgrade(settings)
    with TestClient(create_app(settings)) as client:
        learn_and_answer(client, settings)
    database = Database(settings)
    queued = xapi.pending_count(database)
    assert queued == 6

    first = xapi.flush(database, settings.xapi)  # the LRS answers 503
    assert (first.sent, first.failed, first.pending) == (0, 6, 6) and "503" in first.error
    assert xapi.flush(database, settings.xapi).sent == 0  # backing off: not due yet
    later = utcnow() + timedelta(minutes=3)
    second = xapi.flush(database, settings.xapi, now=later)
    assert (second.sent, second.pending) == (6, 0)
    assert len(lrs.stored) == 6
    expected = "Basic " + base64.b64encode(f"tutorgraph:{SECRET}".encode()).decode()
    assert set(lrs.auth) == {expected}
    assert SECRET not in caplog.text and SECRET not in first.error
    with database.session() as session:
        rows = session.scalars(select(XapiStatement)).all()
        assert all(row.sent_at is not None for row in rows)
        assert {row.attempts for row in rows} == {1}
    database.dispose()


def test_a_statement_the_lrs_already_has_counts_as_sent(tmp_path: Path) -> None:
    with FakeLRS(failures=0) as lrs:
        settings = seeded_settings(tmp_path, endpoint=lrs.endpoint)
        migrate.upgrade(settings)
        with TestClient(create_app(settings)) as client:
            learn_and_answer(client, settings)
        database = Database(settings)
        assert xapi.flush(database, settings.xapi).sent == 6
        with database.session() as session:  # a crash lost the "sent" mark: sent again
            for row in session.scalars(select(XapiStatement)):
                row.sent_at = None
        again = xapi.flush(database, settings.xapi)
        assert (again.sent, again.pending) == (6, 0) and len(lrs.stored) == 6
        database.dispose()
