"""The offline interviewer's wording: each thing it says, built from the request's anchor,
aspect, resume detail or knowledge-base question. Several wordings per aspect, chosen by
`variant`, so two interviews of one resume do not read the same; nothing is said that the
resume or the knowledge base did not supply."""

from __future__ import annotations

from tutorgraph.interview.schemas import UtteranceRequest
from tutorgraph.interview.state import Aspect

RESUME: dict[Aspect, tuple[str, ...]] = {
    "challenges": (
        "What was the hardest problem you ran into on {label}, and how did you get past it?",
        "On {label}, what went wrong along the way, and what did you do about it?",
    ),
    "design": (
        "How did you design {label}? Walk me through the main pieces and how they fit together.",
        "What did the architecture of {label} look like, and why did you give it that shape?",
    ),
    "tradeoffs": (
        "What trade-offs did you make on {label}? What did you give up, and would you choose "
        "the same way today?",
        "If you started {label} again, which decision would you revisit, and what did it cost "
        "you the first time?",
    ),
    "impact": (
        "What difference did your work as {label} make, and how do you know?",
        "What are you proudest of from {label}, and what changed because of it?",
    ),
    "tools": (
        "Why those tools for {label}? What would you have lost with an alternative?",
        "Which parts of your toolset mattered most on {label}, and why did you pick them?",
    ),
    "implementation": (
        "Pick one part of {label} you built yourself and explain how it works in detail.",
        "Tell me about a time you used {label} to solve a real problem: what did you build, "
        "and how?",
    ),
    "results": (
        "How did you measure whether {label} worked, and what were the results?",
        "What came out of {label} that you still use or build on today?",
    ),
    "team": (
        "Who else worked on {label}, and how did you split and coordinate the work?",
        "How was the team organised around {label}, and what was your part in it?",
    ),
}
DETAIL = {
    "impact": "Your resume says: \u201c{detail}\u201d. ",
    "results": "Your resume says: \u201c{detail}\u201d. ",
    "challenges": "You wrote: \u201c{detail}\u201d. ",
    "design": "You wrote: \u201c{detail}\u201d. ",
}
SKILL: dict[Aspect, tuple[str, ...]] = {
    "implementation": (
        "Tell me about a time you used {label} to solve a real problem: what did you build, "
        "and how?",
    ),
    "tradeoffs": ("When would you not use {label}? What would you reach for instead, and why?",),
    "challenges": (
        "What is something about {label} that tripped you up, and how did you work it out?",
    ),
    "tools": (
        "How do you keep your {label} work reliable: what do you use for testing, "
        "debugging or reviewing it?",
    ),
}
GLOSS: dict[Aspect, str] = {
    "challenges": "a concrete difficulty you hit, and the steps you took to solve it",
    "design": "how the system or code was structured, and why",
    "tradeoffs": "a choice between two options, what each cost, and why you picked one",
    "impact": "what changed for users or the business because of your work",
    "tools": "why you chose the languages, libraries or services you used",
    "implementation": "how one piece actually works, at the level of code or algorithm",
    "results": "the numbers or outcomes that show whether it worked",
    "team": "who you worked with and how you divided the work",
}
THIN = 0.2  # below this an answer said next to nothing
TRANSITIONS = (
    "Thanks, that's helpful.",
    "Got it, thank you.",
    "Thanks for walking me through that.",
    "Okay, that's clear.",
)


def say(request: UtteranceRequest) -> str:
    """The offline interviewer's line for `request`."""
    kind = request.kind
    if kind == "greeting":
        return _greeting(request)
    if kind == "resume":
        return _resume_question(request)
    if kind == "technical":
        return _technical(request)
    if kind == "followup":
        return _followup(request)
    if kind == "clarify":
        return _clarify(request)
    if kind == "nudge":
        return _nudge(request)
    if kind == "transition":
        return _transition(request)
    return _closing(request)


def _greeting(r: UtteranceRequest) -> str:
    hello = f"Hello {r.candidate_name.split()[0]}" if r.candidate_name.strip() else "Hello"
    technical = " and then a few technical questions" if r.technical_planned else ""
    return (
        f"{hello}, and welcome. This is a mock {r.level}-level interview for a {r.role} role, "
        f"built from your resume: I'll ask about your projects and experience{technical}. "
        "There's a code editor beside the chat if you'd like to show something in code. "
        "You can ask me to clarify a question, to move on to another topic, to do a technical "
        "assessment, or to stop whenever you like; you'll get a scorecard at the end."
    )


def _resume_question(r: UtteranceRequest) -> str:
    aspect = r.aspect or "challenges"
    wordings = SKILL.get(aspect, RESUME[aspect]) if r.anchor_type == "skill" else RESUME[aspect]
    question = wordings[r.variant % len(wordings)].format(label=r.anchor_label)
    if r.anchor_type == "education":
        question = question.replace("your work as ", "")
    lead = DETAIL.get(aspect, "")
    if r.detail and lead and r.anchor_type in ("project", "experience"):
        return lead.format(detail=r.detail) + question
    return question


def _technical(r: UtteranceRequest) -> str:
    lead = f"A technical question on {r.topic_title}. " if r.topic_title else ""
    return f"{lead}{r.kb_question}\n\nYou can answer in words, in the code editor, or both."


def _followup(r: UtteranceRequest) -> str:
    if not r.last_answer.strip():
        return f"Take your time; even a rough answer helps. Here it is again: {r.previous_question}"
    subject = r.anchor_label or "that"
    if r.aspect is not None:
        return (
            f"Could you make that more concrete? Take one specific moment from {subject}: "
            f"I'm after {GLOSS[r.aspect]}."
        )
    return (
        "Could you go one step further? Explain why that is, or show a small example, "
        "in words or in the editor."
    )


def _clarify(r: UtteranceRequest) -> str:
    if r.aspect is not None and r.anchor_label:
        return (
            f"Of course. About {r.anchor_label}, I'm asking for {GLOSS[r.aspect]}. "
            "One real example is plenty, and rough numbers are fine."
        )
    if r.previous_question:
        question = r.previous_question.strip()
        ask = (
            "Tell me what you know about it, even partly; a small code example in the editor "
            "counts too."
        )
        if "\n" in question:  # a question with code: quoted as its own block, lines kept
            return f"Sure, let me put it another way. The question was:\n\n{question}\n\n{ask}"
        return f"Sure, let me put it another way. The question was: \u201c{question}\u201d {ask}"
    return "Sure: tell me about your background, in whatever order suits you."


def _nudge(r: UtteranceRequest) -> str:
    what = (
        "your last runs didn't compile"
        if "syntax_errors" in r.signals
        else ("your last few runs failed")
    )
    error = f" The last one said: {r.last_run}." if r.last_run else ""
    return (
        f"I see {what}.{error} No rush: what do you expect the code to do, and where do you "
        "think it goes wrong? Talking it through is part of the answer."
    )


def _transition(r: UtteranceRequest) -> str:
    opener = TRANSITIONS[r.variant % len(TRANSITIONS)]
    if r.reason.startswith("the candidate asked to change topic"):
        opener = "Sure, let's leave that there."
    elif r.answer_quality is not None and r.answer_quality < THIN:
        opener = "Let's leave that one for now."  # no "that's clear" after a non-answer
    if r.kind == "transition" and r.next_label:
        return f"{opener} Let's turn to {r.next_label}."
    return opener


def _closing(r: UtteranceRequest) -> str:
    return (
        "That's the end of our interview. Thank you for your time and your answers. "
        "Your scorecard is ready below: scores with the evidence from what you said, "
        "your strengths, what to work on, and the topics we covered."
    )
