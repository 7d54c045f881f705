"""The tutor follows the conversation (issue 35, decision 0048): each turn is decided from the
conversation (continue the topic, a new question in the lesson, one that leaves it, a request to
repeat, or confusion) and answered as that; no reply repeats an earlier one unless the learner
asks; no fixed opener, no passage spliced in from another section, no sentence fragment, reading
suggestions only about the question, one text once per reply. Every turn runs through the real
agent loop, tools and course content (`evals.runner`), on the offline engine."""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import make_settings
from tutorgraph.cli.seed import run_seed
from tutorgraph.engines import offline_engine
from tutorgraph.evals.runner import Transcript, TutorRunner
from tutorgraph.settings import Settings
from tutorgraph.store import migrate
from tutorgraph.store.db import Database
from tutorgraph.tutor.blocks import strip_blocks
from tutorgraph.tutor.compose import QUIZ_LEAD, citations
from tutorgraph.tutor.context import Mode
from tutorgraph.tutor.dialogue import INTENTS, Dialogue, LessonScope, decide
from tutorgraph.tutor.offline_tutor import decision_of

ROOT = Path(__file__).resolve().parents[2]
DIALOGUES = ROOT / "benchmarks" / "tutor" / "dialogues.yaml"
SPLITS = ROOT / "benchmarks" / "splits.yaml"
SQRT = "why do we divide the scores by sqrt(d_k)?"
MULTI_HEAD = "ok what about multi-head?"


@pytest.fixture
def runner(settings: Settings, seeded_database: Database) -> Iterator[TutorRunner]:
    yield TutorRunner(settings=settings, database=seeded_database, model=offline_engine())


async def talk(
    runner: TutorRunner, lesson: str, turns: list[str], mode: Mode = "default"
) -> Transcript:
    context = runner.context(lesson=lesson, mode=mode, explore=False)
    transcript = Transcript(lesson=lesson, mode=mode, explore=False, engine="offline")
    for text in turns:
        transcript.turns.append(await runner.turn(context, transcript.history(), text))
    return transcript


# --- what "the same paragraph" means -------------------------------------------------------------

_LABEL = re.compile(r"^(From .+:|_\(Source: .+\)_)$")


def paragraphs(reply: str) -> list[str]:
    """A reply's paragraphs of text, normalised: its blank-line-separated blocks without quiz and
    resource cards, the line that labels a card ("Quick check: ...") or a code block ("From
    <section>:"), and citation lines."""
    found = []
    for block in re.split(r"\n\s*\n", strip_blocks(reply)):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        lines = [line for line in lines if not _LABEL.match(line) and line != QUIZ_LEAD]
        text = " ".join(" ".join(lines).lower().split())
        if text:
            found.append(text)
    return found


def first_sentence(reply: str) -> str:
    text = " ".join(strip_blocks(reply).split())
    return re.split(r"(?<=[.!?:])\s", text, maxsplit=1)[0] if text else ""


def shared_paragraphs(reply: str, earlier: list[str]) -> set[str]:
    before = {p for e in earlier for p in paragraphs(e)}
    return set(paragraphs(reply)) & before


# --- the conversation --------------------------------------------------------------------


@pytest.mark.parametrize(
    "middle",
    [
        ["and in code?", "does this matter more when the model is scaled up?"],
        ["why?", "how does the cost scale with sequence length?"],
    ],
)
async def test_ok_what_about_multi_head_explains_multi_head_and_repeats_nothing(
    runner: TutorRunner, middle: list[str]
) -> None:
    chat = await talk(runner, "self-attention", [SQRT, *middle, MULTI_HEAD])
    first, last = chat.turns[0].reply, chat.turns[-1].reply
    # before: turn 4 quoted turn 1's sqrt(d_k) paragraph word for word, citing the scaling
    assert [c.heading for c in citations(last)][:1] == ["Multi-head attention"], last
    assert "head" in strip_blocks(last).split("_(Source")[0].lower()
    assert shared_paragraphs(last, [first]) == set()
    replies = [t.reply for t in chat.turns]
    for i, reply in enumerate(replies[1:], start=1):
        assert shared_paragraphs(reply, replies[:i]) == set(), (i, reply)


