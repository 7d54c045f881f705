"""The interview's nodes. Each reads the state through a context builder, acts (asks a model,
or the offline engine, through `agents`), and returns the slice of state it changes. Only
`decide` chooses what comes next; the acting nodes (greeting, question, followup, transition,
evaluation, closing) record themselves as `last_node`, the input nodes do not."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from itertools import islice
from typing import Any, cast

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from tutorgraph.grading.types import GradingRequest, KnownMisconception
from tutorgraph.interview import agents, dedup, evaluation, planner
from tutorgraph.interview.context import (
    InterviewContext,
    build_conversation_context,
    build_decision_context,
    primary_questions,
    technical_asked,
)
from tutorgraph.interview.intent import ACTIVE_CONFIDENCE
from tutorgraph.interview.resume import anchors as resume_anchors
from tutorgraph.interview.resume import exploration as new_exploration
from tutorgraph.interview.router import COVERAGE_TARGET
from tutorgraph.interview.router import decide as decide_next
from tutorgraph.interview.schemas import IntentRequest, UtteranceRequest
from tutorgraph.interview.state import (
    Answer,
    InterviewInput,
    InterviewState,
    Message,
    QuestionRecord,
    ResumeExploration,
    Scorecard,
    UserIntent,
    empty_sandbox,
)
from tutorgraph.knowledge import get_domain
from tutorgraph.knowledge.grading_context import enrich_request

log = logging.getLogger(__name__)
Ctx = Runtime[InterviewContext]
Update = dict[str, Any]
MAX_ATTEMPTS = 6  # candidate questions tried before giving up on a target kind
MAX_CHECKPOINTS = 50


def initialize(state: InterviewInput) -> Update:
    """The resume's anchors, and every field at its start."""
    found = resume_anchors(state["resume_structured"])
    return {
        "turn_count": 0,
        "conversation_history": [],
        "answers": [],
        "questions_asked": [],
        "current_question": None,
        "current_record": None,
        "followups_in_a_row": 0,
        "resume_exploration": new_exploration(found),
        "skipped_anchors": [],
        "detected_intents": [],
        "active_user_request": None,
        "sandbox": empty_sandbox(),
        "nudged_at_runs": 0,
        "phase": "intro",
        "last_node": "initialize",
        "next_node": None,
        "decision_reason": "",
        "scorecard": None,
        "ended_because": "",
        "checkpoints": [_mark("initialize")],
    }


def user_input(state: InterviewState, runtime: Ctx) -> Update:
    """Wait for the candidate (an interrupt); record the answer and its quality."""
    value = interrupt({"type": "interview", "question": state["current_question"]})
    text, kind = _input(value)
    update: Update = {}
    if kind == "join":
        return update
    if kind == "end":  # the candidate pressed "End interview": a stop request, not an answer
        stop: UserIntent = {
            "type": "stop",
            "confidence": 1.0,
            "extracted_from": "",
            "turn": state["turn_count"],
            "metadata": {"cue": "ended by the candidate"},
        }
        return update | {
            "detected_intents": [*state["detected_intents"], stop],
            "active_user_request": stop,
        }
    turn = state["turn_count"] + 1
    message: Message = {"role": "candidate", "text": text, "node": None, "turn": turn}
    update |= {"turn_count": turn, "conversation_history": [message]}
    record = state["current_record"]
    if record is None:
        return update
    answer: Answer = {
        "question_id": record["id"],
        "text": text,
        "turn": turn,
        "quality": evaluation.answer_quality(text, skills=state["resume_structured"]["skills"]),
    }
    update["answers"] = [*state["answers"], answer]
    update["pending_grade"] = record.get("topic_id") is not None
    return update


