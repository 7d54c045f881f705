"""The offline intent classifier: what the candidate asks of the interview, if anything.

Most turns are answers (`no_intent`). A request is a sentence addressed to the interview: a
request frame ("can we", "could you", "let's", "I'd rather", an imperative "skip this") around
an intent's cue ("a coding question", "another topic", "rephrase", "wrap up"), or one of the
set phrases people use on their own ("what do you mean?", "next question", "I have to go").
The same words inside an answer's narrative ("we had to stop the pipeline", "I moved on to a
new team", "the assessment module") are not requests: a cue counts only in a request frame,
in a short turn, or in a set phrase.

Each cue has a strength (weak ... certain) whose confidence is a parameter
(`interview/parameters.yaml`, hand-set, decision 0029); the confidence is the best sentence's
(a request frame or a short turn raises it; a long narrative sentence lowers it, by parameters
too). `decide` acts on confidences above 0.7 (the spec's threshold), so a weak cue is recorded
but not obeyed.

It cannot read sarcasm, requests spread over several sentences with no cue, or languages other
than English; the LLM classifier (`agents.detect_intent` on a model server) can."""

from __future__ import annotations

# ruff: noqa: E501  (the cue table: one regular expression per line reads best)
import re
from dataclasses import dataclass

from tutorgraph.interview.parameters import CueStrength, intent_parameters
from tutorgraph.interview.state import Intent

ACTIVE_CONFIDENCE = 0.7  # the spec: an intent becomes the active request above this

_FRAME = re.compile(
    r"\b(?:can|could|may|shall|should|would|will) (?:we|you|u|i|us)\b|\blet'?s\b|\blet us\b"
    r"|\b(?:i'?d|i would|i want|i wanna|i need|i prefer|i'?d prefer|i'?d rather|i would rather)"
    r"\b|\bplease\b|\bhow about\b|\bwhat about\b|\bmind if\b|\bis it (?:ok|okay|possible)\b"
    r"|\bwould it be\b|\bmaybe we\b|\bperhaps we\b|\bwe (?:could|should)\b|\binstead\b",
)
_NARRATIVE = re.compile(
    r"\b(?:we|i|they|he|she|it|team|company|manager|lead) (?:had|was|were|did|used|built|wrote|"
    r"moved|changed|switched|stopped|ended|finished|started|made|added|ran|kept|tried|asked|"
    r"helped|gave|sat)\b"
    r"|\b(?:asked|told) (?:me|us) to\b|\b(?:had|needed) to\b|\bthere (?:was|were)\b"
    r"|\b(?:we|i|they|he|she|it)\s+(?!need)\w{2,}ed\b"
)


@dataclass(frozen=True)
class Cue:
    pattern: re.Pattern[str]
    strength: CueStrength  # its confidence: `cue_strengths` in interview/parameters.yaml
    alone: bool = False  # the phrase is a request on its own, without a frame


def _cues(*items: tuple[str, CueStrength, bool]) -> tuple[Cue, ...]:
    return tuple(Cue(re.compile(p), strength, alone) for p, strength, alone in items)


_TECH = (
    r"(?:technical|tec?h?nical|coding|code|programming|algorithm(?:ic|s)?|python|leetcode|"
    r"live[- ]coding|machine learning|ml|sql|data science|system design|hands-on)"
)
_TEST = (
    r"(?:questions?|assessments?|tests?|exercises?|challenges?|problems?|interview|round|tasks?|"
    r"puzzles?|quiz|evaluation)"
)
_END = r"(?=\s*(?:$|[.!?,;]|please|pls|plz|then|now|thanks|with (?:the )?(?:interview|questions?|next)))"
_OTHER_THING = r"\b(?:instead|rather than|another|different|other|else)\b"
_MOVE = r"\b(?:talk|discuss|ask|focus|go|switch|move|jump|turn|get|talking|discussing|speak|chat|shift|cover)\b"

