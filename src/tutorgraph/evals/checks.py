"""Deterministic checks of a tutor transcript: the behaviours a scenario expects (`expect`), and
the pedagogy checks that apply to every conversation. None needs a model.

Where a reply "answers from" is read off its citations (`_(Source: lesson › heading)_` and the
"From lesson › heading:" line above course code), so the checks work for any engine that cites
the way the prompts ask."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tutorgraph.evals.runner import Transcript, TurnRecord
from tutorgraph.evals.scenario import Expectation, Scenario
from tutorgraph.text.markdown import sentences
from tutorgraph.text.query import stem_set
from tutorgraph.tutor.blocks import QuizBlock, parse_blocks, strip_blocks
from tutorgraph.tutor.compose import Cited, citations
from tutorgraph.tutor.leaks import states_answer

ANALOGY = re.compile(
    r"\b(think of|imagine|picture (it|this|a)|like an? |analog|as if|similar to|is like)\b", re.I
)
BACKWARD = re.compile(
    r"\b(earlier|as we (saw|said)|you (asked|said|mentioned|guessed)|your (question|guess|answer|"
    r"idea)|going back|back to|building on|same (idea|point|section)|again|still|as before|"
    r"we (just|already)|that (idea|picture|analogy)|the previous)\b",
    re.I,
)
REDIRECT = re.compile(
    r"(couldn't find|could not find|found nothing|not covered|doesn't cover|does not cover|"
    r"isn't covered|outside (the|this|these) course|won't guess|not something (the|this) course)",
    re.I,
)
CONFUSED = re.compile(
    r"\b(don'?t (get|understand)|still (don'?t|dont|confused|lost)|confus|lost|makes no sense|"
    r"what\?|huh|not following|simpler)\b",
    re.I,
)
SIMPLER_BY = 0.9  # a simpler explanation: at most this share of the earlier one's difficulty
SAME_WORDS = 0.3  # without citations: shared content words that make it the same topic


@dataclass(frozen=True)
class CheckContext:
    """What checks need to know beyond the transcript: lesson titles by slug, course titles."""

    titles: dict[str, str]
    course_titles: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CheckResult:
    name: str
    turn: int
    passed: bool
    detail: str = ""


def run_expectations(
    scenario: Scenario, transcript: Transcript, context: CheckContext
) -> list[CheckResult]:
    results = []
    for item in scenario.expect:
        check = CHECKS[item.check]
        if item.turn > len(transcript.turns):
            results.append(CheckResult(item.check, item.turn, False, "the turn never happened"))
            continue
        passed, detail = check(transcript, item, context, scenario)
        results.append(CheckResult(item.check, item.turn, passed, detail))
    return results


def pedagogy(transcript: Transcript) -> list[CheckResult]:
    """Checks that hold for every conversation: a confused learner gets a simpler explanation of
    the same thing; a short follow-up is answered in the conversation's terms."""
    results = []
    for index, turn in enumerate(transcript.turns[1:], start=1):
        before = transcript.turns[index - 1]
        if CONFUSED.search(turn.learner) and _teaches(before.reply):
            same = _same_concept(turn.reply, before.reply)
            simpler = difficulty(turn.reply) <= SIMPLER_BY * difficulty(before.reply)
            results.append(
                CheckResult(
                    "confusion_gets_simpler",
                    index + 1,
                    same and simpler,
                    f"same concept {same}, simpler {simpler}",
                )
            )
        elif _is_follow_up(turn.learner) and _teaches(before.reply):
            same = _same_concept(turn.reply, before.reply) or bool(BACKWARD.search(turn.reply))
            results.append(CheckResult("follow_up_in_context", index + 1, same))
    return results


# --- helpers -------------------------------------------------------------------------------------


def _reply(transcript: Transcript, turn: int) -> TurnRecord:
    return transcript.turns[turn - 1]


def _teaches(reply: str) -> bool:
    return bool(citations(reply))


def _is_follow_up(learner: str) -> bool:
    words = learner.split()
    referent = re.search(r"\b(it|that|this|those|these|them|the other|why)\b", learner, re.I)
    return len(words) <= 8 and bool(referent) and len(stem_set(learner)) <= 3


def _cited(reply: str) -> set[tuple[str, str]]:
    return {(c.lesson_title, c.heading) for c in citations(reply)}


def _same_concept(reply: str, earlier: str) -> bool:
    mine, theirs = _cited(reply), _cited(earlier)
    if mine and theirs:
        return bool(mine & theirs)
    a, b = stem_set(strip_blocks(reply)), stem_set(strip_blocks(earlier))
    return bool(a and b) and len(a & b) / min(len(a), len(b)) >= SAME_WORDS