def test_the_decider_reads_a_terse_follow_up_naming_a_new_section_as_a_new_question() -> None:
    """Decisions are data: the turn decider is a pure function of the conversation and the
    lesson, checked here without a model or a database."""
    lesson = (
        "# Attention\n\n## Scaled dot-product attention\n\nScores are divided by the square root "
        "of d_k so the softmax does not saturate.\n\n## Multi-head attention\n\nSeveral heads "
        "attend in parallel, each in d_k = d_model / h dimensions. Heads see different "
        "patterns.\n\n## Masking\n\nA causal mask hides future keys from each query.\n"
    )
    scope = LessonScope.of(
        title="Attention",
        content=lesson,
        others=[("Fine-tuning with LoRA", ["lora", "fine-tuning"])],
    )
    reply = (
        "Scores are divided by the square root of d_k so the softmax does not saturate.\n"
        "_(Source: Attention › Scaled dot-product attention)_"
    )
    after = Dialogue.read([SQRT], [reply])

    def intent(message: str) -> str:
        return decide(message, after, scope).intent

    assert intent(MULTI_HEAD) == "new_in_lesson"
    assert decide(MULTI_HEAD, after, scope).about == "multi-head?"  # not the sqrt question
    assert intent("why?") == "continue"
    assert intent("and in code?") == "continue"
    assert intent("i don't get it") == "confused"
    assert intent("can you explain that another way?") == "confused"
    assert intent("can you say that again?") == "repeat"
    assert intent("unrelated, but how does lora fine-tuning work?") == "leave_lesson"
    assert decide("what is a causal mask?", Dialogue(), scope).intent == "new_in_lesson"
    assert set(INTENTS) == {"continue", "new_in_lesson", "leave_lesson", "repeat", "confused"}


async def test_no_fixed_opener_and_no_two_replies_begin_alike(runner: TutorRunner) -> None:
    chat = await talk(
        runner,
        "self-attention",
        [SQRT, "why?", "how does the cost scale with sequence length?", MULTI_HEAD, "why?"],
    )
    openings = [first_sentence(t.reply) for t in chat.turns]
    for opening in openings:
        assert not opening.startswith("Let me"), opening  # before: every reply
        assert opening != "Let's reason it through with the course material."
    assert all(a != b for a, b in itertools.pairwise(openings)), openings


async def test_an_answer_quotes_its_own_section_in_whole_sentences(runner: TutorRunner) -> None:
    reply = (await talk(runner, "self-attention", [SQRT])).turns[0].reply
    cited = [c.heading_path[0] for c in citations(reply)]
    assert "Cost and common pitfalls" not in cited, reply  # before: spliced in
    prose = strip_blocks(reply).split("```")[0::2]  # outside code blocks
    quoted = [
        line.strip()
        for part in prose
        for block in re.split(r"\n\s*\n", part)
        if "_(Source:" in block
        for line in block.splitlines()
        if line.strip() and not line.startswith("_(Source")
    ]
    assert quoted
    for text in quoted:
        assert re.search(r"[.!?][)\]\"'’”*_`]*$", text), text  # before: "...its square root."
        assert not text.startswith("Forgetting"), text  # a bullet of a list, not a sentence


async def test_reading_suggestions_only_about_the_question(runner: TutorRunner) -> None:
    chat = await talk(
        runner,
        "self-attention",
        [SQRT, "and in code?", "does this matter more when the model is scaled up?"],
    )
    for turn in chat.turns:
        assert "Tokenizer" not in turn.reply, turn.reply  # before: a tokenizer video at turn 3
    asked = await talk(runner, "self-attention", ["any videos on tokenization?"])
    cards = re.findall(r"<resource>(.*?)</resource>", asked.turns[0].reply, re.DOTALL)
    assert cards and any("Tokenizer" in json.loads(c)["title"] for c in cards)


# --- an authored course whose reference notes repeat the lesson ----------------------------------

_LESSON = """# Caching

## Why cache

A cache keeps the result of an expensive call so the next identical call returns at once. The
first call pays the full cost and every later call with the same arguments is nearly free.

## Invalidation

A cached value goes stale when the data behind it changes. Expiry times and explicit deletes
are the two usual ways to invalidate an entry.
"""


def _authored_course(content: Path) -> None:
    course = content / "authored"
    (course / "lessons").mkdir(parents=True)
    (course / "enrichment").mkdir()
    (course / "lessons" / "caching.md").write_text(_LESSON, encoding="utf-8")
    # What an upload's notes often are: the lesson's own paragraphs again, under other headings.
    why, stale = (part.split("\n\n", 1)[1] for part in _LESSON.split("## ")[1:])
    notes = (
        "# Caching notes\n\n## Caching in practice\n\nCaches trade memory for time in every "
        f"layer of a system.\n\n{why}\n## Keeping a cache correct\n\n{stale}"
    )
    (course / "enrichment" / "caching_reference_kb.md").write_text(notes, encoding="utf-8")
    manifest: dict[str, Any] = {
        "slug": "authored",
        "title": "Authored caching course",
        "domain": "software",
        "modules": [
            {
                "title": "Basics",
                "lessons": [
                    {"slug": "caching", "title": "Caching", "content_file": "lessons/caching.md"}
                ],
            }
        ],
    }
    (course / "course.json").write_text(json.dumps(manifest), encoding="utf-8")


