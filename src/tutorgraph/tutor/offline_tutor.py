"""The offline engine's tutor (agents `tutor` and `explore`). It works like a model that uses
tools: the first round asks the agent loop for `search_course` (and, when it helps, other tools);
the next round reads the tool results from the messages and answers Socratically from them, citing
lesson and heading. It never says anything the course material does not contain, and it says so
when a question is outside the material."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from tutorgraph.errors import StructuredOutputError
from tutorgraph.llm import (
    Finish,
    Message,
    OfflineEngine,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolSpec,
)
from tutorgraph.offload import run_cpu_bound
from tutorgraph.text.query import expand, stem_set
from tutorgraph.tutor import _explore as explore
from tutorgraph.tutor import _follow_up as follow_up
from tutorgraph.tutor import compose
from tutorgraph.tutor._passages import Passage, headings, relevant, same_words, sentence_key
from tutorgraph.tutor.context import TutorContext
from tutorgraph.tutor.dialogue import (
    AND_FOR,
    NOT_GUESSING,
    Dialogue,
    LessonScope,
    TurnDecision,
    asks_to_repeat,
    decide,
    move_of,
    own_words,
    query_for,
)
from tutorgraph.tutor.parameters import tutor_parameters
from tutorgraph.wording import counted

TUTOR_AGENT = "tutor"
EXPLORE_AGENT = "explore"

Intent = Literal["greeting", "quiz", "resources", "progress", "question"]

_QUIZ = re.compile(r"\b(quiz|test me|check my understanding|question me|practice question)\b", re.I)
_READING = r"(resources?|videos?|links?|books?|papers?|articles?|tutorials?|sources|references)"
_RESOURCES = re.compile(  # asking for further reading, not "the resource leaks"
    r"\b(further reading|read more|reading list|learn more|what should i (read|watch)|"
    rf"(any|some|more|good|recommended|other|extra|additional|best|external|useful) {_READING}|"
    rf"{_READING} (on|about|for|to (read|watch|learn))|papers?( should i| to)? read|"
    rf"recommend\w*|^\W*{_READING}\W*$)",
    re.I,
)
_GREETING = re.compile(r"^\W*(hi|hello|hey|thanks|thank you|good (morning|evening)|yo)\b", re.I)
_PROGRESS = re.compile(
    r"\b(my progress|how far|what have i (done|finished|completed|learned)|"
    r"which lessons (have|did) i)\b",
    re.I,
)

# The tool rounds say nothing: the page shows the tool calls as they run, and a sentence put
# before every answer ("Let me look that up...") was a fixed opener (decision 0048).
LEAD_SEARCH = LEAD_SEARCH_EXPLORE = LEAD_RESOURCES = LEAD_PROGRESS = LEAD_OPEN_LESSON = ""


def register_offline_tutor(engine: OfflineEngine) -> None:
    """Let the offline engine answer the `tutor` and `explore` agents."""
    engine.register_chat(TUTOR_AGENT, offline_tutor)
    engine.register_chat(EXPLORE_AGENT, offline_tutor)


@dataclass(frozen=True)
class ToolRequest:
    lead: str
    calls: list[ToolCall]


@dataclass
class Turn:
    """The conversation as the offline tutor reads it: the question, this turn's tool results,
    and what it said in earlier turns."""

    question: str
    history: list[str] = field(default_factory=list)
    results: list[tuple[ToolCall, dict[str, Any]]] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)  # the learner's earlier messages

    @classmethod
    def read(cls, messages: Sequence[Message]) -> Turn:
        last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
        question = (messages[last_user].content or "") if last_user >= 0 else ""
        history = [m.content or "" for m in messages[:last_user] if m.role == "assistant"]
        asked = [m.content or "" for m in messages[:last_user] if m.role == "user"]
        calls = {
            call.id: call
            for m in messages[last_user + 1 :]
            if m.role == "assistant"
            for call in m.tool_calls
        }
        results = []
        for m in messages[last_user + 1 :]:
            if m.role != "tool":
                continue
            call = calls.get(m.tool_call_id or "") or ToolCall(id="", name=m.name or "")
            results.append((call, _json_object(m.content or "")))
        return cls(question.strip(), history, results, asked)

    def called(self, name: str) -> bool:
        return any(call.name == name for call, _ in self.results)

    def result(self, name: str) -> dict[str, Any] | None:
        found = [result for call, result in self.results if call.name == name]
        return found[-1] if found else None

    def unknown_terms(self) -> list[str]:
        """Query terms no course in the search's scope contains (the widest search's)."""
        found = [
            list(result.get("unknown_terms") or [])
            for call, result in self.results
            if call.name == "search_course"
        ]
        return min(found, key=len) if found else []

    def passages(self) -> list[Passage]:
        passages = []
        for call, result in self.results:
            if call.name != "search_course":
                continue
            for item in result.get("results", []):
                try:
                    passages.append(Passage.model_validate(item))
                except ValidationError:
                    continue
        return passages


def intent_of(message: str, *, conversing: bool = False) -> Intent:
    """What a message asks for; a word or two with no content ("why?", "hmm") greets only when
    the conversation has not started (later it is a follow-up on the topic)."""
    if _QUIZ.search(message):
        return "quiz"
    if _PROGRESS.search(message):
        return "progress"
    if _RESOURCES.search(message):
        return "resources"
    short = len(message.split()) <= tutor_parameters().turns.greeting_words and not conversing
    if not stem_set(message) and (_GREETING.search(message) or short):
        return "greeting"
    return "question"


async def offline_tutor(
    messages: Sequence[Message], tools: Sequence[ToolSpec], inputs: Any
) -> AsyncIterator[StreamEvent]:
    if not isinstance(inputs, TutorContext):
        raise StructuredOutputError("the offline tutor needs the TutorContext as inputs")
    # Composing a reply is CPU work (retrieved passages ranked and stitched): off the loop.
    step = await run_cpu_bound(next_step, inputs, Turn.read(messages), {t.name for t in tools})
    if isinstance(step, ToolRequest):
        if step.lead:
            yield TextDelta(delta=step.lead)
        for call in step.calls:
            yield ToolCallEvent(call=call)
        yield Finish(reason="tool_calls")
        return
    for piece in _pieces(step):
        yield TextDelta(delta=piece)
    yield Finish(reason="stop")


def next_step(context: TutorContext, turn: Turn, tools: set[str]) -> ToolRequest | str:
    """Either the tools to call next, or the reply: never a paragraph of an earlier reply again
    (nor its first sentence) unless the learner asked to see it again."""
    step = _next_step(context, turn, tools)
    if isinstance(step, str) and not asks_to_repeat(turn.question, bool(turn.history)):
        return unrepeated(step, turn.history)
    return step


def _next_step(context: TutorContext, turn: Turn, tools: set[str]) -> ToolRequest | str:
    intent = intent_of(turn.question, conversing=bool(turn.history))
    if intent == "question" and turn.asked and AND_FOR.search(turn.question):
        # "and for dpo?" after "what should i read on rlhf?": the same request, another subject
        earlier = intent_of(turn.asked[-1])
        intent = earlier if earlier in ("resources", "quiz") else intent
    if intent == "greeting":
        return greeting(context)
    if intent == "quiz" and context.quiz:
        card = compose.pick_quiz(context, stem_set(turn.question), turn.history, force=True)
        if card is not None:
            return compose.quiz_reply(context, card)
    if intent == "resources" and "get_curated_resources" in tools:
        found = turn.result("get_curated_resources")
        if found is None:
            args = {"concepts": context.concepts, "query": turn.question}
            return ToolRequest(LEAD_RESOURCES, [_call("get_curated_resources", args)])
        return resources(found, turn.history, about=turn.question)
    if intent == "progress" and "get_user_progress" in tools:
        found = turn.result("get_user_progress")
        if found is None:
            return ToolRequest(LEAD_PROGRESS, [_call("get_user_progress", {})])
        return progress(context, found)
    return _question_step(context, turn, tools)


def scope_of(context: TutorContext) -> LessonScope:
    """What the open lesson covers (`dialogue.LessonScope`), from the context."""
    return LessonScope.of(
        title=context.lesson_title,
        content=context.lesson_content,
        reference_notes=context.reference_kb,
        others=[(entry.title, entry.concepts) for entry in context.curriculum_index],
    )


def decision_of(
    context: TutorContext, asked: Sequence[str], replies: Sequence[str], message: str
) -> TurnDecision:
    """The turn decider's reading of a lesson chat's turn (`dialogue.decide`)."""
    return decide(message, Dialogue.read(asked, replies), scope_of(context))


def _question_step(context: TutorContext, turn: Turn, tools: set[str]) -> ToolRequest | str:
    dialogue = Dialogue.read(turn.asked, turn.history)
    lesson_mode = not context.exploration_mode and bool(context.lesson_slug)
    decision: TurnDecision | None = None
    if lesson_mode:
        decision = decide(turn.question, dialogue, scope_of(context))
        if decision.intent == "repeat":
            return repeat(dialogue, turn.question)
        move = decision.move
    else:
        move = move_of(turn.question, dialogue, explore=context.exploration_mode)
    if move == "catalogue":
        return explore.catalogue(context, after_redirect=dialogue.redirected)
    if move == "what_next":
        return explore.what_next(context, turn.question)
    if move == "where" and dialogue.topic is not None:
        return follow_up.where(context, dialogue.topic)
    if move == "summary" and lesson_mode and dialogue.topic is None:
        return follow_up.summary(context, [], history=turn.history)
    if (
        dialogue.topic is None
        and not own_words(turn.question)
        and _FOLLOW_UP_ONLY.search(turn.question)
    ):
        return stuck(context)  # "I don't get it" before anything was explained
    if decision is not None and not decision.follows:
        # A new question is searched as itself ("ok what about multi-head?" -> multi-head),
        # never mixed with the topic it leaves.
        query = query_for(decision.about, "new", Dialogue(dialogue.asked, dialogue.replies))
    else:
        query = query_for(turn.question, move, dialogue)
    leaves = decision is not None and decision.intent == "leave_lesson"
    if not turn.called("search_course"):
        if "search_course" not in tools:
            return "I can't search the course material right now, so I won't guess. Try again soon."
        if not lesson_mode:
            calls = [_call("search_course", {"query": query})]
            topic_lesson = dialogue.topic.lesson_slug if dialogue.topic else None
            if move != "new" and topic_lesson and compose.quiz_due(turn.history):
                # the rhythm's check from Explore: the topic's lesson has quiz cards of its own
                calls.append(_call("get_lesson_context", {"lesson_slug": topic_lesson}))
            if _time_to_connect(dialogue) and "get_curated_resources" in tools:
                # Further reading on the topic in play, not on the words of this turn's answer.
                about = dialogue.topic
                topic = f"{about.cited.lesson_title} {about.cited.heading}" if about else query
                calls.append(_call("get_curated_resources", {"concepts": [], "query": topic}))
            return ToolRequest(LEAD_SEARCH_EXPLORE, calls)
        in_lesson = {"query": query, "lesson_slug": context.lesson_slug, "k": _lesson_search_k()}
        calls = [_call("search_course", in_lesson), _call("search_course", {"query": query})]
        if context.mode == "code" and "get_lesson_context" in tools:
            calls.append(_call("get_lesson_context", {"lesson_slug": context.lesson_slug}))
        if _time_to_connect(dialogue) and "get_curated_resources" in tools:
            args = {"concepts": context.concepts, "query": query}  # the topic, not "why?"
            calls.append(_call("get_curated_resources", args))
        return ToolRequest(LEAD_SEARCH, calls)
    found = turn.passages()
    unknown = turn.unknown_terms()
    if move != "new" and (dialogue.topic is not None or move in ("hint", "answer", "diagram")):
        # A follow-up is about the topic: its section first, whatever else the search found.
        kept = relevant(
            found,
            expand(query),
            prefer=context.lesson_slug,
            course=context.course_slug,
            unknown=unknown,
        )
        passages = follow_up.on_topic(kept or (found if dialogue.topic else []), dialogue)
        if passages:
            reply = follow_up.reply(move, context, turn.question, passages, dialogue)
            fetched = turn.result("get_lesson_context")
            if not lesson_mode and fetched and move not in ("hint", "answer", "attempt"):
                reply = compose.with_lesson_check(reply, fetched, query, turn.history)
            return _connect(reply, turn)
    passages = relevant(
        found,
        expand(query),
        prefer="" if leaves else context.lesson_slug,  # leaving: the lesson that teaches it
        course=context.course_slug,
        unknown=unknown,
    )
    if not passages:
        return redirect(context)
    if (
        not lesson_mode
        and move == "new"
        and "get_lesson_context" in tools
        and not turn.called("get_lesson_context")
        and passages[0].lesson
    ):
        # Explore: open the lesson that answers, as the prompt asks, for its own checks, and
        # search inside it so the answer comes from its best section, not a course-wide near miss.
        lesson = passages[0].lesson
        opened = _call("get_lesson_context", {"lesson_slug": lesson})
        inside = _call(
            "search_course", {"query": query, "lesson_slug": lesson, "k": _lesson_search_k()}
        )
        return ToolRequest(LEAD_OPEN_LESSON, [opened, inside])
    fetched = turn.result("get_lesson_context") or {}
    if not lesson_mode and fetched.get("lesson_slug"):
        passages = (
            relevant(
                found,
                expand(query),
                prefer=str(fetched["lesson_slug"]),
                course=str(fetched.get("course", "")),
                unknown=unknown,
            )
            or passages
        )
    reply = compose.answer(
        context,
        turn.question,
        passages,
        lesson_content=str(fetched.get("content", "")),
        history=turn.history,
        earlier=_grows_out_of(dialogue, turn.question, passages[0]),
    )
    if not lesson_mode and fetched:
        reply = compose.with_lesson_check(reply, fetched, turn.question, turn.history)
    return _connect(reply, turn)


def _lesson_search_k() -> int:
    return tutor_parameters().turns.lesson_search_k


def _grows_out_of(dialogue: Dialogue, question: str, answer: Passage) -> compose.Cited | None:
    """The section the conversation was on, when a new question grows out of it: it asks about
    something that section said, and the answer is another section of the same lesson."""
    topic = dialogue.topic
    if topic is None or answer.lesson_title != topic.cited.lesson_title:
        return None
    if tuple(headings(answer)) == topic.cited.heading_path:
        return None
    core = stem_set(f"{' '.join(topic.cited.heading_path)} {topic.question}")
    shared = stem_set(question) & core - stem_set(topic.cited.lesson_title)
    return topic.cited if shared else None


def _not_shown(found: list[dict[str, Any]], history: Sequence[str]) -> list[dict[str, Any]]:
    """Resources whose link the conversation has not shown yet."""
    return [r for r in found if not any(str(r.get("url", "")) in reply for reply in history)]


def _time_to_connect(dialogue: Dialogue) -> bool:
    """The rhythm's "connect": once a conversation has gone `turns.connect_after` teaching
    replies, point further, once."""
    taught = sum("_(Source:" in reply for reply in dialogue.replies)
    shown = any("<resource>" in reply for reply in dialogue.replies)
    return taught >= tutor_parameters().turns.connect_after and not shown


def _connect(reply: str, turn: Turn) -> str:
    """The reply with one curated resource to go further, when the tools found one about what
    the question and the reply's sections are about (a tokenizer video is no reading for a
    question on how attention's cost scales)."""
    found = turn.result("get_curated_resources")
    fresh = _not_shown(list(found.get("resources", [])), turn.history) if found else []
    cited = " ".join(" ".join(c.heading_path) for c in compose.citations(reply)[:1])
    fresh = matching(fresh, f"{turn.question} {cited}")
    card = compose.resources_text(fresh[:1])
    if not card:
        return reply
    return f"{reply}\n\nWhen you want to go further on this: {card}"