CUES: dict[Intent, tuple[Cue, ...]] = {
    "technical_assessment": _cues(
        (rf"\b{_TECH}[\w\s'-]{{0,14}}?\b{_TEST}\b", "strong", False),
        (
            r"\b(?:test|assess|evaluate|quiz|check) (?:me|my (?:[\w-]+ ){0,3}(?:skills?|knowledge|coding)|how (?:well|much) i know)\b",
            "very_strong",
            True,
        ),
        (rf"\b(?:practi[cs]e|ask me)\b.{{0,25}}\b{_TECH}\b", "good", False),
        (r"\b(?:be |get )?(?:tested|assessed|evaluated|quizzed) on\b", "very_strong", False),
        (
            r"\b(?:technical|coding) (?:part|portion|section|stuff|side of the interview)\b",
            "strong",
            False,
        ),
        (
            r"\bgive me (?:a|some) (?:\w+ )?(?:problem|exercise|challenge|task|question)s?\b",
            "very_strong",
            True,
        ),
        (r"\b(?:write|writing|do|try) (?:some )?(?:code|coding)\b", "good", False),
        (
            r"\bsomething (?:more )?technical\b|\bmore technical\b|\bget technical\b",
            "strong",
            False,
        ),
        (
            r"\b(?:technical|coding) (?:assessment|test|round|interview|evaluation)\b",
            "certain",
            True,
        ),
    ),
    "change_topic": _cues(
        (r"\b(?:change|switch)(?: the)? (?:topic|subject|gears)\b(?!\s+model)", "certain", True),
        (r"\b(?:something|anything) else\b", "strong", False),
        (r"\bmove on\b|\bmoving on\b", "strong", False),
        (
            r"\b(?:another|different|other|next) (?:topic|subject|project|area|thing|part|job|role)\b",
            "strong",
            False,
        ),
        (rf"{_MOVE}.*{_OTHER_THING}|{_OTHER_THING}.*{_MOVE}", "strong", False),
        (
            r"\b(?:switch|go|move|jump|skip|get) (?:over |on )?to (?:my|the|your|a|another)\b",
            "good",
            False,
        ),
        (
            r"\bskip (?:this|that|it)\b(?! \w+ing)|\bskip the (?:question|topic|project|part|rest|job)\b|\bpass on (?:this|that)\b",
            "very_strong",
            True,
        ),
        (
            r"\bmind if we (?:talk|talked|discuss|discussed|move|moved|switch|switched|go|went)\b",
            "strong",
            True,
        ),
        (r"\bshift (?:the|our) (?:conversation|focus|discussion)\b", "very_strong", True),
        (r"\b(?:talk|speak|chat|discuss|focus) (?:about|on)\b", "weak", False),
        (
            r"\brather\b.{0,20}\b(?:talk|discuss|focus|go|speak|chat|cover)\b|\bprefer to (?:talk|discuss|focus)\b",
            "very_strong",
            True,
        ),
        (r"\bleave (?:the|this|that|it) .{0,40}\baside\b|\benough about\b", "strong", True),
        (
            r"\bnot (?:really |very |that |too )?(?:comfortable|keen|interested)\b.*\b(?:this|that|topic|project)\b",
            "good",
            True,
        ),
        (r"\b(?:another|different|other) one\b.*\?", "good", True),
        (r"\bnothing more to (?:say|add)\b|\bcan we leave (?:it|this|that)\b", "strong", True),
        (r"\bcovered .{0,40}\benough\b", "good", True),
    ),
    "clarify": _cues(
        (
            r"\bwhat (?:do|did) you mean\b|\bwhat (?:exactly )?is meant\b|\bwhat does .{1,40} mean\b",
            "certain",
            True,
        ),
        (
            r"\bexample of the (?:kind|type|sort) of answer\b|\bwhat (?:kind|type|sort) of answer\b",
            "very_strong",
            True,
        ),
        (
            r"\bwhat (?:exactly )?(?:are|were) you asking\b|\bwhat was the question\b|\bthe question again\b",
            "certain",
            True,
        ),
        (
            r"\b(?:rephrase|reword|restate|clarify|elaborate on (?:the question|what)|repeat (?:the|that|your|it))\b",
            "very_strong",
            False,
        ),
        (r"\bwhat you(?:'re| are) looking for\b", "good", False),
        (r"^which (?:one|job|project|role|company|part|team)\W*$", "very_strong", True),
        (r"\b(?:say|ask) (?:that|it) again\b|\bcome again\b", "very_strong", True),
        (
            r"\b(?:don'?t|didn'?t|do not|did not) (?:quite )?(?:understand|get|follow) (?:the|your|what|that)\b",
            "very_strong",
            True,
        ),
        (
            r"\bnot sure (?:i |if i )?(?:understand|follow|get it)\b|\bnot sure what you(?:'re| are) (?:asking|looking for|after)\b",
            "certain",
            True,
        ),
        (
            r"\b(?:which|what) (?:one|project|part|job|role|aspect) (?:do|did|are) you\b",
            "very_strong",
            True,
        ),
        (
            r"\b(?:are you asking|are you referring|do you want me to|should i|is the question|was the question|do you mean) .{0,60}\bor\b",
            "very_strong",
            True,
        ),
        (r"\b(?:is|was) (?:this|that|it|the) (?:question )?about\b.*\bor\b", "very_strong", True),
        (r"\bdo you mean\b|\byou mean\b.*\?", "strong", True),
        (
            r"\b(?:simpler|other|different|plain) words\b|\bmore specific\b|\ban example of what\b",
            "strong",
            False,
        ),
        (r"\bmissed (?:the|your|that) .{0,30}\bquestion\b|\bdidn'?t catch\b", "very_strong", True),
        (r"\bwhat(?:'s| is) (?:a |an |the )?['\"‘“][^'\"’”]{1,30}['\"’”]", "strong", True),
        (r"^(?:sorry|pardon|huh|what)\W*(?:what|again|sorry)?\W*$", "very_strong", True),
        (
            r"\bconfus(?:ed|ing) (?:by|about) the question\b|\bthe question is (?:unclear|confusing|vague|a bit vague)\b",
            "very_strong",
            True,
        ),
    ),
    "stop": _cues(
        (
            r"\b(?:stop|end|finish|wrap up|conclude|close|terminate|quit) (?:the |this |our )?(?:\w+ )?(?:interview|session|conversation|chat)\b",
            "certain",
            True,
        ),
        (r"\b(?:stop|end|finish|quit) (?:here|now|today|for (?:now|today))\b", "very_strong", True),
        (r"\bwrap (?:this |it |things )?up\b|\bcall it a day\b|\bcall it here\b", "certain", True),
        (
            r"\b(?:have|need|got|gotta) to (?:go|leave|run|head out)\b|\bgotta go\b",
            "very_strong",
            True,
        ),
        (
            r"\b(?:that'?s|that is|that'?ll be) (?:enough|all|it) (?:for|from) (?:now|today|me)\b|\benough for (?:now|today)\b",
            "very_strong",
            True,
        ),
        (
            r"\bi'?m done\b(?! with)|\bi am done\b(?! with)|\bno more questions\b|\bend it\b|\blet'?s stop\b",
            "very_strong",
            True,
        ),
        (
            r"\b(?:had|have) enough\b|\b(?:bring|draw) (?:the|this|our) .{0,25}to (?:a close|an end)\b",
            "strong",
            True,
        ),
        (r"^(?:exit|quit|stop|end|bye)\W*$", "very_strong", True),
        (
            r"\b(?:want|like|need) to (?:stop|end|finish|quit)\b(?! (?:the|a|my) (?!interview|session))",
            "strong",
            False,
        ),
        (r"\b(?:bye|goodbye)\b", "strong", True),
        (r"\bstop\b|\bend\b|\bfinish\b|\bquit\b", "weak", False),
    ),
    "continue": _cues(
        (r"\bnext (?:question|one)\b", "very_strong", True),
        (
            rf"\b(?:go on|go ahead|carry on|keep going|proceed|continue|cont?inue|contiune|resume|move along){_END}",
            "strong",
            True,
        ),
        (r"\bready\b(?! to (?!go|start|begin|continue))", "fair", False),
        (
            rf"\blet'?s (?:start|begin|go|do it|do this|continue|get started|resume){_END}",
            "very_strong",
            True,
        ),
        (
            r"^(?:ok(?:ay)?|sure|yes|yep|alright|fine|cool)[,.! ]*(?:next|go|continue|shoot|ready)\b",
            "very_strong",
            True,
        ),
        (r"^(?:next|continue|proceed|go|shoot)\W*(?:please|pls)?\W*$", "certain", True),
        (r"\bkeep (?:them|em|'em|the questions|it) coming\b", "very_strong", True),
        (
            r"\b(?:go ahead|carry on|continue) (?:with|and) (?:whatever|your|the next|asking)\b",
            "strong",
            True,
        ),
        (
            r"\bask (?:me )?(?:the next|another|your next)\b|\bwhat'?s next\b|\b(?:ask|fire) away\b",
            "very_strong",
            True,
        ),
    ),
}


