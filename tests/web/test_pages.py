from __future__ import annotations

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.conftest import csrf_token
from tutorgraph.web.templating import inline_code

HTML = {"accept": "text/html"}


def page(client: TestClient, path: str) -> BeautifulSoup:
    response = client.get(path, headers=HTML)
    assert response.status_code == 200, response.text
    return BeautifulSoup(response.text, "html.parser")


def test_home_has_the_navigation_and_an_empty_state(client: TestClient) -> None:
    soup = page(client, "/")
    nav = soup.find("nav", attrs={"aria-label": "Main"})
    assert nav is not None
    labels = [a.get_text() for a in nav.find_all("a")]
    assert labels == [
        "Learn",
        "Explore",
        "Assess",
        "Practice",
        "Review",
        "Progress",
        "Interview",
        "Create",
    ]
    assert soup.find("html")["lang"] == "en"  # type: ignore[index]
    assert soup.find("a", string="Log in") is not None


def test_registering_signs_the_learner_in_and_lands_on_home(client: TestClient) -> None:
    form = page(client, "/register").find("form")
    assert form is not None and {i["name"] for i in form.find_all("input")} == {
        "csrf_token",
        "name",
        "email",
        "password",
    }
    token = csrf_token(client)
    for field in ("name", "email", "password"):
        assert form.find("label", attrs={"for": field}) is not None
    response = client.post(
        "/register",
        data={
            "name": "Grace",
            "email": "grace@example.org",
            "password": "cobol forever",
            "csrf_token": token,
        },
        follow_redirects=False,
    )
    # signed in at once, with the same session cookie a login sets, and on the home page
    assert response.status_code == 303 and response.headers["location"] == "/"
    assert "session" in " ".join(response.headers.get_list("set-cookie")).lower()
    soup = page(client, "/")
    assert soup.find(attrs={"data-testid": "current-user"}).get_text() == "Grace"  # type: ignore[union-attr]
    # a first visit: no answer yet
    assert soup.find(attrs={"data-testid": "welcome"}).get_text() == "Welcome, Grace"  # type: ignore[union-attr]
    assert client.get("/api/v1/me/next").status_code == 200  # the cookie is a real session


def test_registering_a_taken_email_signs_nobody_in(client: TestClient) -> None:
    token = csrf_token(client)
    data = {"name": "Ada", "email": "ada@example.org", "password": "analytical engine"}
    client.post("/register", data={**data, "csrf_token": token})
    client.post("/logout", data={"csrf_token": token})
    again = client.post(
        "/register",
        data={**data, "password": "someone elses guess", "csrf_token": token},
        follow_redirects=False,
    )
    assert again.status_code == 303 and again.headers["location"] == "/login?registered=1"
    assert page(client, "/").find(attrs={"data-testid": "current-user"}) is None


def test_welcome_back_after_the_first_answer(client: TestClient) -> None:
    token = csrf_token(client)
    client.post(
        "/register",
        data={
            "name": "Lin",
            "email": "lin@example.org",
            "password": "plenty long enough",
            "csrf_token": token,
        },
    )
    started = client.post(
        "/quiz",
        data={"topic": "python/python-data-model", "csrf_token": token},
        follow_redirects=False,
    )
    round_url = started.headers["location"]
    client.post(f"{round_url}/answer", data={"answer": "no idea", "csrf_token": token})
    soup = page(client, "/")
    assert soup.find(attrs={"data-testid": "welcome"}).get_text() == "Welcome back, Lin"  # type: ignore[union-attr]


def test_login_after_registering_still_works(client: TestClient) -> None:
    token = csrf_token(client)
    client.post(
        "/register",
        data={
            "name": "Grace",
            "email": "grace@example.org",
            "password": "cobol forever",
            "csrf_token": token,
        },
    )
    client.post("/logout", data={"csrf_token": token})
    response = client.post(
        "/login",
        data={
            "email": "grace@example.org",
            "password": "cobol forever",
            "next": "/",
            "csrf_token": token,
        },
        follow_redirects=False,
    )
    assert response.status_code == 303
    soup = page(client, "/")
    assert soup.find(attrs={"data-testid": "current-user"}).get_text() == "Grace"  # type: ignore[union-attr]


def test_failed_login_shows_a_message_and_keeps_the_email(client: TestClient) -> None:
    response = client.post(
        "/login",
        data={
            "email": "who@example.org",
            "password": "nope nope",
            "csrf_token": csrf_token(client),
        },
        headers=HTML,
    )
    assert response.status_code == 401
    soup = BeautifulSoup(response.text, "html.parser")
    assert soup.find(attrs={"role": "alert"}).get_text() == "invalid email or password"  # type: ignore[union-attr]
    assert soup.find("input", attrs={"name": "email"})["value"] == "who@example.org"  # type: ignore[index]


def test_login_never_redirects_off_site(client: TestClient) -> None:
    token = csrf_token(client)
    client.post(
        "/register",
        data={
            "name": "Eve",
            "email": "eve@example.org",
            "password": "plenty long enough",
            "csrf_token": token,
        },
    )
    response = client.post(
        "/login",
        data={
            "email": "eve@example.org",
            "password": "plenty long enough",
            "next": "//evil.example",
            "csrf_token": token,
        },
        follow_redirects=False,
    )
    assert response.headers["location"] == "/"


def test_unknown_pages_render_a_404_page(client: TestClient) -> None:
    response = client.get("/no-such-page", headers=HTML)
    assert response.status_code == 404
    soup = BeautifulSoup(response.text, "html.parser")
    assert soup.find("h1").get_text() == "Not found"  # type: ignore[union-attr]


def test_static_assets_are_served_locally(client: TestClient) -> None:
    soup = page(client, "/")
    links = [link["href"] for link in soup.find_all("link", rel="stylesheet")]
    assert links and all(str(href).startswith("/static/") for href in links)
    assert client.get(str(links[0])).status_code == 200


def test_inline_code_shows_code_spans_and_escapes_the_rest() -> None:
    shown = inline_code("Explain the `else` clause, not <b>this</b>, nor `a<b`")
    assert shown == (
        "Explain the <code>else</code> clause, not &lt;b&gt;this&lt;/b&gt;, nor <code>a&lt;b</code>"
    )