async def grade_answer(state: InterviewState, runtime: Ctx) -> Update:
    """A technical answer is graded by the grading engine against its knowledge-base question;
    the code run since the question counts as part of the answer."""
    if not state.get("pending_grade"):
        return {}
    answers = list(state["answers"])
    answer = dict(answers[-1])
    record = state["current_record"]
    assert record is not None and record.get("topic_id") and record.get("domain")
    kb = get_domain(str(record["domain"]))
    topic = kb.topic(str(record["topic_id"]))
    question = next(q for q in topic.questions if q.text == record.get("kb_text", record["text"]))
    code = _code_since(state, record["asked_at_turn"])
    text = str(answer["text"]) + (f"\n\n```python\n{code}\n```" if code else "")
    request = GradingRequest(
        question=question.text,
        reference_answer=question.reference_answer,
        answer=text,
        rubric=list(question.rubric),
        misconceptions=[
            KnownMisconception(id=m.id, description=m.description, cues=list(m.cues))
            for m in topic.misconceptions
        ],
        concept=topic.id,
    )
    verdict, _warnings = await runtime.context.evaluator.verdict(enrich_request(request))
    answer["score"] = verdict.score
    answer["quality"] = round(verdict.score, 2)
    answer["misconceptions"] = list(verdict.misconceptions)
    answer["feedback"] = verdict.reasoning[:500]
    answers[-1] = cast(Answer, answer)
    return {"answers": answers, "pending_grade": False}


async def detect_user_intent(state: InterviewState, runtime: Ctx) -> Update:
    """Classify the candidate's last message; an intent above the threshold becomes the active
    request `decide` honours first."""
    last = state["conversation_history"][-1] if state["conversation_history"] else None
    if last is None or last["role"] != "candidate" or last["turn"] != state["turn_count"]:
        return {}
    request = IntentRequest(text=last["text"], last_question=state["current_question"] or "")
    out = await agents.detect_intent(runtime.context.model, request)
    intent: UserIntent = {
        "type": out.type,
        "confidence": out.confidence,
        "extracted_from": last["text"][:300],
        "turn": last["turn"],
        "metadata": {"cue": out.cue},
    }
    active = out.type != "no_intent" and out.confidence > ACTIVE_CONFIDENCE
    update: Update = {
        "detected_intents": [*state["detected_intents"], intent],
        "active_user_request": intent if active else None,
    }
    if active and state["answers"] and state["answers"][-1]["turn"] == last["turn"]:
        answers = list(state["answers"])
        answers[-1] = cast(Answer, {**answers[-1], "intent": out.type})
        update["answers"] = answers
    return update


def decide(state: InterviewState, runtime: Ctx) -> Update:
    decision = decide_next(build_decision_context(state, now=runtime.context.clock()))
    return {"next_node": decision.action, "decision_reason": decision.reason}


def route(state: InterviewState) -> str:
    """The edge out of `decide`: the action it chose."""
    return state["next_node"] or "transition"


async def greeting(state: InterviewState, runtime: Ctx) -> Update:
    resume = state["resume_structured"]
    text = await agents.say(
        runtime.context.model,
        UtteranceRequest(
            kind="greeting",
            role=state["role"],
            level=state["level"],
            candidate_name=resume["name"],
            technical_planned=bool(planner.testable_skills(resume)),
            anchors_total=len(state["resume_exploration"]),
        ),
    )
    return _spoken(state, "greeting", text) | {"active_user_request": None}


async def question(state: InterviewState, runtime: Ctx) -> Update:
    """Ask the next question: a technical one when asked for or due, else a resume anchor's
    aspect; each candidate is worded, then cleared by the dedup layers before it is asked."""
    request = state["active_user_request"]
    wants_technical = request is not None and request["type"] == "technical_assessment"
    if wants_technical or _technical_due(state):
        asked_record = await _technical_question(state, runtime, fallback=wants_technical)
        if asked_record is not None:
            return _asked(state, asked_record, phase="technical")
    record = await _resume_question(state, runtime)
    if record is None:  # nothing new left about the resume: a technical question if any
        record = await _technical_question(state, runtime, fallback=True)
    if record is None:
        text = "I've asked everything I planned. Is there anything you'd like to add?"
        record = _record(state, text, "followup", None, None)
        return _asked(state, record, phase=state["phase"])
    phase = "technical" if record["source"] == "knowledge_base" else "exploration"
    return _asked(state, record, phase=phase)


