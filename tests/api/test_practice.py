from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.test_security_input import start_round
from tests.conftest import register_and_login
from tutorgraph.knowledge import get_domain


def test_a_practice_round_grades_each_answer_and_resumes(client: TestClient) -> None:
    headers = register_and_login(client)
    started = client.post(
        "/api/v1/practice/rounds",
        json={"domain": "python", "topic": "decorators-closures"},
        headers=headers,
    )
    assert started.status_code == 201
    round_ = started.json()
    assert round_["total"] == 5 and round_["current"]["position"] == 0
    assert round_["current"]["bloom_level"] == "remember"
    topic = get_domain("python").topic("decorators-closures")
    reference = next(q for q in topic.questions if q.text == round_["current"]["text"])

    answered = client.post(
        f"/api/v1/practice/rounds/{round_['id']}/answers",
        json={"answer": reference.reference_answer},
        headers=headers,
    ).json()
    assert answered["result"]["score"] >= 0.8
    assert answered["result"]["mastery"]["after"]["wma"] > 0
    assert answered["round"]["current"]["position"] == 1

    # another learner cannot see or answer it
    other = register_and_login(client, email="bob@example.org")
    assert client.get(f"/api/v1/practice/rounds/{round_['id']}", headers=other).status_code == 404
    # resume: the round keeps its answers
    resumed = client.get(f"/api/v1/practice/rounds/{round_['id']}", headers=headers).json()
    assert len(resumed["answered"]) == 1 and resumed["status"] == "active"
    # Weak answers: the path planner asks each question again, with a hint, then sends the
    # learner to another explanation; the round still ends.
    steps = []
    for _ in range(20):
        last = client.post(
            f"/api/v1/practice/rounds/{round_['id']}/answers",
            json={"answer": "I am not sure."},
            headers=headers,
        ).json()
        steps.append(last["next"]["kind"])
        current = last["round"]["current"]
        if current is None:
            break
        if current["attempt"] > 1:
            assert current["hint"], current
    assert last["round"]["current"] is None and last["round"]["status"] == "completed"
    assert "retry" in steps and "tutor" in steps
    assert max(q["attempt"] for q in last["round"]["answered"]) == 3
    done = client.post(
        f"/api/v1/practice/rounds/{round_['id']}/answers",
        json={"answer": "one more"},
        headers=headers,
    )
    assert done.status_code == 409
    assert [r["id"] for r in client.get("/api/v1/practice/rounds", headers=headers).json()] == [
        round_["id"]
    ]


def test_unknown_topic_is_a_clear_error(client: TestClient) -> None:
    headers = register_and_login(client)
    response = client.post(
        "/api/v1/practice/rounds", json={"domain": "python", "topic": "cobol"}, headers=headers
    )
    assert response.status_code == 422 and "cobol" in response.json()["detail"]
    response = client.post(
        "/api/v1/practice/rounds", json={"domain": "cooking", "topic": "x"}, headers=headers
    )
    assert response.status_code == 404


def test_a_missed_question_comes_back_with_a_hint_a_good_one_cannot(client: TestClient) -> None:
    headers = register_and_login(client)
    round_ = client.post(
        "/api/v1/practice/rounds",
        json={"domain": "python", "topic": "decorators-closures"},
        headers=headers,
    ).json()
    url = f"/api/v1/practice/rounds/{round_['id']}"
    missed = client.post(f"{url}/answers", json={"answer": "no idea"}, headers=headers).json()
    assert missed["result"]["decision"] == "RETRY"
    first = missed["round"]["answered"][0]
    assert first["reference_answer"] == ""  # kept back while the question waits for a retry
    # the path planner asked it again, next, with a hint; by hand it cannot be queued twice
    assert missed["next"]["kind"] == "retry" and missed["next"]["decision"] == "RETRY"
    again = missed["round"]
    assert again["total"] == 6 and again["current"]["text"] == first["text"]
    assert again["current"]["attempt"] == 2 and again["current"]["hint"]
    assert not first["can_retry"]
    twice = client.post(f"{url}/retry", json={"question_id": first["id"]}, headers=headers)
    assert twice.status_code == 409
    topic = get_domain("python").topic("decorators-closures")
    reference = next(q for q in topic.questions if q.text == again["current"]["text"])
    good = client.post(
        f"{url}/answers", json={"answer": reference.reference_answer}, headers=headers
    ).json()
    second = good["round"]["answered"][1]
    assert second["attempt"] == 2 and not second["can_retry"]
    refused = client.post(f"{url}/retry", json={"question_id": second["id"]}, headers=headers)
    assert refused.status_code == 409 and "cannot be tried again" in refused.json()["detail"]
    other = register_and_login(client, email="eve@example.org")
    assert (
        client.post(f"{url}/retry", json={"question_id": first["id"]}, headers=other).status_code
        == 404
    )


def test_a_repeated_submit_never_answers_the_next_question(client: TestClient) -> None:
    headers = register_and_login(client)
    round_id = start_round(client, headers)
    round_ = client.get(f"/api/v1/practice/rounds/{round_id}", headers=headers).json()
    url = f"/api/v1/practice/rounds/{round_id}/answers"
    body = {
        "answer": "A closure remembers its enclosing scope.",
        "question_id": round_["current"]["id"],
    }
    assert client.post(url, json=body, headers=headers).status_code == 200
    again = client.post(url, json=body, headers=headers)  # a slow double click, a resent form
    assert again.status_code == 409 and "not waiting" in again.json()["detail"]
    after = client.get(f"/api/v1/practice/rounds/{round_['id']}", headers=headers).json()
    assert len(after["answered"]) == 1 and after["current"]["position"] == 1
