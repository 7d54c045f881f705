"""The offline intent classifier: what the candidate asks of the interview, if anything.

Most turns are answers (`no_intent`). A request is a sentence addressed to the interview: a
request frame ("can we", "could you", "let's", "I'd rather", an imperative "skip this") around
an intent's cue ("a coding question", "another topic", "rephrase", "wrap up"), or one of the
set phrases people use on their own ("what do you mean?", "next question", "I have to go").
The same words inside an answer's narrative ("we had to stop the pipeline", "I moved on to a
new team", "the assessment module") are not requests: a cue counts only in a request frame,
in a short turn, or in a set phrase.

Each cue has a weight; the confidence is the best sentence's weight (a request frame or a short
turn raises it; a long narrative sentence lowers it). `decide` acts on confidences above 0.7
(the spec's threshold), so a weak cue is recorded but not obeyed.

It cannot read sarcasm, requests spread over several sentences with no cue, or languages other
than English; the LLM classifier (`agents.detect_intent` on a model server) can."""

from __future__ import annotations

# ruff: noqa: E501  (the cue table: one regular expression per line reads best)
import re
from dataclasses import dataclass

from tutorgraph.interview.state import Intent

ACTIVE_CONFIDENCE = 0.7  # the spec: an intent becomes the active request above this
SHORT_TURN_WORDS = 12

_FRAME = re.compile(
    r"\b(?:can|could|may|shall|should|would|will) (?:we|you|i|us)\b|\blet'?s\b|\blet us\b"
    r"|\b(?:i'?d|i would|i want|i wanna|i need|i prefer|i'?d prefer|i'?d rather|i would rather)"
    r"\b|\bplease\b|\bhow about\b|\bwhat about\b|\bmind if\b|\bis it (?:ok|okay|possible)\b"
    r"|\bwould it be\b|\bmaybe we\b|\bperhaps we\b|\bwe (?:could|should)\b|\binstead\b",
)
_NARRATIVE = re.compile(
    r"\b(?:we|i|they|he|she|it|team|company) (?:had|was|were|did|used|built|wrote|moved|"
    r"changed|switched|stopped|ended|finished|started|made|added|ran|kept|tried)\b"
)


@dataclass(frozen=True)
class Cue:
    pattern: re.Pattern[str]
    weight: float
    alone: bool = False  # the phrase is a request on its own, without a frame


def _cues(*items: tuple[str, float, bool]) -> tuple[Cue, ...]:
    return tuple(Cue(re.compile(p), w, alone) for p, w, alone in items)


_TECH = r"(?:technical|coding|code|programming|algorithm(?:ic|s)?|python|leetcode|live[- ]coding)"
_TEST = r"(?:question|assessment|test|exercise|challenge|problem|interview|round|task|puzzle|quiz)"

