from __future__ import annotations

import json

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.conftest import csrf_token, register_and_login
from tests.store.test_conformance import write_course
from tutorgraph.cli.seed import run_seed
from tutorgraph.settings import Settings

HTML = {"accept": "text/html"}


@pytest.fixture
def seeded(client: TestClient, settings: Settings) -> TestClient:
    write_course(settings.content_dir)
    (settings.content_dir / "demo" / "lessons" / "attn.md").write_text(
        "# Attention\n\nScores $QK^T$ scaled.\n\n```mermaid\ngraph TD; A-->B\n```\n\n"
        "```python\nprint('hi')\n```\n\n<script>alert(1)</script>\n"
    )
    run_seed(settings)
    return client


def soup(client: TestClient, path: str) -> BeautifulSoup:
    response = client.get(path, headers=HTML)
    assert response.status_code == 200, response.text
    return BeautifulSoup(response.text, "html.parser")


def test_learn_lists_platform_courses(seeded: TestClient) -> None:
    page = soup(seeded, "/learn")
    section = page.find("section", attrs={"data-section": "platform"})
    assert section is not None
    assert section.find("h2").get_text() == "Platform Courses"  # type: ignore[union-attr]
    assert [a.get_text() for a in section.select(".course-card h3 a")] == ["Demo"]


def test_lesson_page_renders_markdown_math_mermaid_and_escapes_html(seeded: TestClient) -> None:
    page = soup(seeded, "/learn/demo/attn")
    body = page.find("article", class_="lesson-body")
    assert body is not None
    assert body.find("span", class_="math").get_text() == "QK^T"  # type: ignore[union-attr]
    assert body.find("pre", class_="mermaid").get_text().strip() == "graph TD; A-->B"  # type: ignore[union-attr]
    assert body.find("script") is None and "<script>" in body.get_text()
    assert body.select("code.language-python span")  # highlighted on the server
    assert page.find("a", rel="next")["href"] == "/learn/demo/intro"  # type: ignore[index]
    scripts = [s["src"] for s in page.find_all("script", src=True)]
    assert all(str(src).startswith("/static/") for src in scripts)


def test_mark_complete_shows_on_the_course_page(seeded: TestClient) -> None:
    headers = register_and_login(seeded)
    token = headers["Authorization"].split()[1]
    seeded.cookies.set("tutorgraph_session", token)
    response = seeded.post(
        "/learn/demo/attn/progress",
        data={"completed": "true", "csrf_token": csrf_token(seeded)},
        follow_redirects=False,
    )
    assert response.status_code == 303
    page = soup(seeded, "/learn/demo")
    assert (
        page.find(attrs={"data-testid": "course-progress"}).get_text() == "1 of 2 lessons completed"
    )  # type: ignore[union-attr]
    done = [card["data-lesson"] for card in page.select(".lesson-card.done")]
    assert done == ["attn"]


def test_unknown_course_and_lesson_are_404_pages(seeded: TestClient) -> None:
    assert seeded.get("/learn/nope", headers=HTML).status_code == 404
    assert seeded.get("/learn/demo/nope", headers=HTML).status_code == 404


def test_a_404_page_still_knows_the_signed_in_user(seeded: TestClient) -> None:
    headers = register_and_login(seeded)
    seeded.cookies.set("tutorgraph_session", headers["Authorization"].split()[1])
    response = seeded.get("/learn/demo/nope", headers=HTML)
    assert response.status_code == 404
    page = BeautifulSoup(response.text, "html.parser")
    assert page.find(attrs={"data-testid": "current-user"}).get_text() == "Ada"  # type: ignore[union-attr]


def test_course_cards_and_lesson_summaries_show_code_not_backticks(
    client: TestClient, settings: Settings
) -> None:
    """A description or summary written in Markdown shows its `code` as code (the card showed
    the raw backticks), and its HTML stays text."""
    write_course(settings.content_dir)
    manifest_path = settings.content_dir / "demo" / "course.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["description"] = "Use `__slots__` and **measure** first. <b>bold?</b>"
    manifest["modules"][0]["lessons"][1]["summary"] = "Calls `print()` once."
    manifest_path.write_text(json.dumps(manifest))
    run_seed(settings)

    card = soup(client, "/learn").select_one(".course-card [data-testid=course-description]")
    assert card is not None and "`" not in card.get_text()
    assert [c.get_text() for c in card.find_all("code")] == ["__slots__"]
    assert card.find("b") is None and "<b>bold?</b>" in card.get_text()
    course = soup(client, "/learn/demo")
    assert [c.get_text() for c in course.select("[data-testid=course-description] code")] == [
        "__slots__"
    ]
    summary = course.select_one("[data-lesson=intro] .lesson-summary")
    assert summary is not None and [c.get_text() for c in summary.find_all("code")] == ["print()"]