def greeting(context: TutorContext) -> str:
    if context.exploration_mode:
        titles = ", ".join(f"**{c.title}**" for c in context.available_courses) or "no courses yet"
        return (
            "Hi! This is Explore: ask me anything the courses here cover, and I'll find the "
            f"lesson that answers it. Courses: {titles}. What are you curious about?"
        )
    summary = compose.first_sentence(context.lesson_summary) if context.lesson_summary else ""
    places = ", ".join(f"*{h}*" for h in compose.lesson_headings(context))
    concept = (context.concepts[0] if context.concepts else context.lesson_title).replace("-", " ")
    return (
        f"Hi! We're studying **{context.lesson_title}**. {summary}\n\n"
        f"Before I explain anything: what do you already know about {concept}?"
        + (f" Or pick a place to start: {places}." if places else "")
    )


_FOLLOW_UP_ONLY = re.compile(
    r"\b(get it|understand|confus|lost|why|example|analog|simpler|more|explain)", re.IGNORECASE
)


def stuck(context: TutorContext) -> str:
    """A follow-up with nothing to follow: ask what the learner is stuck on."""
    places = ", ".join(f"*{h}*" for h in compose.lesson_headings(context))
    where = f" For instance: {places}." if places else ""
    return (
        "Happy to help — tell me which idea you're stuck on, in your own words, and I'll take it "
        f"from there.{where}"
    )


