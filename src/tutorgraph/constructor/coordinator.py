"""The coordinator graph's nodes (spec: welcome, intake, route_action, dispatch, respond,
finalize, end_turn, and the sub-agent wrappers ingestion, structure, quiz, validation), plus
`review`: the human-in-the-loop gate, a LangGraph interrupt where the author edits and approves
the proposed structure and then the quiz bank. Turns are one pass: every path ends the turn."""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt
from pydantic import ValidationError

from tutorgraph.constructor import agents, readiness, steps, subgraphs
from tutorgraph.constructor.context import ConstructorContext
from tutorgraph.constructor.edits import (
    QUIZ_EDITS,
    STRUCTURE_EDITS,
    apply_quiz_edits,
    edit_structure,
    read_review_message,
)
from tutorgraph.constructor.pipelines import QuizState, ValidationState
from tutorgraph.constructor.router import ALLOWED, TURN_ENDING, confirms_publishing, fallback_action
from tutorgraph.constructor.state import (
    Action,
    ConstructorState,
    CourseStructure,
    Phase,
    ProgressEvent,
    QuizBank,
    ReadinessReport,
    SourceFile,
)
from tutorgraph.errors import InputError
from tutorgraph.wording import counted

WELCOME = (
    "Hello! I turn your material into a course with a quiz bank. Upload your files "
    "(Markdown, text, HTML, PDF or Word), tell me the course title if you have one, and I will "
    "read them, propose a structure for you to edit, write quiz questions for you to review, "
    "and check the course is ready to publish."
)
NOTHING_TO_READ = (
    "There are no new files to read: upload Markdown, text, HTML, PDF or Word files first."
)
REQUEST_FILES = (
    "I need some material first: upload Markdown, text, HTML, PDF or Word files "
    "(up to {mb} MB each)."
)