CUES: dict[Intent, tuple[Cue, ...]] = {
    "technical_assessment": _cues(
        (rf"\b{_TECH}\s+(?:\w+\s+)?{_TEST}s?\b", 0.85, False),
        (
            r"\b(?:test|assess|evaluate|quiz|check) (?:me|my (?:\w+ )?(?:skills?|knowledge|coding))\b",
            0.9,
            True,
        ),
        (r"\b(?:technical|coding) (?:part|portion|section|stuff|side)\b", 0.85, False),
        (
            r"\bgive me (?:a|some) (?:\w+ )?(?:problem|exercise|challenge|task|question)s?\b",
            0.9,
            True,
        ),
        (r"\b(?:write|do) (?:some )?(?:code|coding)\b", 0.8, False),
        (r"\bsomething (?:more )?technical\b|\bmore technical\b|\bget technical\b", 0.85, False),
        (r"\b(?:technical|coding) (?:assessment|test|round|interview)\b", 0.95, True),
    ),
    "change_topic": _cues(
        (r"\b(?:change|switch)(?: the)? (?:topic|subject|gears)\b", 0.95, True),
        (r"\b(?:something|anything) else\b", 0.85, False),
        (r"\bmove on\b|\bmoving on\b", 0.85, False),
        (
            r"\b(?:another|different|other|next) (?:topic|subject|project|area|thing|part)\b",
            0.85,
            False,
        ),
        (r"\bskip (?:this|that|it|the)\b", 0.9, True),
        (r"\b(?:talk|speak|chat|discuss|focus) (?:about|on)\b", 0.6, False),
        (r"\brather (?:not )?(?:talk|discuss|focus|go|speak)\b", 0.9, True),
        (
            r"\bnot (?:really )?(?:comfortable|keen|interested)\b.*\b(?:this|that|topic|project)\b",
            0.8,
            True,
        ),
        (r"\bnothing more to (?:say|add)\b|\bcan we leave (?:it|this|that)\b", 0.85, True),
    ),
    "clarify": _cues(
        (r"\bwhat (?:do|did) you mean\b|\bwhat is meant\b|\bwhat does .{1,40} mean\b", 0.95, True),
        (
            r"\b(?:rephrase|reword|clarify|elaborate on the question|repeat (?:the|that|your|it))\b",
            0.9,
            False,
        ),
        (r"\b(?:say|ask) (?:that|it) again\b|\bcome again\b", 0.9, True),
        (
            r"\b(?:don'?t|didn'?t|do not|did not) (?:quite )?(?:understand|get|follow) (?:the|your|what|that)\b",
            0.9,
            True,
        ),
        (r"\bnot sure what you(?:'re| are) (?:asking|looking for|after)\b", 0.95, True),
        (r"\b(?:which|what) (?:one|project|part|job|role|aspect) (?:do|did|are) you\b", 0.9, True),
        (r"\bdo you mean\b|\byou mean\b.*\?", 0.85, True),
        (r"\b(?:more specific|an example of what you)\b", 0.8, False),
        (r"^(?:sorry|pardon|huh|what)\s*\?+$", 0.9, True),
        (
            r"\bconfus(?:ed|ing) (?:by|about) the question\b|\bthe question is (?:unclear|confusing)\b",
            0.9,
            True,
        ),
    ),
    "stop": _cues(
        (
            r"\b(?:stop|end|finish|wrap up|conclude|close|terminate|quit) (?:the |this |our )?(?:interview|session|conversation|chat|here|now|today|for (?:now|today))\b",
            0.95,
            True,
        ),
        (r"\bwrap (?:this|it|things) up\b|\bcall it a day\b|\bcall it here\b", 0.95, True),
        (r"\b(?:have|need|got|gotta) to (?:go|leave|run|head out)\b|\bgotta go\b", 0.9, True),
        (
            r"\b(?:that'?s|that is) (?:enough|all) for (?:now|today|me)\b|\bi(?:'m| am) done\b",
            0.9,
            True,
        ),
        (
            r"\bno more questions\b|\bend it\b|\blet'?s stop\b|\bstop (?:now|please|here)\b",
            0.9,
            True,
        ),
        (r"\bstop\b|\bend\b|\bfinish\b|\bquit\b", 0.6, False),
    ),
    "continue": _cues(
        (r"\bnext (?:question|one)\b", 0.9, True),
        (r"\b(?:go on|go ahead|carry on|keep going|proceed|continue)\b", 0.8, False),
        (r"\bready\b", 0.75, False),
        (r"\blet'?s (?:start|begin|go|do it|continue|get started)\b", 0.9, True),
        (
            r"^(?:ok(?:ay)?|sure|yes|yep|alright|fine|cool)[,.! ]*(?:next|go|continue|shoot|ready)\b",
            0.9,
            True,
        ),
        (r"^(?:next|continue|proceed|go|shoot)\W*$", 0.95, True),
        (r"\bask (?:me )?(?:the next|another|your next)\b|\bwhat'?s next\b", 0.9, True),
    ),
}


@dataclass(frozen=True)
class IntentGuess:
    type: Intent
    confidence: float
    cue: str


def classify(text: str) -> IntentGuess:
    """The candidate's intent with a confidence in [0, 1]."""
    normal = _normalise(text)
    if not normal:
        return IntentGuess("no_intent", 0.5, "")
    words = len(normal.split())
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", normal) if s.strip()]
    best = IntentGuess("no_intent", 0.0, "")
    for index, sentence in enumerate(sentences):
        framed = bool(_FRAME.search(sentence)) or sentence.rstrip().endswith("?")
        narrative = bool(_NARRATIVE.search(sentence)) and not framed
        short = words <= SHORT_TURN_WORDS
        last = index == len(sentences) - 1
        for intent, cues in CUES.items():
            for cue in cues:
                match = cue.pattern.search(sentence)
                if match is None:
                    continue
                weight = cue.weight
                if narrative:
                    weight -= 0.4
                elif not (framed or short or cue.alone):
                    weight -= 0.3
                elif framed and last and words > SHORT_TURN_WORDS:
                    weight += 0.05  # "... Can we move on to something else though?"
                if short and not narrative:
                    weight += 0.05
                if weight > best.confidence:
                    best = IntentGuess(intent, round(min(weight, 0.99), 2), match.group(0))
    if best.confidence < 0.5:
        return IntentGuess("no_intent", round(1.0 - best.confidence / 2, 2), "")
    return best


def _normalise(text: str) -> str:
    lowered = text.lower().replace("’", "'").replace("‘", "'")
    return re.sub(r"[ \t]+", " ", lowered).strip()
