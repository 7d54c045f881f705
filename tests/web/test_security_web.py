"""CSRF on every cookie-authenticated form and API call, security headers on every response, and
/docs served offline and only where allowed."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.conftest import csrf_token, make_settings, register_and_login
from tutorgraph.server import create_app
from tutorgraph.settings import Settings
from tutorgraph.store import migrate

HTML = {"accept": "text/html"}
ADA = {"email": "ada@example.org", "password": "correct horse"}


def log_in_with_the_form(client: TestClient) -> None:
    register_and_login(client)
    response = client.post(
        "/login", data={**ADA, "csrf_token": csrf_token(client)}, follow_redirects=False
    )
    assert response.status_code == 303 and "tutorgraph_session" in client.cookies


def signed_in(client: TestClient) -> bool:
    return client.get("/api/v1/auth/me").status_code == 200


# 7. CSRF -----------------------------------------------------------------------------------


def test_a_visitor_logs_in_with_the_forms_token(client: TestClient) -> None:
    register_and_login(client)
    assert not client.cookies  # no session and no CSRF cookie yet
    form = BeautifulSoup(client.get("/login", headers=HTML).text, "html.parser").find("form")
    assert form is not None
    data = {i["name"]: i.get("value", "") for i in form.find_all("input")}
    response = client.post("/login", data={**data, **ADA}, follow_redirects=False)
    assert response.status_code == 303 and signed_in(client)


def test_another_site_cannot_log_you_in(client: TestClient) -> None:
    register_and_login(client)  # the attacker's own account
    response = client.post("/login", data=ADA, headers=HTML, follow_redirects=False)
    assert response.status_code == 403
    page = BeautifulSoup(response.text, "html.parser")
    assert "reload the page" in page.get_text()
    assert "tutorgraph_session" not in client.cookies


def test_another_site_cannot_log_you_out(client: TestClient) -> None:
    log_in_with_the_form(client)
    forged = client.post("/logout", headers=HTML, follow_redirects=False)
    assert forged.status_code == 403 and signed_in(client)
    # nor with a token made for another browser
    other = TestClient(client.app)
    stolen = client.post(
        "/logout", data={"csrf_token": csrf_token(other)}, headers=HTML, follow_redirects=False
    )
    assert stolen.status_code == 403 and signed_in(client)
    own = client.post("/logout", data={"csrf_token": csrf_token(client)}, follow_redirects=False)
    assert own.status_code == 303 and not signed_in(client)


def test_cookie_authenticated_api_calls_need_the_header(client: TestClient) -> None:
    log_in_with_the_form(client)
    forged = client.post("/api/v1/auth/logout")
    assert forged.status_code == 403
    assert forged.headers["content-type"] == "application/problem+json"
    assert "X-CSRF-Token" in forged.json()["detail"] and signed_in(client)
    bearer = register_and_login(TestClient(client.app), email="bob@example.org")
    assert client.post("/api/v1/auth/logout", headers=bearer).status_code == 204  # no cookie use
    ok = client.post("/api/v1/auth/logout", headers={"X-CSRF-Token": csrf_token(client)})
    assert ok.status_code == 204 and not signed_in(client)


def test_every_post_form_carries_the_token(client: TestClient) -> None:
    log_in_with_the_form(client)
    token = csrf_token(client)
    forms = []
    for path in ("/", "/quiz", "/assess", "/login", "/register"):
        page = BeautifulSoup(client.get(path, headers=HTML).text, "html.parser")
        forms += page.find_all("form", method="post")
    assert len(forms) >= 5
    for form in forms:
        field = form.find("input", attrs={"name": "csrf_token"})
        assert field is not None and field["value"] == token, form


def test_the_templates_post_forms_all_carry_the_token() -> None:
    templates = Path(__file__).parents[2] / "src" / "tutorgraph" / "web" / "templates"
    for template in templates.glob("*.html"):
        page = BeautifulSoup(template.read_text(), "html.parser")
        for form in page.find_all("form", method="post"):
            field = form.find("input", attrs={"name": "csrf_token"})
            assert field is not None and field["value"] == "{{ csrf_token }}", template.name


# 8. headers --------------------------------------------------------------------------------


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    responses = [
        client.get("/", headers=HTML),
        client.get("/no-such-page", headers=HTML),
        client.get("/api/v1/auth/me"),
        client.get("/static/js/tutor-chat.js"),
        client.get("/healthz"),
    ]
    for response in responses:
        policy = dict(
            part.strip().split(" ", 1)
            for part in response.headers["content-security-policy"].split(";")
        )
        assert policy["script-src"] == "'self'" and policy["frame-ancestors"] == "'none'"
        assert "unsafe-inline" not in policy["default-src"]
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["referrer-policy"] == "strict-origin-when-cross-origin"
        assert "strict-transport-security" not in response.headers  # plain HTTP in tests


def test_an_unexpected_error_carries_the_security_headers_too(settings: Settings) -> None:
    migrate.upgrade(settings)
    app = create_app(settings)

    def broken() -> None:
        raise RuntimeError("a bug")

    app.add_api_route("/broken", broken)
    app.router.routes.insert(0, app.router.routes.pop())  # ahead of the pages' catch-all
    with TestClient(app, raise_server_exceptions=False) as client:
        for headers in ({}, HTML):
            response = client.get("/broken", headers=headers)
            assert response.status_code == 500
            assert "a bug" not in response.text
            assert response.headers["content-security-policy"].startswith("default-src 'self'")
            assert response.headers["x-frame-options"] == "DENY"


def test_pages_have_no_inline_script(client: TestClient) -> None:
    log_in_with_the_form(client)
    for path in ("/", "/login", "/register", "/quiz", "/assess", "/learn", "/explore"):
        page = BeautifulSoup(client.get(path, headers=HTML).text, "html.parser")
        for script in page.find_all("script"):
            assert script.get("src") and not script.get_text().strip(), path
        for element in page.find_all(True):
            assert not [a for a in element.attrs if a.startswith("on")], (path, element.name)


# 9. /docs ----------------------------------------------------------------------------------


def test_docs_are_served_offline_in_development(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, environment="development", jwt_secret=None, api_docs=None)
    migrate.upgrade(settings)
    with TestClient(create_app(settings)) as client:
        page = BeautifulSoup(client.get("/docs").text, "html.parser")
        assets = [s["src"] for s in page.find_all("script")] + [
            link["href"] for link in page.find_all("link")
        ]
        assert len(assets) == 4
        for asset in assets:
            assert str(asset).startswith("/static/"), asset
            assert client.get(str(asset)).status_code == 200, asset
        assert all(not s.get_text().strip() for s in page.find_all("script"))
        assert client.get("/openapi.json").json()["info"]["title"] == "tutorgraph"


@pytest.mark.parametrize(("api_docs", "status"), [(None, 404), (True, 200)])
def test_docs_are_hidden_in_production_unless_enabled(
    tmp_path: Path, api_docs: bool | None, status: int
) -> None:
    settings = make_settings(tmp_path, environment="production", api_docs=api_docs)
    migrate.upgrade(settings)
    with TestClient(create_app(settings)) as client:
        assert client.get("/docs").status_code == status
        assert client.get("/openapi.json").status_code == status
        assert client.get("/redoc").status_code == 404  # ReDoc needed a CDN: gone everywhere
