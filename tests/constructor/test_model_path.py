"""With a model server the same nodes ask for structured outputs: the model's topics,
prerequisites and questions are used when they fit, checked by the same validation, and a
proposal that does not cover the sources falls back to the offline engine."""

from __future__ import annotations

from tests.constructor.sources import FUNCTIONS_MD
from tutorgraph.constructor.agents import (
    PrerequisiteOutput,
    ProposedQuestion,
    ProposedTopic,
    QuizOutput,
    TopicPrerequisites,
    TopicsOutput,
)
from tutorgraph.constructor.build import build_course
from tutorgraph.constructor.context import Upload
from tutorgraph.engines import offline_engine
from tutorgraph.knowledge.bloom import BloomLevel
from tutorgraph.llm.scripted import ScriptedEngine

UPLOAD = Upload("f1", "functions.md", FUNCTIONS_MD.encode())


async def test_the_models_structure_and_questions_are_used_and_validated() -> None:
    offline = await build_course([UPLOAD], model=offline_engine())
    sections = [s.section_id for s in offline["sections"]]
    scripted = ScriptedEngine()
    scripted.enqueue_structured(
        TopicsOutput(
            topics=[
                ProposedTopic(title="Functions", unit_title="Basics", section_ids=sections[:2]),
                ProposedTopic(title="Results", unit_title="Basics", section_ids=sections[2:]),
            ]
        ),
        PrerequisiteOutput(
            topics=[
                TopicPrerequisites(topic_id="functions", prerequisites=["results"]),  # forward
                TopicPrerequisites(topic_id="results", prerequisites=["functions"]),
            ]
        ),
        QuizOutput(
            questions=[
                ProposedQuestion(
                    bloom_level=BloomLevel.REMEMBER,
                    type="conceptual",
                    text="In Functions, which keyword defines a function?",
                    reference_answer="The def keyword.",
                    key_points=["def keyword"],
                    evidence="You define one with the `def` keyword",
                ),
                ProposedQuestion(
                    bloom_level=BloomLevel.UNDERSTAND,
                    type="conceptual",
                    text="What is the boiling point of mercury?",  # not in the sources
                    reference_answer="About 357 degrees Celsius.",
                    key_points=["357 degrees"],
                    evidence="Mercury boils at 357 degrees Celsius.",
                ),
            ]
        ),
        QuizOutput(questions=[]),
    )
    state = await build_course([UPLOAD], model=scripted, title="Functions")
    assert scripted.pending == 0
    structure = state["structure"]
    assert structure is not None
    assert [t.title for t in structure.topics] == ["Functions", "Results"]
    assert [u.title for u in structure.units] == ["Functions"]  # a unit per file, its title
    # A prerequisite may only point back: the forward one is dropped, so no cycle.
    assert structure.topic("functions").prerequisites == []
    assert structure.topic("results").prerequisites == ["functions"]
    bank = state["quiz_bank"]
    assert bank is not None
    kept = [i.text for i in bank.kept()]
    assert kept == ["In Functions, which keyword defines a function?"]
    dropped = [i for i in bank.items if not i.kept]
    assert dropped and "not answerable" in dropped[0].problems[0]
    report = state["report"]
    assert report is not None and not report.ready  # one topic has no questions


async def test_a_proposal_that_misses_sections_falls_back_to_the_offline_topics() -> None:
    offline = await build_course([UPLOAD], model=offline_engine())
    first = offline["sections"][0].section_id
    scripted = ScriptedEngine()
    scripted.enqueue_structured(
        TopicsOutput(topics=[ProposedTopic(title="Only one", unit_title="U", section_ids=[first])]),
        PrerequisiteOutput(topics=[]),
        *[QuizOutput(questions=[]) for _ in offline["structure"].topics],  # type: ignore[union-attr]
    )
    state = await build_course([UPLOAD], model=scripted)
    titles = [t.title for t in state["structure"].topics]  # type: ignore[union-attr]
    assert titles == [t.title for t in offline["structure"].topics]  # type: ignore[union-attr]
