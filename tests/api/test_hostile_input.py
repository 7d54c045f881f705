"""Hostile input gets a clear 4xx, never a 500: integers past any row id, text that is not valid
Unicode (or holds NUL), unsafe email addresses, guessable passwords, scripted SVG uploads, a
forged X-Forwarded-For, and database files other local users could read."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import pkgutil
import stat
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import annotated_types
import httpx
import pydantic
import pytest
import uvicorn
from bs4 import BeautifulSoup
from fastapi import APIRouter
from fastapi.routing import APIRoute, APIWebSocketRoute
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from tests.api.test_security_input import start_round
from tests.conftest import make_settings, register_and_login, seeded_copy
from tests.interview.test_api import start as start_interview
from tests.tutor.conftest import lesson_id
from tutorgraph import web
from tutorgraph.api import routes
from tutorgraph.cli import app as cli_app
from tutorgraph.content.svg import UnsafeSvg, sanitize_svg
from tutorgraph.errors import InputError
from tutorgraph.server import create_app
from tutorgraph.settings import Settings
from tutorgraph.store import migrate, users
from tutorgraph.store.checkpoints import open_checkpointer
from tutorgraph.store.db import Database
from tutorgraph.store.models import ConstructorImage
from tutorgraph_bench.live_server import LiveServer

BIG = 2**70
PASSWORD = "correct horse"


def problem(response: httpx.Response, status: int = 422) -> str:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    detail: str = response.json()["detail"]
    return detail


# --- 1. every integer a request carries is a bounded id ----------------------------------------


def _routers() -> Iterator[APIRouter]:
    for package, path in ((routes.__name__, routes.__path__), (web.__name__, web.__path__)):
        for info in pkgutil.iter_modules(path):
            module = importlib.import_module(f"{package}.{info.name}")
            yield from (v for v in vars(module).values() if isinstance(v, APIRouter))


def _bounded(metadata: list[Any]) -> bool:
    return any(isinstance(m, annotated_types.Le | annotated_types.Lt) for m in metadata)


def _unbounded_ints(annotation: Any, metadata: list[Any], where: str) -> Iterator[str]:
    if typing.get_origin(annotation) is typing.Annotated:
        base, *more = typing.get_args(annotation)
        yield from _unbounded_ints(base, [*metadata, *more], where)
        return
    for kind in typing.get_args(annotation) or (annotation,):
        if typing.get_origin(kind) is typing.Annotated:
            yield from _unbounded_ints(kind, [], where)
        elif kind is int and not _bounded(metadata):
            yield where
        elif isinstance(kind, type) and issubclass(kind, pydantic.BaseModel):
            for name, field in kind.model_fields.items():
                yield from _unbounded_ints(field.annotation, field.metadata, f"{where}.{name}")
        elif typing.get_args(kind):
            yield from _unbounded_ints(kind, [], where)


def test_every_integer_a_request_carries_is_bounded() -> None:
    found = []
    for router in _routers():
        for route in router.routes:
            if not isinstance(route, APIRoute | APIWebSocketRoute):
                continue
            dependant = route.dependant
            params = [*dependant.path_params, *dependant.query_params, *dependant.body_params]
            params += [*dependant.header_params, *dependant.cookie_params]
            for sub in dependant.dependencies:
                params += [*sub.path_params, *sub.query_params, *sub.body_params]
            for param in params:
                where = f"{route.path} {param.name}"
                info = param.field_info
                found += _unbounded_ints(info.annotation, info.metadata, where)
    assert found == []


def test_ids_past_the_database_are_invalid_input_in_bodies_queries_and_forms(
    client: TestClient,
) -> None:
    headers = register_and_login(client)
    round_id = start_round(client, headers)
    take = client.post("/api/v1/me/next/take", json={"step_id": BIG}, headers=headers)
    assert "step_id" in problem(take)
    retry = client.post(
        f"/api/v1/practice/rounds/{round_id}/retry", json={"question_id": BIG}, headers=headers
    )
    assert "question_id" in problem(retry)
    html = {"Accept": "text/html", **headers}
    for response in (
        client.post("/next", data={"step_id": str(BIG)}, headers=html, follow_redirects=False),
        client.post(f"/quiz/{round_id}/retry", data={"question_id": str(BIG)}, headers=html),
        client.get(f"/quiz/{round_id}?explain={BIG}", headers=html),
    ):
        assert response.status_code == 422, response.text
        assert "text/html" in response.headers["content-type"]


def test_a_build_event_cursor_past_the_database_is_refused_or_ignored(
    client: TestClient,
) -> None:
    ann = register_and_login(client, "ann@example.org")
    sid = client.post("/api/v1/constructor/session/start", json={}, headers=ann).json()[
        "session_id"
    ]
    url = f"/api/v1/constructor/session/events/{sid}"
    assert "after" in problem(client.get(f"{url}?after={BIG}", headers=ann))
    for last in ("9" * 5000, "²", str(BIG)):  # not a cursor: the stream starts from `after`
        events = client.get(url, headers={**ann, "Last-Event-ID": last.encode("latin-1")})
        assert events.status_code == 200 and "event: end" in events.text


# --- 2. text that is not valid Unicode --------------------------------------------------------


def raw_json(document: dict[str, str], escape: str) -> str:
    """The document as JSON with TEXT replaced by `escape` as written (`\\ud800`)."""
    return json.dumps(document).replace("TEXT", escape)


def post_raw(client: TestClient, url: str, body: str | bytes, headers: dict[str, str]) -> Any:
    return client.post(url, content=body, headers={**headers, "Content-Type": "application/json"})


@pytest.mark.parametrize("text", ["\\ud800", "\\udfff tail", "\\u0000"])
def test_a_lone_surrogate_or_nul_in_an_answer_is_invalid_input(
    any_settings: Settings, text: str
) -> None:
    migrate.upgrade(any_settings)
    with TestClient(create_app(any_settings)) as client:
        headers = register_and_login(client)
        round_id = start_round(client, headers)
        answers = f"/api/v1/practice/rounds/{round_id}/answers"
        body = raw_json({"answer": "a closure keeps its variables TEXT"}, text)
        detail = problem(post_raw(client, answers, body, headers))
        assert detail.startswith("answer: the text holds") and "not valid text" in detail
        assessment = client.post(
            "/api/v1/assessments",
            json={"domain": "python", "target_level": "junior"},
            headers=headers,
        ).json()
        assess = f"/api/v1/assessments/{assessment['id']}/answers"
        assert problem(post_raw(client, assess, body, headers)).startswith("answer:")
        chat = raw_json({"message": "why TEXT?"}, text)  # a stream that once reset the socket
        assert problem(post_raw(client, "/api/v1/explore/chat", chat, headers)).startswith(
            "message:"
        )
        grade = raw_json({"question": "q?", "reference_answer": "r TEXT", "answer": "mine"}, text)
        assert problem(post_raw(client, "/api/v1/grade", grade, headers)).startswith(
            "reference_answer:"
        )
        fine = client.post(
            answers, json={"answer": "A closure keeps its variables."}, headers=headers
        )
        assert fine.status_code == 200, fine.text  # the question was still waiting


def test_a_body_that_is_not_utf8_is_invalid_input(client: TestClient) -> None:
    headers = register_and_login(client)
    round_id = start_round(client, headers)
    answers = f"/api/v1/practice/rounds/{round_id}/answers"
    for raw in (b'{"answer": "surrogate \xed\xa0\x80 bytes"}', b'{"answer": "latin-1 \xe9"}'):
        assert "not valid UTF-8" in problem(post_raw(client, answers, raw, headers))


def test_a_form_field_that_is_not_utf8_is_invalid_input(client: TestClient) -> None:
    headers = register_and_login(client)
    round_id = start_round(client, headers)
    html = {"Accept": "text/html", "Content-Type": "application/x-www-form-urlencoded"}
    for field in ("answer=a+closure+%ED%A0%80+keeps", "answer=a+closure+%00+keeps"):
        response = client.post(
            f"/quiz/{round_id}/answer", content=field, headers={**html, **headers}
        )
        assert response.status_code == 422
        alert = BeautifulSoup(response.text, "html.parser").find(attrs={"role": "alert"})
        assert alert is not None and "not valid" in alert.get_text()


def _frames_until(ws: Any, *kinds: str) -> list[dict[str, Any]]:
    frames = []
    while True:
        frame: dict[str, Any] = ws.receive_json()
        frames.append(frame)
        if frame["type"] in kinds:
            return frames


def test_websocket_messages_with_invalid_text_get_a_422_error_and_the_socket_stays(
    tmp_path: Path, seeded_data: Path
) -> None:
    settings = seeded_copy(tmp_path, seeded_data)
    with TestClient(create_app(settings)) as client:
        headers = register_and_login(client)
        token = headers["Authorization"].removeprefix("Bearer ")
        started = client.post(
            "/api/v1/tutor/session/start", json={"lesson_id": lesson_id(settings)}, headers=headers
        )
        session_id = started.json()["session_id"]
        with client.websocket_connect(f"/api/v1/tutor/session/ws/{session_id}") as ws:
            ws.send_json({"type": "auth", "token": token})
            _frames_until(ws, "done")
            ws.send_text('{"type": "message", "text": "why \\ud800?"}')
            error = ws.receive_json()
            assert error["type"] == "error" and error["status"] == 422
            assert error["message"].startswith("text: the text holds a lone UTF-16 surrogate")
            ws.send_json({"type": "message", "text": "Why divide by the square root of d_k?"})
            assert _frames_until(ws, "done")[-1]["session_id"] == session_id

        ann = register_and_login(client, "ann@example.org")
        interview = start_interview(client, ann)["id"]
        with client.websocket_connect(f"/api/v1/interviews/{interview}/ws") as ws:
            ws.send_json({"type": "auth", "token": ann["Authorization"].split()[1]})
            ws.send_text('{"type": "answer", "text": "I built \\udc00 things"}')
            error = ws.receive_json()
            assert error["type"] == "error" and error["detail"].startswith("text: ")
            ws.send_json({"type": "answer", "text": "Could you rephrase that?"})
            assert _frames_until(ws, "turn", "error")[-1]["type"] == "turn"


# --- 3. email addresses ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("email", "problem_found"),
    [
        ("u0@x.test\x00", "U+0000"),
        ("u1@example.org\u202e", "RIGHT-TO-LEFT OVERRIDE"),
        ("u2@exam\u200bple.org", "ZERO WIDTH SPACE"),
        ("not-an-email", "@-sign"),
    ],
)
def test_unsafe_email_addresses_are_refused(email: str, problem_found: str) -> None:
    with pytest.raises(InputError) as refused:
        users.validate_new_account(email=email, password=PASSWORD, name="U")
    assert refused.value.message.startswith("email: enter a valid email address")
    assert problem_found in refused.value.message


def test_registration_refuses_unsafe_emails_and_keeps_ordinary_ones(client: TestClient) -> None:
    def register(email: str) -> httpx.Response:
        body = {"email": email, "password": PASSWORD, "name": "U"}
        return client.post("/api/v1/auth/register", json=body)

    assert problem(register("u0@x.test\x00")).startswith("email:")
    assert "RIGHT-TO-LEFT OVERRIDE" in problem(register("u1@example.org\u202e"))
    for fine in ("ada@example.org", "Grace.Hopper@Example.org", "bo@b.co"):
        assert register(fine).status_code == 201


def test_cli_users_create_refuses_an_unsafe_email(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli_app, ["db", "upgrade"]).exit_code == 0
    args = ["users", "create", "--name", "Root", "--password", PASSWORD, "--email"]
    refused = runner.invoke(cli_app, [*args, "root@example.org\u202e"])
    assert isinstance(refused.exception, InputError)  # `main` prints it as one line
    assert "RIGHT-TO-LEFT OVERRIDE" in refused.exception.message
    assert runner.invoke(cli_app, [*args, "root@example.org"]).exit_code == 0


# --- 4. passwords ------------------------------------------------------------------------------


@pytest.mark.parametrize("password", ["aaaaaaaa", "Password1!", "qwerty2024", "abcd1234abcd"])
def test_guessable_passwords_are_refused_with_advice(client: TestClient, password: str) -> None:
    body = {"email": "grace.hopper@example.org", "password": password, "name": "Grace"}
    detail = problem(client.post("/api/v1/auth/register", json=body))
    assert detail.startswith("password:")
    assert "too easy to guess" in detail or "common" in detail


def test_the_strength_check_says_what_it_found_and_what_helps(client: TestClient) -> None:
    body = {"email": "grace.hopper@example.org", "password": "aaaaaaaa", "name": "Grace"}
    detail = problem(client.post("/api/v1/auth/register", json=body))
    assert detail.startswith("password: too easy to guess.")
    assert "Repeats" in detail and "Add another word" in detail
    token = register_and_login(client)
    change = client.post(
        "/api/v1/auth/password",
        json={"current_password": PASSWORD, "new_password": "Password1!"},
        headers=token,
    )
    assert problem(change).startswith("password: too easy to guess")


@pytest.mark.parametrize("password", ["tea and biscuits", "cobol forever and ever", "kj4#xLq9a"])
def test_passphrases_and_random_passwords_pass(client: TestClient, password: str) -> None:
    body = {"email": "grace.hopper@example.org", "password": password, "name": "Grace"}
    assert client.post("/api/v1/auth/register", json=body).status_code == 201


def test_cli_users_create_follows_the_strength_check(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli_app, ["db", "upgrade"]).exit_code == 0
    args = ["users", "create", "--name", "Root", "--email", "root@example.org", "--password"]
    refused = runner.invoke(cli_app, [*args, "Password1!"])
    assert isinstance(refused.exception, InputError)
    assert refused.exception.message.startswith("password: too easy to guess")


# --- 5. images from uploads --------------------------------------------------------------------

SCRIPTED_SVG = b"""<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     width="120" height="60" onload="alert('svg')">
  <script>alert(document.cookie)</script>
  <defs><linearGradient id="g"><stop offset="0" stop-color="teal"/></linearGradient></defs>
  <rect width="100" height="40" fill="url(#g)" onclick="steal()"/>
  <a xlink:href="javascript:alert(2)"><text x="4" y="20">Queue &amp; stack</text></a>
  <foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">
    <img src="x" onerror="alert(3)"/></div></foreignObject>
  <use xlink:href="https://evil.example/sprite.svg#icon"/>
  <set attributeName="href" to="javascript:alert(4)"/>
