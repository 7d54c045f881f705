from __future__ import annotations

from fastapi.testclient import TestClient

from tests.conftest import csrf_token, register_and_login


def test_register_login_and_me(client: TestClient) -> None:
    headers = register_and_login(client)
    me = client.get("/api/v1/auth/me", headers=headers)
    assert me.status_code == 200
    assert me.json() == {"id": 1, "email": "ada@example.org", "name": "Ada", "role": "learner"}


def test_login_sets_an_http_only_session_cookie(client: TestClient) -> None:
    register_and_login(client)
    response = client.post(
        "/api/v1/auth/login", json={"email": "ada@example.org", "password": "correct horse"}
    )
    cookie = response.headers["set-cookie"]
    assert (
        "tutorgraph_session=" in cookie
        and "HttpOnly" in cookie
        and "samesite=lax" in cookie.lower()
    )
    assert client.get("/api/v1/auth/me").status_code == 200  # the cookie alone authenticates
    client.post("/api/v1/auth/logout", headers={"X-CSRF-Token": csrf_token(client)})
    assert client.get("/api/v1/auth/me").status_code == 401


def test_protected_endpoint_requires_a_valid_token(client: TestClient) -> None:
    missing = client.get("/api/v1/auth/me")
    forged = client.get("/api/v1/auth/me", headers={"Authorization": "Bearer not.a.jwt"})
    for response in (missing, forged):
        assert response.status_code == 401
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["title"] == "Not authenticated"


def test_errors_never_reveal_whether_an_email_exists(client: TestClient) -> None:
    register_and_login(client)
    again = client.post(
        "/api/v1/auth/register",
        json={"email": "ada@example.org", "password": "another password", "name": "Eve"},
    )
    fresh = client.post(
        "/api/v1/auth/register",
        json={"email": "bob@example.org", "password": "another password", "name": "Bob"},
    )
    assert again.status_code == fresh.status_code == 201
    assert again.json()["message"] == fresh.json()["message"]
    wrong_password = client.post(
        "/api/v1/auth/login", json={"email": "ada@example.org", "password": "wrong password"}
    )
    unknown_email = client.post(
        "/api/v1/auth/login", json={"email": "nobody@example.org", "password": "wrong password"}
    )
    assert wrong_password.status_code == unknown_email.status_code == 401
    assert wrong_password.json() == unknown_email.json()
    # the existing account kept its password
    ok = client.post(
        "/api/v1/auth/login", json={"email": "ada@example.org", "password": "correct horse"}
    )
    assert ok.status_code == 200


def test_login_is_rate_limited(client: TestClient) -> None:
    register_and_login(client)
    statuses = [
        client.post(
            "/api/v1/auth/login", json={"email": "ada@example.org", "password": "guess " + str(i)}
        ).status_code
        for i in range(12)
    ]
    assert statuses[:10] == [401] * 10  # only failures count: the successful login spent none
    assert statuses[10:] == [429, 429]
    blocked = client.post(
        "/api/v1/auth/login", json={"email": "ada@example.org", "password": "correct horse"}
    )
    assert blocked.status_code == 429


def test_bad_input_is_a_problem_document_naming_the_field(client: TestClient) -> None:
    response = client.post("/api/v1/auth/register", json={"email": "ada@example.org"})
    assert response.status_code == 422
    body = response.json()
    assert {e["field"] for e in body["errors"]} == {"password", "name"}
    short = client.post(
        "/api/v1/auth/register", json={"email": "a@b.co", "password": "short", "name": "A"}
    )
    assert short.status_code == 422 and short.json()["detail"].startswith("password:")


def test_unexpected_errors_answer_without_a_stack_trace(client: TestClient) -> None:
    def explode() -> None:
        raise RuntimeError("secret internals")

    client.app.add_api_route("/api/v1/explode", explode)  # type: ignore[attr-defined]
    quiet = TestClient(client.app, raise_server_exceptions=False)
    response = quiet.get("/api/v1/explode")
    assert response.status_code == 500
    assert "secret internals" not in response.text and "Traceback" not in response.text


def test_healthz_and_openapi(client: TestClient) -> None:
    assert client.get("/healthz").json()["status"] == "ok"
    paths = client.get("/openapi.json").json()["paths"]
    assert "/api/v1/auth/login" in paths and "/api/v1/auth/register" in paths
