"""A blank or near-empty answer is refused with a message: not graded as 0, and the question it
answered is still waiting (practice, assessment, and the grading API alike)."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.conftest import csrf_token, register_and_login

BLANKS = ["", "   ", "?", "a", " . \n"]


@pytest.mark.parametrize("blank", BLANKS)
def test_the_grading_api_refuses_a_blank_answer(client: TestClient, blank: str) -> None:
    headers = register_and_login(client)
    body = {"question_id": "self-attention-understand-1", "answer": blank}
    response = client.post("/api/v1/grade", json=body, headers=headers)
    assert response.status_code == 422
    assert "write an answer first" in response.json()["detail"]
    assert client.get("/api/v1/mastery", headers=headers).json() == []


def test_a_blank_practice_answer_leaves_the_question_waiting(client: TestClient) -> None:
    headers = register_and_login(client)
    start = {"domain": "python", "topic": "python-data-model"}
    round_ = client.post("/api/v1/practice/rounds", json=start, headers=headers).json()
    url = f"/api/v1/practice/rounds/{round_['id']}/answers"
    for blank in BLANKS:
        refused = client.post(url, json={"answer": blank}, headers=headers)
        assert refused.status_code == 422, blank
    after = client.get(f"/api/v1/practice/rounds/{round_['id']}", headers=headers).json()
    assert after["answered"] == [] and after["current"]["id"] == round_["current"]["id"]
    answered = client.post(url, json={"answer": "I don't know"}, headers=headers)
    assert answered.status_code == 200  # an honest "I don't know" is an answer


def test_a_blank_assessment_answer_leaves_the_question_waiting(client: TestClient) -> None:
    headers = register_and_login(client)
    body = {"domain": "machine-learning", "target_level": "junior"}
    started = client.post("/api/v1/assessments", json=body, headers=headers).json()
    url = f"/api/v1/assessments/{started['id']}"
    refused = client.post(f"{url}/answers", json={"answer": "  "}, headers=headers)
    assert refused.status_code == 422
    after = client.get(url, headers=headers).json()
    assert after["interrupt"]["question"] == started["interrupt"]["question"]
    assert after["interrupt"]["total_questions"] == started["interrupt"]["total_questions"]


def test_the_practice_page_keeps_the_question_and_says_why(client: TestClient) -> None:
    headers = register_and_login(client)
    start = {"domain": "python", "topic": "python-data-model"}
    round_ = client.post("/api/v1/practice/rounds", json=start, headers=headers).json()
    form = {"answer": " . ", "csrf_token": csrf_token(client)}
    page = client.post(f"/quiz/{round_['id']}/answer", data=form, headers=headers)
    assert page.status_code == 422
    soup = BeautifulSoup(page.text, "html.parser")
    error = soup.select_one("[data-testid=answer-error]")
    assert error is not None and "write an answer first" in error.get_text()
    assert soup.select_one("textarea[name=answer]").get_text() == " . "
    question = soup.select_one("[data-testid=question-text]").get_text().strip()
    assert question == round_["current"]["text"].strip()