async def followup(state: InterviewState, runtime: Ctx) -> Update:
    """A clarification (asked for), a nudge (the sandbox shows struggle) or a probe (a thin
    answer), about the current question."""
    current = state["current_record"]
    request = state["active_user_request"]
    answers = state["answers"]
    last_answer = answers[-1]["text"] if answers else ""
    technical = current is not None and bool(current.get("topic_id"))
    anchor = (
        state["resume_exploration"].get(current["resume_anchor"] or "")
        if current and not technical
        else None
    )
    sandbox = state["sandbox"]
    if request is not None and request["type"] == "clarify":
        kind = "clarify"
    elif set(sandbox["signals"]) & {"struggling", "syntax_errors"} and len(
        sandbox["submissions"]
    ) != state.get("nudged_at_runs", 0):
        kind = "nudge"
    else:
        kind = "followup"
    last_run = ""
    if sandbox["submissions"]:
        run = sandbox["submissions"][-1]
        error = (run["stderr"].strip().splitlines() or [""])[-1]
        last_run = f"{run['outcome']}{': ' + error if error else ''}"[:200]
    text = await agents.say(
        runtime.context.model,
        UtteranceRequest(
            kind=kind,
            role=state["role"],
            level=state["level"],
            anchor_label=anchor["label"] if anchor else "",
            anchor_type=anchor["anchor_type"] if anchor else "",
            aspect=current["aspect"] if current and not technical else None,
            previous_question=_original_question(state),
            last_answer=last_answer,
            reason=state["decision_reason"],
            signals=list(sandbox["signals"]),
            last_run=last_run,
            conversation=_recent(state),
        ),
    )
    source = "followup" if kind == "followup" else "clarification"
    record = _record(
        state,
        text,
        source,
        current["resume_anchor"] if current else None,
        current["aspect"] if current else None,
    )
    if current is not None and current.get("topic_id"):
        record["topic_id"] = current.get("topic_id")
        record["domain"] = current.get("domain")
        record["kb_text"] = current.get("kb_text", current["text"])
        record["topic_title"] = current.get("topic_title", "")
    update = _spoken(state, "followup", text) | {
        "questions_asked": [*state["questions_asked"], record],
        "current_question": text,
        "current_record": record,
        "followups_in_a_row": state["followups_in_a_row"] + 1,
        "active_user_request": None,
    }
    if kind == "nudge":
        update["nudged_at_runs"] = len(sandbox["submissions"])
    return update


async def transition(state: InterviewState, runtime: Ctx) -> Update:
    """Acknowledge the answer and announce what comes next; a change of topic skips the
    current anchor for the rest of the interview."""
    request = state["active_user_request"]
    skipped = list(state["skipped_anchors"])
    current = state["current_record"]
    if request is not None and request["type"] == "change_topic" and current is not None:
        anchor = current["resume_anchor"]
        if anchor is not None and anchor not in skipped:
            skipped.append(anchor)
    peek = dict(state) | {"skipped_anchors": skipped, "active_user_request": None}
    following = ""
    if _technical_due(cast(InterviewState, peek)):
        following = (
            "another technical question"
            if state["phase"] == "technical"
            else "some technical questions"
        )
    if not following:
        target = next(
            planner.resume_targets(
                state["resume_structured"],
                state["resume_exploration"],
                skipped=skipped,
                avoid=current["resume_anchor"] if current else None,
            ),
            None,
        )
        same = (
            target is not None
            and current is not None
            and target.anchor_id == current["resume_anchor"]
        )
        following = "" if target is None or same else target.label
    text = await agents.say(
        runtime.context.model,
        UtteranceRequest(
            kind="transition",
            role=state["role"],
            level=state["level"],
            next_label=following,
            reason=state["decision_reason"],
            variant=state["turn_count"],
            answer_quality=state["answers"][-1]["quality"] if state["answers"] else None,
            conversation=_recent(state),
        ),
    )
    return _spoken(state, "transition", text) | {
        "skipped_anchors": skipped,
        "followups_in_a_row": 0,
        "active_user_request": None,
    }


