"""The offline tutor holds a conversation: follow-ups stay on the topic the last reply taught,
confusion gets a simpler explanation of the same thing, analogies extend, hints do not give the
result away, and Explore answers questions about the catalogue itself. Every turn runs through
the real agent loop, tools and course content (`evals.runner`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tutorgraph.engines import offline_engine
from tutorgraph.evals.checks import difficulty
from tutorgraph.evals.runner import Transcript, TutorRunner
from tutorgraph.settings import Settings
from tutorgraph.store.db import Database
from tutorgraph.tutor.blocks import strip_blocks
from tutorgraph.tutor.compose import citations
from tutorgraph.tutor.context import Mode
from tutorgraph.tutor.dialogue import Dialogue, move_of
from tutorgraph.tutor.leaks import states_answer

SQRT_HEADING = "Why divide by the square root of d_k"


@pytest.fixture
def runner(settings: Settings, seeded_database: Database) -> Iterator[TutorRunner]:
    yield TutorRunner(settings=settings, database=seeded_database, model=offline_engine())


async def talk(
    runner: TutorRunner,
    lesson: str,
    turns: list[str],
    mode: Mode = "default",
    explore: bool = False,
) -> Transcript:
    context = runner.context(lesson=lesson, mode=mode, explore=explore)
    transcript = Transcript(lesson=lesson, mode=mode, explore=explore, engine="offline")
    for text in turns:
        transcript.turns.append(await runner.turn(context, transcript.history(), text))
    return transcript


def headings(reply: str) -> list[str]:
    return [c.heading for c in citations(reply)]


async def test_i_dont_get_it_stays_on_the_topic_and_is_simpler(runner: TutorRunner) -> None:
    chat = await talk(
        runner, "self-attention", ["why do we divide the scores by sqrt(d_k)?", "I don't get it"]
    )
    first, second = (t.reply for t in chat.turns)
    assert headings(first)[0] == SQRT_HEADING
    assert headings(second)[0] == SQRT_HEADING  # before: the off-topic redirect
    assert "couldn't find" not in second
    assert difficulty(second) < difficulty(first)


async def test_eli5_follow_up_on_why_the_scaling_matters(runner: TutorRunner) -> None:
    chat = await talk(
        runner,
        "self-attention",
        ["why do we divide by sqrt(d_k)?", "I still don't understand why the scaling matters"],
        mode="eli5",
    )
    assert "square root of d_k" in headings(chat.turns[1].reply)[0]  # before: Pre-LN warmup
    assert "$" not in strip_blocks(chat.turns[1].reply).split("_(Source")[0]


async def test_an_analogy_is_offered_then_extended(runner: TutorRunner) -> None:
    chat = await talk(
        runner,
        "self-attention",
        [
            "why do we divide by sqrt(d_k)?",
            "can you give me an analogy?",
            "so it's like a talent show? what happens with more criteria?",
        ],
    )
    picture, extension = chat.turns[1].reply, chat.turns[2].reply
    assert "Imagine" in picture or "Think of" in picture  # before: the redirect
    assert "Where the picture breaks" in picture
    assert "stretch that picture further" in extension
    assert headings(extension)[0] == SQRT_HEADING


async def test_a_hint_keeps_the_result_back_until_asked(runner: TutorRunner) -> None:
    chat = await talk(
        runner,
        "self-attention",
        [
            "with d_k = 64 and unit-variance entries, what's the standard deviation of q.k? "
            "just give me a hint, let me work it out",
            "is it 1?",
            "ok just tell me the answer",
        ],
    )
    hint, wrong, answer = (t.reply for t in chat.turns)
    assert not states_answer(hint, "8") and not states_answer(wrong, "8")
    assert wrong.startswith(("Let me", "Not quite")) and "Not quite" in wrong
    assert states_answer(answer, "8")


async def test_explore_lists_the_catalogue(runner: TutorRunner) -> None:
    chat = await talk(runner, "", ["What courses can I take?"], explore=True)
    reply = chat.turns[0].reply
    for title in ("Python Engineering Essentials", "Modern Machine Learning", "Self-attention"):
        assert title in reply  # before: a passage about the GIL


async def test_explore_what_next_follows_the_course_order(runner: TutorRunner) -> None:
    chat = await talk(
        runner,
        "",
        ["What should I learn after transformers?", "what's in that first lesson?"],
        explore=True,
    )
    first, second = (t.reply for t in chat.turns)
    assert "Next comes **LoRA and parameter-efficient fine-tuning**" in first  # before: nothing
    assert first.index("LoRA") < first.index("RLHF")
    assert citations(second)[0].lesson_title == "LoRA and parameter-efficient fine-tuning"


async def test_every_suggested_explore_starter_is_answered(runner: TutorRunner) -> None:
    from tutorgraph.web.explore import SUGGESTIONS

    for starter in SUGGESTIONS:
        chat = await talk(runner, "", [starter], explore=True)
        reply = chat.turns[0].reply
        assert "found nothing" not in reply and "won't guess" not in reply, starter


@pytest.mark.parametrize(
    ("message", "move"),
    [
        ("I don't get it", "confused"),
        ("why?", "why"),
        ("can you give me an example?", "example"),
        ("an analogy please", "analogy"),
        ("show me that in code", "code"),
        ("explain it like I'm five", "simpler"),
        ("just tell me the answer", "answer"),
        ("why is attention permutation-equivariant?", "new"),  # a new question that says why
    ],
)
def test_moves_are_read_after_a_teaching_reply(message: str, move: str) -> None:
    dialogue = Dialogue.read(
        ["why divide by sqrt(d_k)?"],
        [
            "Dividing by $\\sqrt{d_k}$ keeps the variance at 1.\n"
            "_(Source: Self-attention › Scaled dot-product attention › "
            "Why divide by the square root of d_k)_\n\nWhat would break without it?"
        ],
    )
    assert move_of(message, dialogue, explore=False) == move


async def test_explore_where_to_start_begins_the_named_course(runner: TutorRunner) -> None:
    chat = await talk(
        runner,
        "",
        [
            "i already know python pretty well and want to learn ml from scratch, where do i start",
            "whats in that first lesson",
        ],
        explore=True,
    )
    first, second = (t.reply for t in chat.turns)
    # before: "Next comes Neural networks...", as if the learner had done the first lesson
    assert first.startswith("Begin with **Supervised learning and evaluation**")
    assert citations(second)[0].lesson_title == "Supervised learning and evaluation"


async def test_explore_says_which_lesson_the_topic_is_in(runner: TutorRunner) -> None:
    chat = await talk(runner, "", ["what is a kv cache?", "which lesson is that in"], explore=True)
    reply = chat.turns[1].reply
    assert "**The transformer architecture**" in reply
    assert "/learn/modern-machine-learning/transformer-architecture" in reply
    assert not chat.turns[1].tools  # before: the whole answer again, from a fresh search


async def test_notation_such_as_pass_hat_k_is_searchable(runner: TutorRunner) -> None:
    chat = await talk(
        runner, "", ["what is pass^k", "why does it drop so fast as k grows"], explore=True
    )
    first, second = (t.reply for t in chat.turns)
    assert citations(first)[0].lesson_title == "From chatbots to agents"  # before: Self-attention
    assert citations(second)[0].lesson_title == "From chatbots to agents"


async def test_analogy_mode_builds_on_its_picture_instead_of_repeating_it(
    runner: TutorRunner,
) -> None:
    chat = await talk(
        runner,
        "asyncio-concurrency",
        ["how does the event loop work", "how do i fix a blocking call in it"],
        mode="analogy",
    )
    first, second = (t.reply for t in chat.turns)
    picture = "Imagine a single waiter serving many tables"
    assert picture in first
    assert picture not in second and "our picture" in second


async def test_after_a_summary_shorter_means_fewer_points(runner: TutorRunner) -> None:
    chat = await talk(
        runner,
        "lora-parameter-efficient",
        ["can you summarise this lesson in a few bullet points", "shorter pls, like 3 lines"],
    )
    first, second = (t.reply for t in chat.turns)
    points = [line for line in second.splitlines() if line.startswith("- ")]
    assert len(points) == 3
    assert len([line for line in first.splitlines() if line.startswith("- ")]) > 3


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        ("what papers should i read for rlhf", "resources"),
        ("any good videos on this?", "resources"),
        ("can you recommend a book", "resources"),
        ("i'd say the resource leaks because the release line is skipped", "question"),
        ("the links between layers are residual, right?", "question"),
    ],
)
def test_a_request_for_reading_is_not_any_mention_of_a_resource(message: str, intent: str) -> None:
    from tutorgraph.tutor.offline_tutor import intent_of

    assert intent_of(message) == intent


async def test_in_a_lesson_which_section_names_the_section_without_sending_elsewhere(
    runner: TutorRunner,
) -> None:
    chat = await talk(
        runner, "asyncio-concurrency", ["how does the event loop work", "which section is that in"]
    )
    reply = chat.turns[1].reply
    assert "It's in this lesson, **Concurrency and asyncio**" in reply
    assert "How the asyncio event loop works" in reply
    assert "go there" not in reply  # the learner is already there


async def test_a_table_section_answers_and_a_new_topic_is_not_read_as_a_follow_up(
    runner: TutorRunner,
) -> None:
    chat = await talk(
        runner, "python-data-model", ["set vs list membership speed", "how to pick lora rank"]
    )
    first, second = (t.reply for t in chat.turns)
    assert headings(first)[0] == "Choosing a built-in container"  # a section that is a table
    assert "| Fast membership or de-duplication | `set` |" in first
    # the quiz card's "pick one" is the tutor's phrasing, not the topic: LoRA is a new question
    assert citations(second)[0].lesson_title == "LoRA and parameter-efficient fine-tuning"
    assert headings(second)[0] == "Choosing target modules and rank"


async def test_explore_checks_understanding_with_the_answering_lessons_own_quiz(
    runner: TutorRunner,
) -> None:
    # Explore opens the lesson that answers and closes with one of its quiz cards (before: the
    # opened lesson's tool result was cut mid-JSON and read as empty, so never one)
    chat = await talk(runner, "", ["what is a kv cache?"], explore=True)
    reply = chat.turns[0].reply
    assert citations(reply)[0].lesson_title == "The transformer architecture"
    assert "<quiz>" in reply and '"id":"transformer-architecture-q' in reply


async def test_follow_ups_on_a_table_section_say_what_its_rows_say(runner: TutorRunner) -> None:
    chat = await talk(
        runner,
        "iterators-and-generators",
        ["whats the cleanest way to split an iterable into chunks of n items", "i dont get it"],
    )
    second = chat.turns[1].reply
    assert headings(second)[0] == "The itertools toolkit"
    quoted = strip_blocks(second).split("_(Source")[0].split("more simply.")[-1]
    assert "`" in quoted and ":" in quoted  # before: nothing between the lead and the citation


async def test_a_bare_why_mid_conversation_is_a_follow_up_not_a_greeting(
    runner: TutorRunner,
) -> None:
    chat = await talk(runner, "self-attention", ["why do we divide by sqrt(d_k)?", "why?"])
    second = chat.turns[1].reply
    assert not second.startswith("Hi!")  # before: the lesson's greeting, topic forgotten
    assert headings(second)[0] == SQRT_HEADING