async def test_a_paragraph_in_the_lesson_and_its_notes_is_quoted_once(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    _authored_course(settings.content_dir)
    migrate.upgrade(settings)
    run_seed(settings)
    database = Database(settings)
    try:
        runner = TutorRunner(settings=settings, database=database, model=offline_engine())
        chat = await talk(runner, "caching", ["why does a cache make the next call free?"])
    finally:
        database.dispose()
    reply = chat.turns[0].reply
    sentences = [
        s.strip().lower()
        for p in paragraphs(reply)
        for s in re.split(r"(?<=[.!?])\s+", p)
        if len(s.split()) > 3
    ]
    assert sentences and len(sentences) == len(set(sentences)), reply  # before: twice


# --- the held dialogues --------------------------------------------------------------------------


def _dialogues() -> list[dict[str, Any]]:
    if not DIALOGUES.is_file():
        return []
    return list(yaml.safe_load(DIALOGUES.read_text(encoding="utf-8"))["dialogues"])


def _split() -> dict[str, Any]:
    return dict(yaml.safe_load(SPLITS.read_text(encoding="utf-8"))["dialogues"])


def test_the_dialogues_are_split_by_lesson_as_the_rule_draws_them() -> None:
    dialogues = _dialogues()
    if not dialogues:
        pytest.skip("benchmarks/tutor/dialogues.yaml is not there yet")
    split = _split()
    lessons: dict[str, set[str]] = {}
    for dialogue in dialogues:
        lessons.setdefault(dialogue["course"], set()).add(dialogue["lesson"])
    for course, ids in lessons.items():
        ranked = sorted(ids, key=lambda i: hashlib.sha256(i.encode()).hexdigest())
        dev = ranked[: len(ranked) // 2]
        assert sorted(split["dev"][course]) == sorted(dev), course
        assert sorted(split["sealed"][course]) == sorted(ranked[len(ranked) // 2 :]), course


def _held() -> list[Any]:
    split = _split() if SPLITS.is_file() else {"dev": {}, "sealed": {}}
    halves = {
        lesson: half for half in ("dev", "sealed") for ls in split[half].values() for lesson in ls
    }
    return [
        pytest.param(d, id=f"{halves.get(d['lesson'], 'unsplit')}-{d['id']}") for d in _dialogues()
    ]


@pytest.mark.parametrize("dialogue", _held())
async def test_a_held_dialogue_never_repeats_a_reply(
    runner: TutorRunner, dialogue: dict[str, Any]
) -> None:
    """Both halves: the property holds everywhere (the sealed half only ever asserts it; no rule
    was tuned on its text). A reply shares no paragraph with an earlier reply unless the turn
    asks to repeat, and no reply begins with the previous reply's first sentence."""
    context = runner.context(lesson=dialogue["lesson"], mode="default", explore=False)
    transcript = Transcript(
        lesson=dialogue["lesson"], mode="default", explore=False, engine="offline"
    )
    for turn in dialogue["turns"]:
        assert turn["intent"] in INTENTS
        record = await runner.turn(context, transcript.history(), turn["learner"])
        replies = [t.reply for t in transcript.turns]
        assert record.reply.strip(), turn
        if turn["intent"] != "repeat":
            assert shared_paragraphs(record.reply, replies) == set(), (turn, record.reply)
        if replies:
            assert first_sentence(record.reply) != first_sentence(replies[-1]), turn
        transcript.turns.append(record)


async def decided(runner: TutorRunner, half: str) -> tuple[int, int]:
    """(right, turns) of the turn decider on one half's dialogues, each run through the tutor
    so the decider reads the conversation the tutor really had."""
    lessons = {lesson for ls in _split()[half].values() for lesson in ls}
    right = total = 0
    for dialogue in _dialogues():
        if dialogue["lesson"] not in lessons:
            continue
        context = runner.context(lesson=dialogue["lesson"], mode="default", explore=False)
        transcript = Transcript(
            lesson=dialogue["lesson"], mode="default", explore=False, engine="offline"
        )
        for turn in dialogue["turns"]:
            asked = [t.learner for t in transcript.turns]
            replies = [t.reply for t in transcript.turns]
            decision = decision_of(context, asked, replies, turn["learner"])
            right += decision.intent == turn["intent"]
            total += 1
            transcript.turns.append(
                await runner.turn(context, transcript.history(), turn["learner"])
            )
    return right, total


# The development half's intent accuracy when decision 0048 was written (112 of 130): a floor,
# so a later change to the decider cannot lower it unnoticed. The sealed half is not asserted.
DEV_INTENTS_RIGHT = 112


async def test_the_decider_keeps_its_development_accuracy(runner: TutorRunner) -> None:
    if not _dialogues():
        pytest.skip("benchmarks/tutor/dialogues.yaml is not there yet")
    right, total = await decided(runner, "dev")
    assert total == 130
    assert right >= DEV_INTENTS_RIGHT, f"{right}/{total}"


def test_the_model_tutors_prompt_asks_to_follow_the_conversation() -> None:
    from tutorgraph.tutor.context import TutorContext
    from tutorgraph.tutor.prompts import build_exploration_prompt, build_system_prompt

    context = TutorContext(lesson_title="Self-attention", lesson_content="# Self-attention")
    for prompt in (
        build_system_prompt(context, ["search_course"]),
        build_exploration_prompt(context.model_copy(update={"exploration_mode": True}), []),
    ):
        assert "Follow the conversation" in prompt and "Never repeat yourself" in prompt
        assert "no fixed opener" in prompt