def redirect(context: TutorContext) -> str:
    """The honest answer to a question the course material does not cover."""
    if context.exploration_mode:
        named = tutor_parameters().explore.redirect_lessons
        titles = "; ".join(
            f"**{c.title}** ({', '.join(c.lessons[:named])})" for c in context.available_courses
        )
        return (
            f"I searched every course here and found nothing on that, and {NOT_GUESSING}. "
            "What the courses do cover: "
            f"{titles or 'nothing yet'}. Want to ask about one of those?"
        )
    places = ", ".join(f"*{h}*" for h in compose.lesson_headings(context))
    start = f" We could start with {places}." if places else ""
    return (
        f"I couldn't find that in **{context.lesson_title}** or the rest of "
        f"{context.course_title or 'this course'}, and {NOT_GUESSING}. "
        "If it's another subject, Explore searches every course.\n\n"
        f"Shall we get back to the lesson?{start}"
    )


def matching(found: list[dict[str, Any]], about: str) -> list[dict[str, Any]]:
    """The resources whose title and description share at least `turns.resource_match` content
    words with `about` (all of them, when it has fewer; the lexicon's synonyms counted as one),
    best first."""
    wanted = same_words(stem_set(about))
    least = min(tutor_parameters().turns.resource_match, len(wanted))
    scored = [
        (len(wanted & same_words(stem_set(f"{r.get('title', '')} {r.get('description', '')}"))), i)
        for i, r in enumerate(found)
    ]
    return [
        found[i] for shared, i in sorted(scored, key=lambda x: (-x[0], x[1])) if shared >= least
    ]