def _assistant(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


async def welcome(state: ConstructorState) -> ConstructorState:
    if state.get("initialized"):
        return {}
    return {
        "initialized": True,
        "phase": "collecting",
        "messages": [_assistant(WELCOME)],
        "files": [],
        "failures": [],
        "chunks": [],
        "pending_uploads": state.get("pending_uploads", []),
        "structure": None,
        "quiz_bank": None,
        "report": None,
    }


# "title: Shell tools", "the course is called Shell tools", "call it Shell tools": the author
# naming the course in chat (at any step, a review included).
_TITLE_SAID = re.compile(
    r"^\s*(?:(?:the\s+)?(?:course\s+)?title\s*(?:is|:|=)|call\s+(?:it|the\s+course)|"
    r"name\s+(?:it|the\s+course)|the\s+course\s+is\s+called)\s*[\"“']?(?P<title>[^\"”']{2,300}?)"
    r"[\"”']?\s*\.?\s*$",
    re.I,
)
NO_TITLE = (
    "Your files do not name the course. What is its title? Say “title: …” (or give it with "
    "--title on the command line)."
)


def title_said(message: str) -> str:
    """The course title an author's message gives ("title: X", "call it X"), or ""."""
    match = _TITLE_SAID.match(message)
    return match["title"].strip() if match else ""


async def intake(state: ConstructorState) -> ConstructorState:
    request = state.get("request") or {}
    message = str(request.get("message") or "").strip()
    update: ConstructorState = {"reply": "", "error": "", "review_note": ""}
    if message:
        update["messages"] = [*state.get("messages", []), {"role": "user", "content": message}]
    title = str(request.get("title") or "").strip() or title_said(message)
    if title:
        update["course_title"] = title[:300]
    return update


async def route_action(
    state: ConstructorState, runtime: Runtime[ConstructorContext]
) -> ConstructorState:
    """The action for this turn: an explicit allowed action from the page wins; otherwise the
    model proposes one, and anything outside the allowed set falls back to the deterministic
    choice for the phase."""
    request = state.get("request") or {}
    phase = state.get("phase", "collecting")
    allowed = ALLOWED[phase]
    message = str(request.get("message") or "")
    fallback = fallback_action(state, message)
    explicit = agents.valid_action(str(request.get("action") or ""))
    if explicit == "ingest" and not state.get("pending_uploads"):
        return _chosen(state, "request_files", NOTHING_TO_READ)
    if explicit is not None:
        if explicit in allowed:
            return _gated(state, explicit, "")
        return _chosen(state, "respond", _not_now(explicit, state))
    if not message.strip():  # nothing said (a new build, a title): no reply beyond the welcome
        return {"action": fallback if fallback not in TURN_ENDING else "respond", "reply": ""}
    output = await agents.coordinate(
        runtime.context.model,
        agents.CoordinatorRequest(
            phase=phase,
            allowed=list(allowed),
            message=message,
            files=_files_line(state.get("files", [])),
            structure=_structure_line(state.get("structure")),
            quiz=_quiz_line(state.get("quiz_bank")),
            readiness=_readiness_line(state.get("report")),
            fallback_action=fallback,
            fallback_reply="",
        ),
    )
    action = agents.valid_action(output.action)
    if action is None or action not in allowed:
        action = fallback
    return _gated(state, action, output.reply.strip())


def _gated(state: ConstructorState, action: Action, reply: str) -> ConstructorState:
    """Publishing a course below the bar needs the author's confirmation (`confirm` in the
    turn, or "publish anyway"): without it the turn says which checks failed. The readiness is
    computed again from the course as it is now, not taken from the last report."""
    if action != "publish":
        return _chosen(state, action, reply)
    request = state.get("request") or {}
    confirmed = bool(request.get("confirm")) or confirms_publishing(
        str(request.get("message") or "")
    )
    report = readiness.assess_state(state)
    if confirmed or report is None or report.ready:
        return _chosen(state, action, reply)
    return _chosen(state, "respond", below_the_bar(report))


def below_the_bar(report: ReadinessReport) -> str:
    """Why publishing waits for a confirmation, in the author's words."""
    failed = "; ".join(readiness.failed_checks(report))
    return (
        f"Not published yet: readiness is {report.readiness}/100 and the course is below the "
        f"bar ({failed}). Improve it, or press Publish anyway (or say “publish anyway”) to "
        "publish it as it is."
    )


def _chosen(state: ConstructorState, action: Action, reply: str) -> ConstructorState:
    """The turn's action; an action that ends the turn here (the spec's collect_info,
    request_files and respond go straight to end_turn) answers now, with the model's reply or
    the deterministic one when the model gave none."""
    if action not in TURN_ENDING:
        return {"action": action, "reply": reply}
    text = reply or _status_reply({**state, "action": action})
    return {
        "action": action,
        "reply": "",
        "messages": [*state.get("messages", []), _assistant(text)],
    }


async def dispatch(
    state: ConstructorState, runtime: Runtime[ConstructorContext]
) -> ConstructorState:
    step = steps.ACTION_STEP.get(str(state.get("action")), "")
    if step:
        runtime.context.progress(ProgressEvent(stage="coordinator", message=step))
    return {}


async def ingestion(
    state: ConstructorState, runtime: Runtime[ConstructorContext]
) -> ConstructorState:
    pending = state.get("pending_uploads", [])
    result = await subgraphs.INGESTION.ainvoke({"upload_ids": pending}, context=runtime.context)
    new_files: list[SourceFile] = result.get("files", [])
    replaced = {f.file_id for f in new_files}
    earlier = [f for f in state.get("files", []) if f.file_id not in replaced]
    # Files of a later upload turn come after the ones read before, in their upload order.
    new_files = [f.model_copy(update={"order": len(earlier) + i}) for i, f in enumerate(new_files)]
    files = earlier + new_files
    failures = [*state.get("failures", []), *result.get("failures", [])]
    # The chunks of files read before, and of the ones read now (a re-upload replaces its own).
    kept = [c for c in state.get("chunks", []) if c.file_id not in replaced]
    chunks = [*kept, *result.get("chunks", [])]
    phase: Phase = "ingested" if files else "collecting"
    reply = result.get("summary", "")
    if files:
        reply += " Shall I propose a structure? Say yes, or tell me the course title first."
    return {
        "files": files,
        "failures": failures,
        "chunks": chunks,
        "pending_uploads": [],
        "phase": phase,
        "structure": None,
        "quiz_bank": None,
        "report": None,
        "reply": reply.strip(),
    }


async def structure(
    state: ConstructorState, runtime: Runtime[ConstructorContext]
) -> ConstructorState:
    result = await subgraphs.STRUCTURE.ainvoke(
        {"files": state.get("files", []), "course_title": state.get("course_title", "")},
        context=runtime.context,
    )
    proposed: CourseStructure = result["structure"]
    title = state.get("course_title") or proposed.title
    return {
        "structure": proposed,
        "sections": result.get("sections", []),
        "course_title": title,
        "course_description": state.get("course_description") or proposed.description,
        "phase": "structure_review",
        "quiz_bank": None,
        "report": None,
        "review_note": "" if title else NO_TITLE,
    }


async def quiz(state: ConstructorState, runtime: Runtime[ConstructorContext]) -> ConstructorState:
    inputs: QuizState = {
        "structure": _need_structure(state),
        "sections": state.get("sections", []),
        "chunks": state.get("chunks", []),
    }
    result = await subgraphs.QUIZ.ainvoke(inputs, context=runtime.context)
    return {"quiz_bank": result["bank"], "phase": "quiz_review", "report": None, "review_note": ""}


async def validation(
    state: ConstructorState, runtime: Runtime[ConstructorContext]
) -> ConstructorState:
    inputs: ValidationState = {
        "files": state.get("files", []),
        "failures": state.get("failures", []),
        "structure": _need_structure(state),
        "sections": state.get("sections", []),
        "chunks": state.get("chunks", []),
        "bank": state.get("quiz_bank") or QuizBank(),
    }
    result = await subgraphs.VALIDATION.ainvoke(inputs, context=runtime.context)
    report: ReadinessReport = result["report"]
    if report.ready:
        reply = (
            f"Readiness {report.readiness}/100: ready to publish. Say publish when you are happy."
        )
    else:
        failed = "; ".join(readiness.failed_checks(report))
        reply = (
            f"Readiness {report.readiness}/100: not ready yet ({failed}). Publishing now will "
            "ask you to confirm."
        )
    return {"report": report, "phase": "validated", "reply": reply}


async def review(state: ConstructorState) -> ConstructorState:
    """Wait for the author (an interrupt), then apply their edits; approval leaves the gate. A
    message typed at the gate is read as approval or an edit, or refused with what can be said
    there (`edits.read_review_message`); it is never ignored."""
    phase = state.get("phase")
    kind = "structure" if phase == "structure_review" else "quiz"
    decision: Any = interrupt(
        {
            "kind": kind,
            "note": state.get("review_note", ""),
            "structure": _dump(state.get("structure")),
            "quiz_bank": _dump(state.get("quiz_bank")) if kind == "quiz" else None,
        }
    )
    decision = decision if isinstance(decision, dict) else {}
    message = str(decision.get("message") or "").strip()
    said = [*state.get("messages", [])]
    if message:
        said.append({"role": "user", "content": message})
    if message and title_said(message) and not decision.get("edits"):
        title = title_said(message)[:300]
        note = f"The course is now titled “{title}”."
        return {"course_title": title, "review_note": note, "messages": [*said, _assistant(note)]}
    if message and not decision.get("edits") and not decision.get("approve"):
        reading = read_review_message(message, kind, state.get("structure"), state.get("quiz_bank"))
        if reading.refusal:
            return {
                "review_note": reading.refusal,
                "messages": [*said, _assistant(reading.refusal)],
            }
        decision = {"edits": reading.edits, "approve": reading.approve}
    update = _reviewed(state, kind, decision)
    if not message:
        return update
    if update.get("phase") in (None, phase) and update.get("review_note"):
        said.append(_assistant(str(update["review_note"])))
    return {**update, "messages": said}


def _reviewed(state: ConstructorState, kind: str, decision: dict[str, Any]) -> ConstructorState:
    """The review decision applied: the structure's edits (each says what it did or why not)
    or the bank's, and approval when asked for and possible."""
    try:
        if kind == "structure":
            edits = STRUCTURE_EDITS.validate_python(decision.get("edits") or [])
            result = edit_structure(
                state["structure"],  # type: ignore[arg-type]
                edits,
                state.get("sections", []),
            )
            edited = result.structure
            update: ConstructorState = {"structure": edited}
            note = " ".join(result.notes)
            if decision.get("approve") and not result.refused:
                if any("cycle" in issue or "no topics" in issue for issue in edited.issues):
                    return {**update, "review_note": "; ".join(edited.issues)}
                return {
                    **update,
                    "phase": "structure_approved",
                    "review_note": "",
                    "reply": (
                        (note + " " if note else "")
                        + f"Structure approved: {counted(len(edited.units), 'unit')}, "
                        f"{counted(len(edited.topics), 'topic')}. Shall I write the quiz "
                        "questions?"
                    ),
                }
            if decision.get("approve"):
                note += " Not approved yet: an edit did not apply; approve again when it is right."
            return {**update, "review_note": note or _review_hint(decision)}
        q_edits = QUIZ_EDITS.validate_python(decision.get("edits") or [])
        bank = apply_quiz_edits(
            state["quiz_bank"],  # type: ignore[arg-type]
            q_edits,
            state.get("structure"),
        )
        if decision.get("approve"):
            return {"quiz_bank": bank, "phase": "quiz_approved", "review_note": ""}
        note = _applied(len(q_edits)) if q_edits else _review_hint(decision)
        return {"quiz_bank": bank, "review_note": note}
    except (InputError, ValidationError) as exc:
        return {"review_note": f"That edit did not apply: {short_error(exc)}"}


def _applied(edits: int) -> str:
    return f"{counted(edits, 'edit')} applied."


def _need_structure(state: ConstructorState) -> CourseStructure:
    structure = state.get("structure")
    if structure is None:
        raise InputError("there is no structure yet: build one first")
    return structure


def _review_hint(decision: dict[str, Any]) -> str:
    if decision.get("message"):
        return "Edit the proposal on the page, or approve it to go on."
    return ""


# An edit's fields in the author's words (a refused edit names the field as the page does).
FIELD_WORDS = {
    "text": "the question",
    "reference_answer": "the model answer",
    "key_points": "the key points",
    "topic_id": "the lesson",
    "bloom_level": "the level",
    "title": "the title",
    "item_id": "the question",
    "difficulty": "the difficulty",
}


def short_error(exc: Exception) -> str:
    """A refused edit's reason in one line, naming the field in the author's words."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        named = [str(p) for p in first["loc"] if str(p) in FIELD_WORDS]
        field = FIELD_WORDS[named[-1]] if named else "the edit"
        message = str(first["msg"])
        if first["type"] in ("string_too_short", "string_too_long"):
            limit = (first.get("ctx") or {}).get(
                "min_length" if "short" in first["type"] else "max_length"
            )
            need = "at least" if "short" in first["type"] else "at most"
            message = f"needs {need} {counted(int(limit or 0), 'character')}"
        elif first["type"] == "missing":
            message = "is missing"
        return f"{field} {message}"
    return str(exc)


def _dump(value: Any) -> Any:
    return value.model_dump(mode="json") if value is not None else None


async def respond(state: ConstructorState) -> ConstructorState:
    text = state.get("reply") or _status_reply(state)
    return {"messages": [*state.get("messages", []), _assistant(text)], "reply": ""}


async def finalize(
    state: ConstructorState, runtime: Runtime[ConstructorContext]
) -> ConstructorState:
    slug = await runtime.context.publish(state)
    text = (
        f"Published: the course is at /learn/{slug}. It is private to you; share it from its "
        "page when you want others to see it."
    )
    return {
        "course_slug": slug,
        "phase": "published",
        "messages": [*state.get("messages", []), _assistant(text)],
    }


async def end_turn(state: ConstructorState) -> ConstructorState:
    return {"request": {}}


def _status_reply(state: ConstructorState) -> str:
    """The fallback reply: where the build stands and what the author can do next."""
    phase = state.get("phase", "collecting")
    if state.get("action") == "request_files" or phase == "collecting":
        return REQUEST_FILES.format(mb=20)
    parts = [_files_line(state.get("files", []))]
    if state.get("structure") is not None:
        parts.append(_structure_line(state.get("structure")))
    if state.get("quiz_bank") is not None:
        parts.append(_quiz_line(state.get("quiz_bank")))
    if state.get("report") is not None:
        parts.append(_readiness_line(state.get("report")))
    nxt = {
        "ingested": "Next: say yes and I will propose a structure.",
        "structure_approved": "Next: say yes and I will write the quiz questions.",
        "quiz_approved": "Next: say yes and I will check the course is ready.",
        "validated": "Next: publish, or go back and regenerate the quiz.",
        "published": "The course is published; upload more files to extend it.",
    }.get(phase, "")
    return " ".join(p for p in [*parts, nxt] if p)


# What each action does, in the words of "I can't ... yet".
ACTION_WORDS = {
    "ingest": "read your files",
    "build_structure": "propose a structure",
    "generate_quiz": "write the quiz questions",
    "validate": "check the course",
    "publish": "publish",
}


def _not_now(action: str, state: ConstructorState) -> str:
    doing = ACTION_WORDS.get(action, action.replace("_", " "))
    return f"I can't {doing} yet. " + _status_reply(state)


def _files_line(files: list[SourceFile]) -> str:
    if not files:
        return "No files read yet."
    return f"{counted(len(files), 'file')} read ({counted(sum(f.words for f in files), 'word')})."


def _structure_line(structure: CourseStructure | None) -> str:
    if structure is None:
        return "No structure yet."
    return (
        f"Structure: {counted(len(structure.units), 'unit')}, "
        f"{counted(len(structure.topics), 'topic')}."
    )


def _quiz_line(bank: QuizBank | None) -> str:
    if bank is None:
        return "No quiz bank yet."
    return f"Quiz bank: {counted(len(bank.kept()), 'question')}."


def _readiness_line(report: ReadinessReport | None) -> str:
    if report is None:
        return "Not validated yet."
    return f"Readiness {report.readiness}/100."
