from __future__ import annotations

import re
from typing import Any

import pytest
from sqlalchemy import select

from tests.tutor.conftest import lesson_id
from tutorgraph.content.retrieval import SearchIndexes
from tutorgraph.llm import ToolCall
from tutorgraph.settings import SearchSettings, Settings
from tutorgraph.store import users
from tutorgraph.store.db import Database
from tutorgraph.store.models import LearningPath, Lesson
from tutorgraph.tutor.context import MODES, build_explore_context, build_lesson_context
from tutorgraph.tutor.prompts import MODE_HINTS, build_exploration_prompt, build_system_prompt
from tutorgraph.tutor.tool_handlers import ToolExecutor
from tutorgraph.tutor.tools import TOOL_NAMES, TUTOR_TOOLS, tools_for

SPEC_TOOLS = {
    "search_web",
    "get_lesson_context",
    "get_lesson_transcript",
    "get_lesson_reference_kb",
    "get_curated_resources",
    "get_relevant_images",
    "get_user_progress",
}


def test_the_seven_spec_tools_plus_search_course() -> None:
    assert set(TOOL_NAMES) == SPEC_TOOLS | {"search_course"}
    for tool in TUTOR_TOOLS:
        assert tool.description and tool.parameters["type"] == "object"


@pytest.mark.parametrize(
    ("search", "has_web"),
    [
        (SearchSettings(), False),
        (SearchSettings(provider="searxng"), False),  # a provider without an endpoint is off
        (SearchSettings(provider="searxng", base_url="http://127.0.0.1:9"), True),
        (SearchSettings(provider="openai", base_url="https://api.perplexity.ai"), True),
    ],
)
def test_search_web_is_offered_only_when_search_is_configured(
    search: SearchSettings, has_web: bool
) -> None:
    names = [tool.name for tool in tools_for(search)]
    assert ("search_web" in names) is has_web
    assert len(names) == 8 if has_web else 7


def _lesson_context(settings: Settings, mode: str = "default") -> Any:
    db = Database(settings)
    try:
        with db.session() as session:
            lesson = session.get(Lesson, lesson_id(settings))
            assert lesson is not None
            return build_lesson_context(session=session, lesson=lesson, user=None, mode=mode)  # type: ignore[arg-type]
    finally:
        db.dispose()


def test_lesson_prompt_has_the_twelve_sections_in_order(settings: Settings) -> None:
    context = _lesson_context(settings, mode="eli5")
    names = [tool.name for tool in tools_for(settings.search)]

    prompt = build_system_prompt(context, names)

    numbers = [int(n) for n in re.findall(r"^# (\d+)\. ", prompt, flags=re.MULTILINE)]
    assert numbers == list(range(1, 13))
    assert "Title: Self-attention" in prompt
    assert MODE_HINTS["eli5"] in prompt
    assert "## Scaled dot-product attention" in prompt  # lesson body
    assert "Canonical sources" in prompt  # reference KB
    assert "- transformer-architecture: The transformer architecture" in prompt  # curriculum
    for tag in ("<quiz>", "<resource>", "<image>", "mermaid", "<flow>", "<architecture>"):
        assert tag in prompt
    assert "- search_course:" in prompt and "search_web" not in prompt.split("# 11.")[0]


def test_every_mode_changes_the_prompt(settings: Settings) -> None:
    prompts = {build_system_prompt(_lesson_context(settings, mode), []) for mode in MODES}
    assert len(prompts) == len(MODES) == 5


def test_explore_prompt_has_the_catalogue_and_no_lesson_body(seeded_database: Database) -> None:
    with seeded_database.session() as session:
        context = build_explore_context(session=session, user=None, mode="default")

    prompt = build_exploration_prompt(context, ["search_course", "get_lesson_context"])

    assert context.exploration_mode and not context.lesson_content
    assert "Python Engineering Essentials" in prompt and "Iterators and generators" in prompt
    assert "## Scaled dot-product attention" not in prompt
    assert "get_lesson_context" in prompt and "<quiz>" in prompt