async def evaluation_node(state: InterviewState, runtime: Ctx) -> Update:
    """The scorecard: five scores with evidence, strengths, weaknesses, recommendations."""
    computed, topics = evaluation.computed_scorecard(state)
    transcript = "\n".join(
        f"{m['role'].upper()}: {m['text']}" for m in state["conversation_history"]
    )
    written = await agents.write_scorecard(
        runtime.context.model,
        agents.ScorecardRequest(
            role=state["role"], level=state["level"], computed=computed, transcript=transcript
        ),
    )
    card = cast(Scorecard, written.model_dump())
    card["topics_covered"] = topics
    card["questions_asked"] = len(primary_questions(state))
    card["ended_because"] = _ended_because(state)
    return {
        "scorecard": card,
        "ended_because": card["ended_because"],
        "phase": "closing",
        "last_node": "evaluation",
        "active_user_request": None,
        "checkpoints": _checkpoints(state, "evaluation"),
    }


async def closing(state: InterviewState, runtime: Ctx) -> Update:
    text = await agents.say(
        runtime.context.model,
        UtteranceRequest(kind="closing", role=state["role"], level=state["level"]),
    )
    return _spoken(state, "closing", text) | {"current_question": None, "phase": "closing"}


# --- helpers -------------------------------------------------------------------------------------


def _input(value: object) -> tuple[str, str]:
    """What resumed the wait: (text, kind), kind being answer, join or end."""
    if isinstance(value, dict):
        return str(value.get("text", "")), str(value.get("kind", "answer"))
    return str(value), "answer"


def _technical_due(state: InterviewState) -> bool:
    resume = state["resume_structured"]
    if not planner.testable_skills(resume) or technical_asked(state) >= planner.TECHNICAL_QUESTIONS:
        return False
    exploration = state["resume_exploration"]
    explored = planner.explored_anchors(exploration)
    coverage = explored / len(exploration) if exploration else 1.0
    in_progress = state["phase"] == "technical"
    left = planner.resume_left(exploration, state["skipped_anchors"])
    return in_progress or coverage >= COVERAGE_TARGET or not left


async def _technical_question(
    state: InterviewState, runtime: Ctx, *, fallback: bool
) -> QuestionRecord | None:
    targets = planner.technical_targets(
        state["resume_structured"], state["level"], state["questions_asked"], fallback=fallback
    )
    for target in islice(targets, MAX_ATTEMPTS):
        text = await agents.say(
            runtime.context.model,
            UtteranceRequest(
                kind="technical",
                role=state["role"],
                level=state["level"],
                kb_question=target.text,
                topic_title=target.topic_title,
            ),
        )
        if await _blocked(state, runtime, text, None, None):
            continue
        record = _record(state, text, "knowledge_base", None, None)
        record["topic_id"] = target.topic_id
        record["domain"] = target.domain
        record["kb_text"] = target.text
        record["topic_title"] = target.topic_title
        skill_anchor = next(
            (
                a["anchor_id"]
                for a in state["resume_exploration"].values()
                if a["anchor_type"] == "skill" and a["label"].lower() == target.skill.lower()
            ),
            None,
        )
        if skill_anchor is not None:
            record["resume_anchor"] = skill_anchor
            record["aspect"] = "implementation"
        return record
    return None


async def _resume_question(state: InterviewState, runtime: Ctx) -> QuestionRecord | None:
    current = state["current_record"]
    targets = planner.resume_targets(
        state["resume_structured"],
        state["resume_exploration"],
        skipped=state["skipped_anchors"],
        avoid=current["resume_anchor"] if current else None,
    )
    recent = [q["text"] for q in state["questions_asked"][-8:]]
    for attempt, target in enumerate(islice(targets, MAX_ATTEMPTS)):
        text = await agents.say(
            runtime.context.model,
            UtteranceRequest(
                kind="resume",
                role=state["role"],
                level=state["level"],
                anchor_label=target.label,
                anchor_type=target.anchor_type,
                aspect=target.aspect,
                detail=target.detail,
                recent_questions=recent,
                variant=len(state["questions_asked"]) + attempt,
                conversation=_recent(state),
            ),
        )
        if await _blocked(state, runtime, text, target.anchor_id, target.aspect):
            continue
        return _record(state, text, "resume", target.anchor_id, target.aspect)
    return None