def resources(found: dict[str, Any], history: Sequence[str] = (), *, about: str = "") -> str:
    """Curated resources asked for: those about the question's subject when it names one (its
    words beyond "any videos?"), the lesson's otherwise."""
    fresh = _not_shown(list(found.get("resources", [])), history)
    subject = _RESOURCES.sub(" ", about)
    if stem_set(subject):
        fresh = matching(fresh, subject)
    cards = compose.resources_text(fresh)
    if not cards:
        if found.get("resources"):
            return (
                "Those are all the curated resources I have for this topic; I won't make up links."
            )
        return "I have no curated resources for this topic, and I won't make up links."
    lead = (
        "Here are more curated resources, beside the ones I shared earlier:"
        if any("<resource>" in reply for reply in history)
        else "Here are curated resources for this lesson's concepts:"
    )
    return f"{lead}\n\n{cards}\n\nWhich one fits how you like to learn: reading, docs or video?"


def progress(context: TutorContext, found: dict[str, Any]) -> str:
    done = [str(t) for t in found.get("completed_lessons", [])]
    if not context.exploration_mode:
        upcoming = [e.title for e in context.curriculum_index if not e.completed]
        total = found.get("course_lesson_count", len(context.curriculum_index) + 1)
        head = (
            f"In {context.course_title} you've completed "
            f"{found.get('course_completed_count', 0)} of {total} lessons."
        )
        tail = f" Next up after this one: **{upcoming[0]}**." if upcoming else ""
        return f"{head}{tail}\n\nWhat would you like to be able to do by the end of this lesson?"
    listed = ", ".join(done) if done else "none yet"
    return (
        f"You've completed {counted(len(done), 'lesson')}: {listed}. "
        "What would you like to explore next?"
    )