def difficulty(reply: str) -> float:
    """Mean words per sentence plus three per symbol or code mark per sentence."""
    prose = strip_blocks(reply)
    found = sentences(prose) or [prose]
    words = sum(len(s.split()) for s in found) / len(found)
    symbols = len(re.findall(r"[$\\^_{}=×√`]", prose)) / len(found)
    return words + 3 * symbols


def _heading_matches(cited: Cited, wanted: list[str], title: str | None) -> bool:
    if title is not None and cited.lesson_title != title:
        return False
    return any(h in cited.heading_path for h in wanted)


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


# --- the checks ---------------------------------------------------------------------------------

Check = Callable[[Transcript, Expectation, CheckContext, Scenario], tuple[bool, str]]


def grounded(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    reply = _reply(t, e.turn).reply
    return bool(citations(reply) or parse_blocks(reply, "quiz", QuizBlock)), ""


def heading(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    lesson = e.args.get("lesson") or (None if s.explore else s.lesson)
    title = c.titles.get(lesson) if lesson else None
    found = citations(_reply(t, e.turn).reply)
    ok = any(_heading_matches(cited, list(e.args["any"]), title) for cited in found)
    return ok, "cited: " + "; ".join(f"{x.lesson_title} › {x.heading}" for x in found[:3])


def lesson(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    title = c.titles.get(str(e.args["slug"]), str(e.args["slug"]))
    reply = _reply(t, e.turn).reply
    return any(x.lesson_title == title for x in citations(reply)) or title in reply, ""


def same_concept(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    earlier = _reply(t, int(e.args["as_turn"])).reply
    return _same_concept(_reply(t, e.turn).reply, earlier), ""


def simpler(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    now, before = _reply(t, e.turn).reply, _reply(t, int(e.args["than_turn"])).reply
    same = _same_concept(now, before)
    a, b = difficulty(now), difficulty(before)
    return same and a <= SIMPLER_BY * b, f"difficulty {a:.1f} vs {b:.1f}, same concept {same}"


def uses_conversation(
    t: Transcript, e: Expectation, c: CheckContext, s: Scenario
) -> tuple[bool, str]:
    reply = _reply(t, e.turn).reply
    earlier = [turn.reply for turn in t.turns[: e.turn - 1]]
    if BACKWARD.search(strip_blocks(reply)):
        return True, "refers back"
    return any(_same_concept(reply, before) for before in earlier), "builds on an earlier reply"


def asks_question(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    reply = _reply(t, e.turn).reply
    return "?" in strip_blocks(reply) or bool(parse_blocks(reply, "quiz", QuizBlock)), ""


def no_reveal(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    return not states_answer(_reply(t, e.turn).reply, str(e.args["answer"])), ""


def reveals(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    reply = _reply(t, e.turn).reply
    return any(states_answer(reply, str(a)) for a in e.args["any"]), ""


def quiz(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    return bool(parse_blocks(_reply(t, e.turn).reply, "quiz", QuizBlock)), ""


def code(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    return "```" in _reply(t, e.turn).reply, ""


def analogy(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    return bool(ANALOGY.search(strip_blocks(_reply(t, e.turn).reply))), ""


def redirect(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    return is_redirect(_reply(t, e.turn).reply), ""


def no_redirect(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    return not is_redirect(_reply(t, e.turn).reply), ""


def is_redirect(reply: str) -> bool:
    return not citations(reply) and bool(REDIRECT.search(reply))


def mentions(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    reply = _norm(_reply(t, e.turn).reply)
    return any(_norm(str(a)) in reply for a in e.args["any"]), ""


def not_mentions(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    ok, detail = mentions(t, e, c, s)
    return not ok, detail


def lists_courses(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    reply = _norm(_reply(t, e.turn).reply)
    missing = [title for title in c.course_titles if _norm(title) not in reply]
    return not missing, f"missing: {', '.join(missing)}" if missing else ""


def next_lesson(t: Transcript, e: Expectation, c: CheckContext, s: Scenario) -> tuple[bool, str]:
    title = c.titles.get(str(e.args["slug"]), str(e.args["slug"]))
    return _norm(title) in _norm(_reply(t, e.turn).reply), ""


CHECKS: dict[str, Check] = {
    "grounded": grounded,
    "heading": heading,
    "lesson": lesson,
    "same_concept": same_concept,
    "simpler": simpler,
    "uses_conversation": uses_conversation,
    "asks_question": asks_question,
    "no_reveal": no_reveal,
    "reveals": reveals,
    "quiz": quiz,
    "code": code,
    "analogy": analogy,
    "redirect": redirect,
    "no_redirect": no_redirect,
    "mentions": mentions,
    "not_mentions": not_mentions,
    "lists_courses": lists_courses,
    "next_lesson": next_lesson,
}


def summary(results: list[CheckResult]) -> dict[str, Any]:
    passed = sum(r.passed for r in results)
    return {
        "passed": passed,
        "total": len(results),
        "rate": passed / len(results) if results else 1.0,
    }
