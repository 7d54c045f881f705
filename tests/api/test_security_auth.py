"""Auth and sessions: the signing secret, cookies, token revocation, registration and login
limits, and the password policy, exercised through the real app."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import jwt
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from typer.testing import CliRunner

from tests.conftest import make_settings, register_and_login
from tutorgraph.cli import app as cli_app
from tutorgraph.errors import ConfigurationError
from tutorgraph.server import create_app
from tutorgraph.settings import Settings, load_settings
from tutorgraph.store import migrate, users
from tutorgraph.store.db import Database
from tutorgraph.store.models import RevokedToken, User

# The signing secret that src/tutorgraph/settings.py once shipped as the development default.
FORMER_DEFAULT_SECRET = "change-me-this-secret-is-for-development-only"
PASSWORD = "correct horse"


def dev_settings(tmp_path: Path, **overrides: object) -> Settings:
    """A development server as `tutorgraph serve` starts it: no secret configured."""
    values: dict[str, object] = {"environment": "development", "jwt_secret": None}
    values.update(overrides)
    return make_settings(tmp_path, **values)


def login(client: TestClient, email: str, password: str = PASSWORD) -> str:
    response = client.post("/api/v1/auth/login", json={"email": email, "password": password})
    assert response.status_code == 200, response.text
    client.cookies.clear()
    token: str = response.json()["access_token"]
    return token


def me(client: TestClient, token: str) -> int:
    return client.get("/api/v1/auth/me", headers={"Authorization": f"Bearer {token}"}).status_code


def from_ip(client: TestClient, ip: str) -> TestClient:
    """Another client of the same app, arriving from `ip`."""
    return TestClient(client.app, client=(ip, 50000))


def add_users(settings: Settings, emails: list[str]) -> None:
    database = Database(settings)
    try:
        with database.session() as session:
            for email in emails:
                users.create_user(session=session, email=email, password=PASSWORD, name="L")
    finally:
        database.dispose()


# 1. signing secret -------------------------------------------------------------------------


def test_development_makes_one_private_secret_that_every_process_shares(tmp_path: Path) -> None:
    settings = dev_settings(tmp_path)
    migrate.upgrade(settings)
    with TestClient(create_app(settings)) as first:
        token = register_and_login(first)["Authorization"]
    secret_file = settings.data_dir / "jwt_secret"
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    assert FORMER_DEFAULT_SECRET not in secret_file.read_text()
    # a second server process on the same data dir accepts the first one's tokens
    with TestClient(create_app(dev_settings(tmp_path))) as second:
        assert second.get("/api/v1/auth/me", headers={"Authorization": token}).status_code == 200


def test_a_token_forged_with_the_former_source_code_secret_is_refused(tmp_path: Path) -> None:
    settings = dev_settings(tmp_path)
    migrate.upgrade(settings)
    with TestClient(create_app(settings)) as client:
        register_and_login(client)
        now = datetime.now(UTC)
        claims = {"sub": "1", "role": "admin", "ver": 0, "jti": "forged", "iat": now}
        forged = jwt.encode(
            {**claims, "exp": now + timedelta(hours=1)}, FORMER_DEFAULT_SECRET, algorithm="HS256"
        )
        assert me(client, forged) == 401
    with pytest.raises(ConfigurationError, match="published"):
        load_settings(jwt_secret=FORMER_DEFAULT_SECRET)


def test_servers_starting_together_agree_on_the_secret(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from tutorgraph.settings import Settings;"
        "from tutorgraph.signing_secret import signing_secret;"
        "print(signing_secret(Settings(data_dir=Path(sys.argv[1]))))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    data_dir = str(tmp_path / "shared-data")
    starts = [
        subprocess.Popen(
            [sys.executable, "-c", code, data_dir], stdout=subprocess.PIPE, text=True, env=env
        )
        for _ in range(6)
    ]
    secrets = {process.communicate(timeout=60)[0].strip() for process in starts}
    assert len(secrets) == 1 and len(secrets.pop()) >= 32
    assert os.listdir(data_dir) == ["jwt_secret"]  # no staging files left behind


# 2. cookies --------------------------------------------------------------------------------


def cookie_for(response_headers: list[str], name: str) -> str:
    return next(h for h in response_headers if h.startswith(f"{name}="))


@pytest.mark.parametrize(
    ("environment", "override", "secure"),
    [("production", None, True), ("development", None, False), ("production", False, False)],
)
def test_cookies_are_secure_in_production_unless_overridden(
    tmp_path: Path, environment: str, override: bool | None, secure: bool
) -> None:
    settings = make_settings(tmp_path, environment=environment, secure_cookies=override)
    migrate.upgrade(settings)
    with TestClient(create_app(settings), base_url="https://testserver") as client:
        register_and_login(client)
        api = client.post(
            "/api/v1/auth/login", json={"email": "ada@example.org", "password": PASSWORD}
        )
        login_page = client.get("/login", headers={"accept": "text/html"})
        for headers, name in (
            (api.headers.get_list("set-cookie"), "tutorgraph_session"),
            (login_page.headers.get_list("set-cookie"), "tutorgraph_csrf"),
        ):
            assert ("Secure" in cookie_for(headers, name)) is secure
        assert ("strict-transport-security" in api.headers) is secure


# 3. revocation -----------------------------------------------------------------------------


def test_logout_revokes_that_token_only(client: TestClient) -> None:
    register_and_login(client)
    phone, laptop = login(client, "ada@example.org"), login(client, "ada@example.org")
    response = client.post("/api/v1/auth/logout", headers={"Authorization": f"Bearer {phone}"})
    assert response.status_code == 204
    assert me(client, phone) == 401  # a copy of the logged-out token is worthless
    assert me(client, laptop) == 200


def test_revoked_tokens_are_forgotten_once_expired(settings: Settings, client: TestClient) -> None:
    database = Database(settings)
    try:
        with database.session() as session:
            past = datetime.now(UTC) - timedelta(minutes=1)
            users.revoke_token(session=session, token_id="old", expires_at=past)
            users.revoke_token(session=session, token_id="new", expires_at=past + timedelta(days=1))
            users.revoke_token(session=session, token_id="new", expires_at=past + timedelta(days=1))
        with database.session() as session:
            assert list(session.scalars(select(RevokedToken.token_id))) == ["new"]
    finally:
        database.dispose()


def test_a_password_change_ends_every_earlier_session(client: TestClient) -> None:
    register_and_login(client)
    first, second = login(client, "ada@example.org"), login(client, "ada@example.org")
    wrong = client.post(
        "/api/v1/auth/password",
        json={"current_password": "not it at all", "new_password": "tea and biscuits"},
        headers={"Authorization": f"Bearer {first}"},
    )
    assert wrong.status_code == 422 and wrong.json()["detail"].startswith("current_password:")
    changed = client.post(
        "/api/v1/auth/password",
        json={"current_password": PASSWORD, "new_password": "tea and biscuits"},
        headers={"Authorization": f"Bearer {first}"},
    )
    assert changed.status_code == 200, changed.text
    client.cookies.clear()
    assert me(client, first) == 401 and me(client, second) == 401
    assert me(client, changed.json()["access_token"]) == 200
    old = client.post("/api/v1/auth/login", json={"email": "ada@example.org", "password": PASSWORD})
    assert old.status_code == 401
    assert me(client, login(client, "ada@example.org", "tea and biscuits")) == 200


def test_a_password_change_follows_the_password_policy(client: TestClient) -> None:
    token = register_and_login(client)
    weak = client.post(
        "/api/v1/auth/password",
        json={"current_password": PASSWORD, "new_password": "password1"},
        headers=token,
    )
    assert weak.status_code == 422 and "common" in weak.json()["detail"]
    assert client.get("/api/v1/auth/me", headers=token).status_code == 200


def test_cli_set_password_ends_the_users_sessions(
    settings: Settings, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = register_and_login(client)
    monkeypatch.setenv("TUTORGRAPH_DATA_DIR", str(settings.data_dir))
    args = ["users", "set-password", "--email", "ada@example.org", "--password"]
    result = CliRunner().invoke(cli_app, [*args, "fresh start here"])
    assert result.exit_code == 0, result.output
    assert client.get("/api/v1/auth/me", headers=token).status_code == 401
    assert me(client, login(client, "ada@example.org", "fresh start here")) == 200
    unknown = CliRunner().invoke(cli_app, [*args[:3], "who@example.org", "--password", "x" * 12])
    assert unknown.exit_code != 0


# 4. registration ---------------------------------------------------------------------------


@pytest.fixture
def strict_client(tmp_path: Path) -> Iterator[TestClient]:
    limits = {
        "registrations_per_hour_per_ip": 3,
        "login_failures_per_account_per_ip": 5,
        "login_failures_per_ip": 12,
    }
    settings = make_settings(tmp_path, limits=limits)
    migrate.upgrade(settings)
    with TestClient(create_app(settings)) as client:
        yield client


def register(client: TestClient, email: str, password: str = PASSWORD) -> int:
    body = {"email": email, "password": password, "name": "N"}
    return client.post("/api/v1/auth/register", json=body).status_code


def test_registrations_are_limited_per_client_ip(strict_client: TestClient) -> None:
    statuses = [register(strict_client, f"l{i}@example.org") for i in range(3)]
    assert statuses == [201, 201, 201]
    blocked = strict_client.post(
        "/api/v1/auth/register",
        json={"email": "l3@example.org", "password": PASSWORD, "name": "N"},
    )
    assert blocked.status_code == 429 and "registrations" in blocked.json()["detail"]
    assert register(strict_client, "ada@example.org") == 429  # a taken email counts the same
    assert register(from_ip(strict_client, "10.0.0.2"), "l3@example.org") == 201


# 5. login limits ---------------------------------------------------------------------------


def test_a_classroom_behind_one_ip_all_logs_in(settings: Settings, client: TestClient) -> None:
    emails = [f"pupil{i}@example.org" for i in range(30)]
    add_users(settings, emails)
    for email in emails:
        login(client, email)  # asserts 200 for each
    login(client, emails[0])


def test_guessing_someone_elses_password_cannot_lock_them_out(strict_client: TestClient) -> None:
    add_users(strict_client.app.state.settings, ["victim@example.org"])  # type: ignore[attr-defined]
    attacker = from_ip(strict_client, "203.0.113.7")
    statuses = [
        attacker.post(
            "/api/v1/auth/login", json={"email": "victim@example.org", "password": f"guess {i}"}
        ).status_code
        for i in range(50)
    ]
    assert statuses[:5] == [401] * 5 and set(statuses[5:]) == {429}
    assert (
        "too many failed logins"
        in attacker.post(
            "/api/v1/auth/login", json={"email": "victim@example.org", "password": PASSWORD}
        ).json()["detail"]
    )
    victim = from_ip(strict_client, "198.51.100.1")
    login(victim, "victim@example.org")


def test_failures_from_one_ip_across_accounts_are_limited(strict_client: TestClient) -> None:
    settings: Settings = strict_client.app.state.settings  # type: ignore[attr-defined]
    add_users(settings, [f"u{i}@example.org" for i in range(4)] + ["mine@example.org"])
    statuses = [
        strict_client.post(
            "/api/v1/auth/login", json={"email": f"u{i % 4}@example.org", "password": "nope nope"}
        ).status_code
        for i in range(14)
    ]
    assert statuses[:12] == [401] * 12 and statuses[12:] == [429, 429]
    # even a correct password waits, from this IP; others are unaffected
    blocked = strict_client.post(
        "/api/v1/auth/login", json={"email": "mine@example.org", "password": PASSWORD}
    )
    assert blocked.status_code == 429
    login(from_ip(strict_client, "10.9.9.9"), "mine@example.org")


def test_a_successful_login_clears_that_accounts_failures(strict_client: TestClient) -> None:
    settings: Settings = strict_client.app.state.settings  # type: ignore[attr-defined]
    add_users(settings, ["typo@example.org"])
    body = {"email": "typo@example.org", "password": "correct hrose"}
    for _ in range(2):
        for _ in range(4):
            assert strict_client.post("/api/v1/auth/login", json=body).status_code == 401
        login(strict_client, "typo@example.org")  # 8 failures in all, never 5 in a row
    database = Database(settings)
    try:
        with database.session() as session:
            assert (
                users.count_recent_attempts(
                    session=session,
                    key="fail:account:typo@example.org:ip:testclient",
                    window=timedelta(minutes=15),
                )
                == 0
            )
    finally:
        database.dispose()


# 6. password policy ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("password", "problem"),
    [
        ("iloveyou", "common"),
        ("Password1", "common"),
        ("grace.hopper-1906", "email"),
        ("me=GRACE.HOPPER@example.org", "email"),
        ("          ", "spaces"),
        ("short", "at least 8"),
    ],
)
def test_registration_refuses_weak_passwords_naming_the_problem(
    client: TestClient, password: str, problem: str
) -> None:
    response = client.post(
        "/api/v1/auth/register",
        json={"email": "grace.hopper@example.org", "password": password, "name": "Grace"},
    )
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert detail.startswith("password:") and problem in detail


def test_registration_accepts_a_passphrase(client: TestClient) -> None:
    assert register(client, "grace.hopper@example.org", "cobol forever and ever") == 201
    database: Database = client.app.state.db  # type: ignore[attr-defined]
    with database.session() as session:
        assert session.scalar(select(func.count()).select_from(User)) == 1
