"""The Assess pages, checked by parsing the HTML: start, question and progress, report picture."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.conftest import register_and_login
from tutorgraph.knowledge import get_domain
from tutorgraph.web.knowledge_svg import confidence_colours
from tutorgraph.wording import percent

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
    how = " ".join(page.select_one("[data-testid=how-graded]").get_text().split())
    assert "compared with the key points a good answer makes" in how
    assert "your code is run" in how and "full sentences" in how
    assert "matches words, not meaning" not in page.get_text()

    started = client.post(
        "/assess",
        data={"domain": "machine-learning", "target_level": "junior"},
        headers=headers,
        follow_redirects=False,
    )
    assert started.status_code == 303
    question_url = started.headers["location"]
    page = _soup(client.get(question_url, headers=headers).text)
    progress = " ".join(page.select_one("[data-testid=assess-progress]").get_text().split())
    assert "at most 20" not in progress and "of at most" not in progress
    assert page.select_one("[data-testid=question-number]").get_text() == "1"
    assert page.select_one("[data-testid=topic-number]").get_text() == "1"
    # 5 topics: 4 more to start (1 to 4 questions each) and up to 3 more on this one.
    left = page.select_one("[data-testid=questions-left]").get_text()
    assert left == "about 9 more questions (at most 19)"
    assert page.select_one("[data-testid=finish-now]") is None  # nothing answered yet
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
    assert all(td.has_attr("data-label") for td in report.select("table td"))
    assert report.select_one("[data-testid=not-assessed]") is None
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


def _answer_on_page(client: TestClient, url: str, headers: dict[str, str], text: str) -> None:
    page = _soup(client.get(url, headers=headers).text)
    form = page.select_one("form[action$='/answers']")
    data = {"answer": text, "question_id": form.select_one("[name=question_id]")["value"]}
    response = client.post(form["action"], data=data, headers=headers, follow_redirects=False)
    assert response.status_code == 303


def test_finish_now_gives_a_report_with_feedback_on_each_answer(client: TestClient) -> None:
    headers = {**register_and_login(client), **HTML}
    bob = {**register_and_login(client, email="bob@example.org"), **HTML}
    started = client.post(
        "/assess",
        data={"domain": "machine-learning", "target_level": "junior"},
        headers=headers,
        follow_redirects=False,
    )
    url = started.headers["location"]
    # The first question (ml-fundamentals, understand): one key point made, one missed, and a
    # misconception stated in the learner's own words.
    _answer_on_page(
        client,
        url,
        headers,
        "The training error is optimistically biased. High training accuracy means the model "
        "will do well in production anyway.",
    )
    page = _soup(client.get(url, headers=headers).text)
    finish = page.select_one("[data-testid=finish-now]")
    assert finish is not None and finish["formaction"] == f"{url}/finish"
    assert "1 answer so far" in " ".join(page.select_one("#finish-help").get_text().split())
    assert client.post(f"{url}/finish", data={}, headers=bob).status_code == 404

    done = client.post(f"{url}/finish", data={"answer": ""}, headers=headers)
    assert done.status_code == 200 and done.url.path == f"{url}/report"
    report = _soup(done.text)
    kb = get_domain("machine-learning")
    not_assessed = report.select("[data-testid=not-assessed] [data-topic]")
    assert [n["data-topic"] for n in not_assessed] == kb.agenda("junior")[1:]
    gap_rows = report.select("[data-testid=gaps] tbody tr")
    assert [r["data-topic"] for r in gap_rows] == ["ml-fundamentals"]
    assert "1 question answered" in report.select_one("[data-testid=counts]").get_text()
    assert "You finished it after 1 answer" in report.select_one("[data-testid=ended-because]").text
    assert "at most" not in report.select_one("[data-testid=report-summary]").get_text()

    [item] = report.select("[data-testid=answer-feedback]")
    details = item.select_one("details")
    assert not details.has_attr("open")  # collapsed: a short report on a phone
    assert item.select_one("[data-testid=answer-score]").get_text().startswith("score ")
    covered = item.select_one("[data-testid=answer-covered]").get_text()
    assert "training error is optimistically biased" in covered
    assert "model may fit noise" in item.select_one("[data-testid=answer-missed]").get_text()
    quote = item.select_one("[data-testid=misconception-quote]").get_text()
    assert quote == "High training accuracy means the model will do well in production anyway."
    assert (
        "training data as evidence" in item.select_one("[data-testid=answer-misconceptions]").text
    )

    # One mastery: the report's number for a topic is the one Progress shows.
    progress = client.get("/api/v1/me/progress", headers=headers).json()
    mastery = {c["concept"]: c["mastery"] for c in progress["concepts"]}
    caption = report.select_one("g.kg-node[data-topic=ml-fundamentals] .kg-caption").get_text()
    assert caption.startswith(percent(mastery["ml-fundamentals"]) + " of ")
    for row in report.select("[data-testid=gaps] tbody tr"):
        cell = row.select_one("[data-testid=gap-mastery]").get_text()
        assert cell == percent(mastery[row["data-topic"]])
        needed = row.select_one("[data-testid=gap-needed]").get_text()
        assert needed == "Explain it in your own words (“understand”)"  # junior: understand


def test_finishing_before_any_answer_is_refused_on_the_page(client: TestClient) -> None:
    headers = {**register_and_login(client), **HTML}
    started = client.post(
        "/assess",
        data={"domain": "python", "target_level": "mid"},
        headers=headers,
        follow_redirects=False,
    )
    url = started.headers["location"]
    refused = client.post(f"{url}/finish", data={"answer": ""}, headers=headers)
    assert refused.status_code == 409
    page = _soup(refused.text)
    assert "at least one question" in page.select_one("[data-testid=answer-error]").get_text()
    assert page.select_one("[data-testid=question-number]").get_text() == "1"