async def _blocked(
    state: InterviewState, runtime: Ctx, text: str, anchor: str | None, aspect: Any
) -> bool:
    asked = [q for q in state["questions_asked"] if q["source"] in ("resume", "knowledge_base")]
    scores = None
    similarity = runtime.context.similarity
    if similarity is not None and asked:
        try:
            scores = await similarity.scores(text, [q["text"] for q in asked])
        except Exception as exc:  # the embeddings endpoint failed: word overlap instead
            log.warning("embeddings unavailable (%s); using word overlap", type(exc).__name__)
    found = dedup.check(text, anchor=anchor, aspect=aspect, asked=asked, embedding_scores=scores)
    return found is not None


def _record(
    state: InterviewState, text: str, source: Any, anchor: str | None, aspect: Any
) -> QuestionRecord:
    return {
        "id": f"q{len(state['questions_asked']) + 1}",
        "text": text,
        "source": source,
        "resume_anchor": anchor,
        "aspect": aspect,
        "asked_at_turn": state["turn_count"],
        "topic_id": None,
        "domain": None,
    }


def _asked(state: InterviewState, record: QuestionRecord, *, phase: Any) -> Update:
    exploration = dict(state["resume_exploration"])
    anchor_id, aspect = record["resume_anchor"], record["aspect"]
    if anchor_id is not None and aspect is not None and anchor_id in exploration:
        anchor: ResumeExploration = dict(exploration[anchor_id])  # type: ignore[assignment]
        covered = sorted({*anchor["aspects_covered"], aspect})
        anchor["aspects_covered"] = covered
        anchor["depth_score"] = min(10, anchor["depth_score"] + 3)
        anchor["last_explored_turn"] = state["turn_count"]
        exploration[anchor_id] = anchor
    return _spoken(state, "question", record["text"]) | {
        "questions_asked": [*state["questions_asked"], record],
        "current_question": record["text"],
        "current_record": record,
        "resume_exploration": exploration,
        "followups_in_a_row": 0,
        "active_user_request": None,
        "phase": phase,
    }


def _spoken(state: InterviewState, node: str, text: str) -> Update:
    message: Message = {
        "role": "interviewer",
        "text": text,
        "node": node,
        "turn": state["turn_count"],
    }
    return {
        "conversation_history": [message],
        "last_node": node,
        "checkpoints": _checkpoints(state, node),
    }


def _checkpoints(state: InterviewState, node: str) -> list[str]:
    return [*state["checkpoints"], _mark(node)][-MAX_CHECKPOINTS:]


def _mark(node: str) -> str:
    return f"{node}@{datetime.now(UTC).isoformat(timespec='seconds')}"


def _recent(state: InterviewState) -> list[str]:
    return [f"{m['role']}: {m['text'][:500]}" for m in build_conversation_context(state)]


def _original_question(state: InterviewState) -> str:
    """The primary question the current exchange is about (a followup's own text is not)."""
    for record in reversed(state["questions_asked"]):
        if record["source"] in ("resume", "knowledge_base"):
            return record["text"]
    return state["current_question"] or ""


def _code_since(state: InterviewState, turn: int) -> str:
    runs = [s for s in state["sandbox"]["submissions"] if s["turn"] >= turn]
    return runs[-1]["code"] if runs else ""


def _ended_because(state: InterviewState) -> str:
    request = state["active_user_request"]
    if request is not None and request["type"] == "stop":
        return "You asked to stop; the scorecard covers what we discussed."
    reason = state["decision_reason"]
    return reason[:1].upper() + reason[1:] + "." if reason else "The interview ended."