@pytest.fixture
def executor(settings: Settings, seeded_database: Database) -> ToolExecutor:
    return ToolExecutor(
        context=_lesson_context(settings),
        database=seeded_database,
        indexes=SearchIndexes(settings.index_dir),
        search=settings.search,
        allowed=[tool.name for tool in tools_for(settings.search)],
    )


def call(name: str, arguments: str = "{}") -> ToolCall:
    return ToolCall(id="c1", name=name, arguments=arguments)


async def test_search_course_returns_passages_with_lesson_and_heading(
    executor: ToolExecutor,
) -> None:
    result = await executor.execute(
        call("search_course", '{"query": "why divide by the square root of d_k"}')
    )

    top = result["results"][0]
    assert top["lesson"] == "self-attention" and top["course"] == "modern-machine-learning"
    assert "square root" in " ".join(top["heading_path"]).lower()
    assert top["source"] in {"lesson", "reference_kb"} and top["score"] > 0


async def test_lesson_tools_read_other_lessons_and_the_transcript(executor: ToolExecutor) -> None:
    other = await executor.execute(
        call("get_lesson_context", '{"lesson_slug": "lora-parameter-efficient"}')
    )
    kb = await executor.execute(call("get_lesson_reference_kb"))
    transcript = await executor.execute(call("get_lesson_transcript"))

    assert (
        other["title"] == "LoRA and parameter-efficient fine-tuning" and "LoRA" in other["content"]
    )
    assert kb["lesson_slug"] == "self-attention" and "## Canonical sources" in kb["reference_kb"]
    assert transcript["available"] is False and "no video transcript" in transcript["note"]


async def test_private_lessons_of_others_stay_invisible_to_tools(
    seeded_database: Database, executor: ToolExecutor
) -> None:
    with seeded_database.session() as session:
        owner = users.create_user(
            session=session, email="o@x.org", password="plenty long enough", name="O"
        )
        course = session.scalar(
            select(LearningPath).where(LearningPath.slug == "python-engineering")
        )
        assert course is not None
        course.visibility, course.created_by = "private", owner.id

    result = await executor.execute(
        call("get_lesson_context", '{"lesson_slug": "iterators-and-generators"}')
    )
    search = await executor.execute(call("search_course", '{"query": "python generators yield"}'))

    assert "no lesson 'iterators-and-generators'" in result["error"]
    assert all(hit["course"] != "python-engineering" for hit in search["results"])


async def test_curated_resources_come_from_the_knowledge_base(executor: ToolExecutor) -> None:
    result = await executor.execute(call("get_curated_resources"))

    resources = result["resources"]
    assert 1 <= len(resources) <= 8
    assert {r["concept"] for r in resources} <= {"self-attention", "embeddings-tokenization"}
    assert all(r["url"].startswith("https://") and r["description"] for r in resources)


async def test_progress_images_and_bad_calls(executor: ToolExecutor) -> None:
    progress = await executor.execute(call("get_user_progress"))
    images = await executor.execute(call("get_relevant_images"))
    unknown = await executor.execute(call("search_web", '{"query": "x"}'))
    broken = await executor.execute(call("search_course", '{"query": '))
    missing = await executor.execute(call("search_course", "{}"))

    assert progress["current_lesson"] == "Self-attention" and progress["course_lesson_count"] == 7
    assert images == {"images": []}  # the demo lessons ship no images; none are invented
    assert "no tool named 'search_web'" in unknown["error"]
    assert "not valid JSON" in broken["error"]
    assert missing["error"] == "query: required"


def test_a_long_tool_result_is_shortened_but_stays_whole_json() -> None:
    import json

    from tutorgraph.tutor.tool_handlers import RESULT_CHARS, result_json

    quiz = [{"id": "q1", "question": "Which?", "options": ["a", "b"], "correct_index": 0}]
    lesson = {"title": "Long", "content": "word " * 5000, "summary": "s " * 2000, "quiz": quiz}
    text = result_json(lesson)
    assert len(text) <= RESULT_CHARS
    read = json.loads(text)  # before: cut mid-string, so a reader got nothing, quiz included
    assert read["quiz"] == quiz and read["title"] == "Long"
    assert read["content"].endswith("…") and len(read["content"]) < len(lesson["content"])
    assert json.loads(result_json({"short": "x"})) == {"short": "x"}
