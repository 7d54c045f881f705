"""The Assess pages, checked by parsing the HTML: start, question and progress, report picture."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.conftest import register_and_login
from tutorgraph.knowledge import get_domain
from tutorgraph.web.knowledge_svg import confidence_colours

HTML = {"accept": "text/html"}


def _soup(text: str) -> BeautifulSoup:
    return BeautifulSoup(text, "html.parser")


def test_assess_needs_a_login(client: TestClient) -> None:
    response = client.get("/assess", headers=HTML, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=%2Fassess"


def test_start_answer_and_read_the_report(client: TestClient) -> None:
    headers = {**register_and_login(client), **HTML}
    page = _soup(client.get("/assess", headers=headers).text)
    assert {o["value"] for o in page.select("#domain option")} == {"python", "machine-learning"}
    assert [o["value"] for o in page.select("#target_level option")] == [
        "junior",
        "mid",
        "senior",
        "staff",
    ]
    assert "offline grader matches words, not meaning" in " ".join(page.text.split())

    started = client.post(
        "/assess",
        data={"domain": "machine-learning", "target_level": "junior"},
        headers=headers,
        follow_redirects=False,
    )
    assert started.status_code == 303
    question_url = started.headers["location"]
    page = _soup(client.get(question_url, headers=headers).text)
    assert page.select_one("[data-testid=topics-evaluated]").get_text() == "0"
    assert page.select_one("[data-testid=questions-used]").get_text() == "1"
    assert page.select_one("[data-testid=max-questions]").get_text() == "20"
    assert page.select_one("#question-heading").get_text() == "Supervised learning fundamentals"
    assert page.select_one("[data-testid=bloom-level]").get_text() == "understand"
    first_id = page.select_one("input[name=question_id]")["value"]

    for _ in range(5):
        page = _soup(client.get(question_url, headers=headers).text)
        form = page.select_one("form[action$='/answers']")
        data = {
            "answer": "I don't know",
            "question_id": form.select_one("[name=question_id]")["value"],
        }
        response = client.post(form["action"], data=data, headers=headers, follow_redirects=False)
        assert response.status_code == 303
    # A repeated submit of an answered question is harmless.
    again = client.post(
        f"{question_url}/answers",
        data={"answer": "again", "question_id": first_id},
        headers=headers,
    )
    assert again.status_code == 200 and again.url.path.endswith("/report")

    report = _soup(again.text)
    assert int(report.select_one("[data-testid=readiness]").get_text()) < 20
    svg = report.select_one("svg[data-testid=knowledge-graph]")
    nodes = svg.select("g.kg-node")
    kb = get_domain("machine-learning")
    agenda = kb.agenda("junior")
    assert sorted(n["data-topic"] for n in nodes) == sorted(agenda)
    expected_edges = {(p, t) for t in agenda for p in kb.topic(t).prerequisites if p in agenda}
    edges = {(e["data-source"], e["data-target"]) for e in svg.select("path.kg-edge")}
    assert edges == expected_edges
    low_fill, _ = confidence_colours(0.0)
    hues = [int(re.match(r"hsl\((\d+)", n.select_one("rect")["fill"]).group(1)) for n in nodes]
    assert max(hues) < 40  # every topic red-ish: nothing was known
    assert low_fill.startswith("hsl(0,")
    gap_rows = report.select("table[data-testid=gaps] tbody tr")
    assert len(gap_rows) == 5
    assert all(row.select("td")[-1].get_text().strip() for row in gap_rows)
    phases = report.select("[data-testid=plan] > li")
    assert 3 <= len(phases) <= 5
    assert all(p.select(".resources li") for p in phases)

    listing = _soup(client.get("/assess", headers=headers).text)
    [row] = listing.select("[data-testid=my-assessments] tbody tr")
    assert "complete" in row.get_text()


def test_someone_elses_report_is_not_found(client: TestClient) -> None:
    ada = {**register_and_login(client), **HTML}
    bob = {**register_and_login(client, email="bob@example.org"), **HTML}
    started = client.post(
        "/assess", data={"domain": "python", "target_level": "mid"}, headers=ada,
        follow_redirects=False,
    )  # fmt: skip
    url = started.headers["location"]
    assert client.get(url, headers=bob).status_code == 404
    assert client.get(url + "/report", headers=bob).status_code == 404