@dataclass(frozen=True)
class IntentGuess:
    type: Intent
    confidence: float
    cue: str


def classify(text: str) -> IntentGuess:
    """The candidate's intent with a confidence in [0, 1]."""
    parameters = intent_parameters()
    p, strengths = parameters.sentences, parameters.cue_strengths
    normal = _normalise(text)
    if not normal:
        return IntentGuess("no_intent", p.empty_turn_confidence, "")
    words = len(normal.split())
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", normal) if s.strip()]
    best = IntentGuess("no_intent", 0.0, "")
    for index, sentence in enumerate(sentences):
        framed = bool(_FRAME.search(sentence)) or sentence.rstrip().endswith("?")
        hypothetical = sentence.startswith("if ")  # "if i had to do it again i'd skip the..."
        narrative = hypothetical or (bool(_NARRATIVE.search(sentence)) and not framed)
        short = words <= p.short_turn_words
        last = index == len(sentences) - 1
        for intent, cues in CUES.items():
            for cue in cues:
                match = cue.pattern.search(sentence)
                if match is None:
                    continue
                weight: float = getattr(strengths, cue.strength)
                if narrative:
                    weight -= p.narrative_penalty
                elif not (framed or short or cue.alone):
                    weight -= p.unframed_penalty
                elif framed and last and words > p.short_turn_words:
                    weight += p.framed_last_bonus  # "... Can we move on to something else?"
                if short and not narrative:
                    weight += p.short_turn_bonus
                if words <= p.tiny_turn_words and not narrative:
                    weight += p.tiny_turn_bonus  # "stop", "ok next", "bye"
                if weight > best.confidence:
                    confidence = round(min(weight, p.most_confidence), 2)
                    best = IntentGuess(intent, confidence, match.group(0))
    if best.confidence < p.intent_from:
        # no intent, the surer the weaker the best cue (1 with none, 0.75 at intent_from 0.5)
        return IntentGuess("no_intent", round(1.0 - best.confidence / 2, 2), "")
    return best


def _normalise(text: str) -> str:
    lowered = text.lower().replace("’", "'").replace("‘", "'")
    return re.sub(r"[ \t]+", " ", lowered).strip()
