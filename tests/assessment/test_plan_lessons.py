"""Each learning-plan item links the lesson that teaches its topic (issue 35, decision record
0050): checked over every plan item the offline planner makes for every shipped domain and level,
against the shipped courses, and on the report page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from tests.conftest import register_and_login, seeded_copy
from tutorgraph.assessment.gaps import analyze_gaps, enrich
from tutorgraph.assessment.knowledge_map import empty_graph, merge_evaluation
from tutorgraph.assessment.lessons import LessonSource, headings, lesson_for_topic
from tutorgraph.assessment.planning import offline_plan
from tutorgraph.assessment.schemas import PlanRequest
from tutorgraph.assessment.state import KnowledgeGraphState
from tutorgraph.knowledge import TARGET_LEVELS, KnowledgeBase, TargetLevel, shipped_domains
from tutorgraph.server import create_app
from tutorgraph.store import courses
from tutorgraph.store.db import Database


@pytest.fixture(scope="module")
def shipped_lessons(
    tmp_path_factory: pytest.TempPathFactory, seeded_data: Path
) -> dict[str, list[LessonSource]]:
    """The seeded demo courses' lessons, by domain, as a learner sees them."""
    settings = seeded_copy(tmp_path_factory.mktemp("plan-lessons"), seeded_data)
    database = Database(settings)
    try:
        with database.session() as session:
            found: dict[str, list[LessonSource]] = {}
            for visible in courses.visible_courses(session=session, user=None):
                for lesson in courses.course_lessons(visible.course):
                    found.setdefault(visible.course.domain, []).append(
                        LessonSource(
                            visible.course.slug,
                            lesson.slug,
                            lesson.title,
                            tuple(str(c) for c in lesson.concepts or []),
                            lesson.content,
                        )
                    )
            return found
    finally:
        database.dispose()


def _graph(kb: KnowledgeBase, scores: dict[str, float]) -> KnowledgeGraphState:
    graph = empty_graph()
    for topic_id, confidence in scores.items():
        graph = merge_evaluation(
            graph,
            {
                "question_id": "q",
                "topic": topic_id,
                "confidence": confidence,
                "bloom_level": "remember",
                "evidence": [],
            },
            prerequisites=[],
        )
    return graph


def _plans(kb: KnowledgeBase, level: TargetLevel) -> Iterator[list[str]]:
    """The plan items (topics, phase by phase) of every plan shape: every topic a gap, no gap,
    and each topic the only gap."""
    agenda = kb.agenda(level)
    shapes = [dict.fromkeys(agenda, 0.0), dict.fromkeys(agenda, 1.0)]
    shapes += [{**dict.fromkeys(agenda, 1.0), topic: 0.0} for topic in agenda]
    for scores in shapes:
        gaps = analyze_gaps(kb, level, _graph(kb, scores))
        enriched = enrich(gaps, recommendations={}, readiness=0, summary="")
        plan = offline_plan(
            PlanRequest(
                domain=kb.name, target_level=level, overall_readiness=0, gaps=enriched["gaps"]
            )
        )
        yield [topic for phase in plan.phases for topic in phase.topics]


@pytest.mark.parametrize("domain", sorted(shipped_domains()))
def test_every_plan_item_links_a_lesson_that_teaches_its_topic(
    domain: str, shipped_lessons: dict[str, list[LessonSource]]
) -> None:
    kb = shipped_domains()[domain]
    lessons = shipped_lessons[domain]
    items = {topic for level in TARGET_LEVELS for plan in _plans(kb, level) for topic in plan}
    assert len(items) >= 10
    for topic_id in sorted(items):
        linked = lesson_for_topic(kb.topic(topic_id), lessons)
        teaching = [lesson for lesson in lessons if topic_id in lesson.concepts]
        if linked is None:  # the item then says so and offers practice
            assert teaching == [], topic_id
            continue
        assert topic_id in linked.concepts, (topic_id, linked)
        [lesson] = [x for x in lessons if linked.url.split("#")[0].endswith(f"/{x.lesson_slug}")]
        if linked.whole:  # "Lesson: ..." only for the lesson whose main topic it is
            assert lesson.concepts[0] == topic_id, (topic_id, linked)
        if linked.section is not None:  # the anchor is one the lesson page has
            anchor = linked.url.split("#")[1]
            assert (linked.section, anchor) in headings(lesson.content)


def test_type_hints_link_the_section_on_them_not_the_testing_lesson(
    shipped_lessons: dict[str, list[LessonSource]],
) -> None:
    kb = shipped_domains()["python"]
    linked = lesson_for_topic(kb.topic("type-hints"), shipped_lessons["python"])
    assert linked is not None and not linked.whole
    assert linked.section == "Type hints and static checking alongside tests"
    assert linked.url == (
        "/learn/python-engineering/testing-with-pytest"
        "#h-type-hints-and-static-checking-alongside-tests"
    )
    # ...and a lesson on two topics is "the lesson" of its main one only.
    testing = lesson_for_topic(kb.topic("testing-pytest"), shipped_lessons["python"])
    assert testing is not None and testing.whole and testing.title == "Testing with pytest"


def test_the_report_page_links_plan_items_by_the_rule(tmp_path: Path, seeded_data: Path) -> None:
    settings = seeded_copy(tmp_path, seeded_data)
    with TestClient(create_app(settings)) as client:
        headers = {**register_and_login(client), "accept": "text/html"}
        body = {"domain": "python", "target_level": "mid"}
        view = client.post("/api/v1/assessments", json=body, headers=headers).json()
        while view["interrupt"]:
            view = client.post(
                f"/api/v1/assessments/{view['id']}/answers",
                json={"answer": "I don't know."},
                headers=headers,
            ).json()
        page = client.get(f"/assess/{view['id']}/report", headers=headers)
        report = BeautifulSoup(page.text, "html.parser")
        items = report.select("[data-testid=plan-item]")
        assert items
        for item in items:
            link = item.select_one("[data-testid=plan-lesson]")
            if link is None:
                assert item.select_one("[data-testid=no-lesson]") is not None
                continue
            assert item["data-topic"] in link["data-concepts"].split()
        [hints] = [i for i in items if i["data-topic"] == "type-hints"]
        text = " ".join(hints.get_text().split())
        assert "lesson: Testing with pytest" not in text
        assert "section “Type hints and static checking alongside tests”" in text
        lesson = client.get(
            hints.select_one("[data-testid=plan-lesson]")["href"].split("#")[0], headers=headers
        )
        assert 'id="h-type-hints-and-static-checking-alongside-tests"' in lesson.text