def _call(name: str, arguments: dict[str, Any]) -> ToolCall:
    return ToolCall(id=f"call_{uuid.uuid4().hex[:20]}", name=name, arguments=json.dumps(arguments))


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _pieces(text: str, words: int = 3) -> list[str]:
    """The reply in small pieces, streamed like tokens."""
    tokens = re.findall(r"\S+\s*|\s+", text)
    return ["".join(tokens[i : i + words]) for i in range(0, len(tokens), words)]


# --- never the same reply again -------------------------------------------------------------------

AGAIN_LEAD = "Here it is again:"
# Closing questions for a reply whose own closing question was asked before.
_OTHER_CLOSES = (
    "What would you like next: a part of this in more depth, or something new?",
    "Which part would you like to try explaining back to me?",
    "Is there a piece of this you'd like to see another way?",
)


def repeat(dialogue: Dialogue, message: str) -> str:
    """The reply the learner asks to see again: the earlier reply that says most of what the
    message names ("repeat the part about the mask"), else the last one, marked as a repeat."""
    wanted = own_words(message)
    replies = [r for r in dialogue.replies if r.strip()]
    if not replies:
        return "There's nothing to repeat yet: ask me about the lesson and we'll start."
    scored = [(len(wanted & stem_set(r)), i) for i, r in enumerate(replies)]
    best = max(scored)[1] if wanted and max(scored)[0] else len(replies) - 1
    return f"{AGAIN_LEAD}\n\n{replies[best]}"