</svg>"""
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")


def test_an_svg_keeps_what_draws_and_loses_what_runs() -> None:
    clean = sanitize_svg(SCRIPTED_SVG).decode()
    for gone in ("script", "alert", "onload", "onclick", "foreignObject", "javascript", "evil"):
        assert gone not in clean, gone
    for kept in ('<linearGradient id="g">', 'fill="url(#g)"', "Queue &amp; stack", "<rect"):
        assert kept in clean, kept
    for unreadable in (b"<svg", b"<html><script>alert(1)</script></html>"):
        with pytest.raises(UnsafeSvg):
            sanitize_svg(unreadable)
    entities = b'<!DOCTYPE s [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>'
    with pytest.raises(UnsafeSvg):
        sanitize_svg(entities)


def test_uploaded_images_are_served_sanitized_and_sandboxed(
    client: TestClient, settings: Settings
) -> None:
    ann = register_and_login(client, "ann@example.org")
    sid = client.post("/api/v1/constructor/session/start", json={}, headers=ann).json()[
        "session_id"
    ]
    database = Database(settings)
    try:
        with database.session() as session:
            for image_id, media_type, data in (
                ("drawing", "image/svg+xml", SCRIPTED_SVG),
                ("photo", "image/png", PNG),
                ("scan", "image/tiff", b"II*\x00<html><script>alert(1)</script>"),
                ("broken", "image/svg+xml", b"<svg><script>alert(1)"),
            ):
                session.add(
                    ConstructorImage(
                        session_id=sid, id=image_id, name=image_id, media_type=media_type, data=data
                    )
                )
    finally:
        database.dispose()

    def get(image_id: str) -> httpx.Response:
        return client.get(f"/api/v1/constructor/images/{sid}/{image_id}", headers=ann)

    drawing, photo, scan = get("drawing"), get("photo"), get("scan")
    for response in (drawing, photo, scan):
        assert response.status_code == 200
        assert response.headers["x-content-type-options"] == "nosniff"
        policy = response.headers["content-security-policy"]
        assert "sandbox" in policy and "default-src 'none'" in policy
    assert drawing.headers["content-type"] == "image/svg+xml"
    assert "<script" not in drawing.text and "onload" not in drawing.text
    assert "Queue &amp; stack" in drawing.text
    assert photo.headers["content-type"] == "image/png" and photo.content == PNG
    assert scan.headers["content-type"] == "application/octet-stream"  # never rendered
    assert scan.headers["content-disposition"] == "attachment"
    assert get("broken").status_code == 404


# --- 6. X-Forwarded-For only from the proxies named in settings ---------------------------------


def _served_app(monkeypatch: pytest.MonkeyPatch, **env: str) -> tuple[Any, dict[str, Any]]:
    """The app and uvicorn options exactly as `tutorgraph serve` would run them."""
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    monkeypatch.setenv("TUTORGRAPH_LIMITS_LOGIN_FAILURES_PER_ACCOUNT_PER_IP", "3")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    captured: dict[str, Any] = {}

    def run(app: Any, **options: Any) -> None:
        captured.update(options, app=app)

    monkeypatch.setattr(uvicorn, "run", run)
    runner = CliRunner()
    assert runner.invoke(cli_app, ["db", "upgrade"]).exit_code == 0
    served = runner.invoke(cli_app, ["serve"])
    assert served.exit_code == 0, served.output
    app = captured.pop("app")
    for option in ("host", "port", "log_level"):
        captured.pop(option, None)
    return app, captured


def _login_statuses(url: str, forwarded_for: list[str], password: str) -> list[int]:
    statuses = []
    with httpx.Client(base_url=url) as http:
        for address in forwarded_for:
            response = http.post(
                "/api/v1/auth/login",
                json={"email": "ada@example.org", "password": password},
                headers={"X-Forwarded-For": address},
            )
            statuses.append(response.status_code)
    return statuses


def _register(url: str) -> None:
    body = {"email": "ada@example.org", "password": PASSWORD, "name": "Ada"}
    assert httpx.post(f"{url}/api/v1/auth/register", json=body).status_code == 201


def test_a_client_cannot_rotate_x_forwarded_for_past_the_login_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, options = _served_app(monkeypatch)
    with LiveServer(app, **options) as server:  # a client on 127.0.0.1, like a local proxy
        _register(server.url)
        rotating = [f"203.0.113.{n}" for n in range(6)]
        assert _login_statuses(server.url, rotating, "wrong guess") == [401] * 3 + [429] * 3


def test_x_forwarded_for_from_a_trusted_proxy_names_the_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, options = _served_app(monkeypatch, TUTORGRAPH_TRUSTED_PROXIES="127.0.0.1, 10.0.0.0/8")
    with LiveServer(app, **options) as server:
        _register(server.url)
        attacker = ["203.0.113.5"] * 3 + ["10.1.1.1, 203.0.113.5", "6.6.6.6, 203.0.113.5"]
        assert _login_statuses(server.url, attacker, "wrong guess") == [401] * 3 + [429] * 2
        # the same account from another client behind the proxy is not locked out
        assert _login_statuses(server.url, ["198.51.100.7"], PASSWORD) == [200]


def test_trusted_proxies_must_be_addresses(tmp_path: Path) -> None:
    with pytest.raises(pydantic.ValidationError, match="trusted_proxies"):
        make_settings(tmp_path, trusted_proxies=["*"])
    settings = make_settings(tmp_path, trusted_proxies="127.0.0.1, ::1, 10.0.0.0/8")
    assert settings.trusted_proxies == ["127.0.0.1", "::1", "10.0.0.0/8"]
    assert make_settings(tmp_path).trusted_proxies == []


# --- 7. the SQLite files are private -----------------------------------------------------------


def test_database_and_checkpoint_files_are_created_0600(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    previous = os.umask(0o022)
    try:
        migrate.upgrade(settings)
        database = Database(settings)
        with database.session() as session:
            users.create_user(session=session, email="a@b.co", password=PASSWORD, name="A")

        async def open_checkpoints() -> None:
            async with open_checkpointer(settings):
                pass

        asyncio.run(open_checkpoints())
        files = sorted(p for p in settings.data_dir.iterdir() if ".db" in p.name)
        assert {p.name for p in files} >= {"tutorgraph.db", "checkpoints.db"}
        assert {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in files} == {
            p.name: "0o600" for p in files
        }
        database.dispose()
    finally:
        os.umask(previous)