def _paragraphs(text: str) -> list[str]:
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def _paragraph_key(paragraph: str) -> str:
    return sentence_key(paragraph)


_SOURCE_LINE = re.compile(r"^(From .+:|_\(Source: .+\)_)$")


def _keeps_its_place(paragraph: str) -> bool:
    """A line that belongs to what follows it, not text of its own: a quiz card's lead, a code
    block's "From <section>:" source."""
    stripped = paragraph.strip()
    return stripped == compose.QUIZ_LEAD or bool(_SOURCE_LINE.match(stripped))


def unrepeated(reply: str, history: Sequence[str]) -> str:
    """The reply without what an earlier reply of the conversation already said (decision 0048):
    no paragraph of an earlier reply, and not the first sentence the previous reply began with.
    What the composers left repeated (a closing question asked before, a fixed lead) is dropped;
    a dropped closing question is replaced by one not asked yet."""
    if not history:
        return reply
    earlier = {_paragraph_key(p) for h in history for p in _paragraphs(h)}
    paragraphs = _paragraphs(reply)
    kept: list[str] = []
    for paragraph in paragraphs:
        if _keeps_its_place(paragraph) or _paragraph_key(paragraph) not in earlier:
            kept.append(paragraph)
        elif kept and kept[-1].strip() == compose.QUIZ_LEAD:
            kept.pop()  # a card shown before goes with its lead
    while kept and _keeps_its_place(kept[-1]):
        kept.pop()  # a lead left without what it leads to
    previous = _paragraphs(history[-1])
    if kept and previous:
        kept = _new_first_sentence(kept, previous[0])
    closing = paragraphs[-1].strip() if paragraphs else ""
    if kept and closing.endswith("?") and not kept[-1].strip().endswith(("?", "</quiz>")):
        asked = "\n".join(history)
        kept.append(next((q for q in _OTHER_CLOSES if q not in asked), _OTHER_CLOSES[0]))
    if not any(not _keeps_its_place(p) and not p.strip().endswith("?") for p in kept):
        return compose.covered_above_reply(history)
    return "\n\n".join(kept)


def _new_first_sentence(kept: list[str], previous_first: str) -> list[str]:
    """The paragraphs without a first sentence the previous reply also began with."""
    first = sentences_of(kept[0])
    before = sentences_of(previous_first)
    if not first or not before or sentence_key(first[0]) != sentence_key(before[0]):
        return kept
    rest = kept[0].strip()[len(first[0]) :].strip()
    return ([rest] if rest else []) + kept[1:]


def sentences_of(paragraph: str) -> list[str]:
    """A paragraph's sentences, as written (a lead line is one)."""
    return [s for s in re.split(r"(?<=[.!?:])\s+", paragraph.strip()) if s]
