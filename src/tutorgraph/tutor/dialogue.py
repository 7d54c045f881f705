"""How the offline tutor reads a conversation. The state is rebuilt from the messages every turn
(nothing lives in process memory, so a chat resumes anywhere):

- the *topic*: the passage the tutor's last teaching reply cited first (lesson title and heading
  path), the learner question that opened it, and what the tutor has said about it;
- the *move* this turn makes: a new question, or a follow-up on the topic ("i don't get it" ->
  confused, "simpler" / ELI5, "why?", "an example?", "an analogy?" / "so it's like...?", "in
  code?", "tell me more", "give me a hint" / "let me work it out", "just tell me the answer", an
  answer to the tutor's own question -> attempt, "summarise", "which lesson is that in?" ->
  where), or in Explore a question about the
  catalogue or about what to learn next;
- the search query the turn becomes: a follow-up is searched as its topic (heading and opening
  question, plus any words of its own), a new question as itself.

A turn with words of its own about something else is a new question even when it says "why"
("why is attention permutation-equivariant?"): a follow-up must be about the topic, or say too
little to be about anything else. How few is too little, and how much is about the topic, are
parameters: `dialogue` in tutor/parameters.yaml."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from tutorgraph.text.query import stem_set
from tutorgraph.tutor.blocks import strip_blocks
from tutorgraph.tutor.compose import QUIZ_LEAD, Cited, citations
from tutorgraph.tutor.parameters import tutor_parameters

Move = Literal[
    "new",
    "confused",
    "simpler",
    "why",
    "example",
    "diagram",
    "analogy",
    "code",
    "more",
    "hint",
    "answer",
    "attempt",
    "summary",
    "catalogue",
    "what_next",
    "where",
]

# Follow-up moves in the order they are tried: the first pattern that matches names the move.
_MOVE_PATTERNS: dict[Move, str] = {
    "answer": r"\b(just tell me|tell me the answer|give me the answer|what'?s the answer|i give up|"
    r"done guessing|stop hinting|reveal it)\b",
    "hint": r"\b(hint|let me (work|figure|try|think)|don'?t tell me|without (telling|giving)|nudge|"
    r"work it out myself)\b",
    "summary": r"\b(summar|recap|tl;?dr|key (points|takeaways)|in a nutshell|main points|"
    r"cheat ?sheet)\w*",
    "simpler": r"\b(simpler|more simply|shorter|shorten|briefer|fewer words|\d+ lines|"
    r"plain (english|words|language)|eli5|dumb it down|"
    r"like i'?m (5|five|a kid|not)|non[- ]?math|without (the )?(math|jargon)|in simple terms)\b",
    "confused": r"(\b(don'?t|dont|do not|didn'?t) (get|understand|follow)|\bconfus|\bi'?m lost|"
    r"\bstill (confused|lost|don'?t|dont|not sure)|\blost me\b|makes no sense|not following|"
    r"what do you mean|\bhuh\b|^\s*what\?\s*$)",
    "diagram": r"\b(diagram|draw( me)?|visuali[sz]e|visual|flowchart|flow chart|sketch)\b",
    "analogy": r"\b(analog\w*|metaphor|like what|compare it to|so (it'?s|its|it is) like|"
    r"is it (kind of |sort of |kinda )?like|everyday (example|picture)|picture it)\b",
    "code": r"(\bin code\b|\bshow (me )?(the |some )?code\b|\bimplement(ation)?\b|\bsnippet\b|"
    r"\bcode (for|example|it|that|this)\b|\bin (python|numpy)\b)",
    "example": r"\b(example|for instance|e\.g\.|concrete|with (real )?numbers|worked)\b",
    "more": r"\b(tell me more|go deeper|more detail|elaborate|keep going|what else|continue|"
    r"go on)\b",
    "why": r"(^\W*((but|and|ok|okay|so|hmm|wait)\W+)*why\b|\bwhy (is|does|do|would|not|that|"
    r"though|the)\b|\bhow come\b)",
}
_STYLE = re.compile(
    "|".join(_MOVE_PATTERNS[m] for m in ("simpler", "analogy", "hint", "answer")), re.IGNORECASE
)
_MOVES: tuple[tuple[Move, re.Pattern[str]], ...] = tuple(
    (move, re.compile(pattern, re.IGNORECASE)) for move, pattern in _MOVE_PATTERNS.items()
)
_CATALOGUE = re.compile(
    r"\b((what|which) (courses|lessons|topics|subjects)|courses (can|do|are|you|there)|catalog\w*|"
    r"what can (i|you) (learn|study|teach)|what (can|do) you (help|teach|cover|know)|"
    r"what (else )?(is|'s) (here|available|on offer))\b",
    re.IGNORECASE,
)
_WHAT_NEXT = re.compile(
    r"\b((learn|study|take|do|read) (next|after)|what('?s| is| should i .*) next|next (lesson|step|"
    r"course)|after (finishing |completing |doing )?(the )?\w+.*\b(what|which)\b|where (do|should) "
    r"i (go (next|from here)|start|begin)|(start|begin) (with|from)|from scratch)",
    re.IGNORECASE,
)
_WHERE = re.compile(  # "which lesson is that in?": where the topic is taught
    r"\b((which|what) (lesson|course|section|chapter|part|page)\b.{0,24}\b(is|was|covers?|"
    r"teach\w*|explains?) (that|this|it)\b|where (is|was|can i (find|read|learn)) (that|this|it)\b|"
    r"where('?s| is) (that|this) (from|covered|taught|explained))",
    re.IGNORECASE,
)
_ATTEMPT = re.compile(
    r"^\W*((ok|okay|hmm|so|then|oh|um+|wait)\W+)*(is it|it'?s|it is|i think|maybe|because|would "
    r"it be|could it be|so it|that'?s because|my guess|i'?d say|\d)",
    re.IGNORECASE,
)
# "and for dicts?", "ok what about lists?": the last request, about another subject
_AND_FOR = (
    r"^\W*((ok|okay|so|now|and|also|hmm|right)\W+)*(and|what about|how about|same for|also)\b"
)
AND_FOR = re.compile(_AND_FOR, re.IGNORECASE)
_LEANS_ON_CONTEXT = re.compile(
    r"\b(it|that|this|those|these|them|the other( one)?|same|instead|then|both|either|neither|"
    rf"ones?)\b|{_AND_FOR}",
    re.IGNORECASE,
)
# What the tutor says when the courses lack what was asked; written and read by this phrase.
NOT_GUESSING = "I only answer from the course material, so I won't guess"
_LESSON_LINK = re.compile(r"/learn/[\w-]+/([\w-]+)")


@dataclass(frozen=True)
class Topic:
    """What the conversation is currently about."""

    cited: Cited
    question: str  # the learner's message that opened it
    said: str  # everything the tutor has said about it, for "more" and "don't repeat"

    @property
    def lesson_link(self) -> str | None:
        """The /learn address of the topic's lesson, when a reply gave it (Explore's do)."""
        found = _LESSON_LINK.search(self.said)
        return found.group(0) if found else None

    @property
    def lesson_slug(self) -> str | None:
        link = self.lesson_link
        return link.rsplit("/", 1)[-1] if link else None

    @property
    def words(self) -> set[str]:
        heading = " ".join(self.cited.heading_path) or self.cited.lesson_title
        said = strip_blocks(self.said).replace(QUIZ_LEAD, " ")  # "pick one" is not the topic's
        return stem_set(f"{heading} {self.question} {said}")


@dataclass(frozen=True)
class Dialogue:
    asked: list[str] = field(default_factory=list)  # earlier learner messages
    replies: list[str] = field(default_factory=list)  # earlier tutor replies
    topic: Topic | None = None

    @classmethod
    def read(cls, asked: Sequence[str], replies: Sequence[str]) -> Dialogue:
        """The state the earlier turns leave (pairs of learner message and tutor reply)."""
        topic: Topic | None = None
        for question, reply in zip(asked, replies, strict=False):
            cited = citations(reply)
            if not cited:
                continue
            same = topic is not None and any(
                c.heading_path == topic.cited.heading_path for c in cited
            )
            if same and topic is not None:
                topic = Topic(topic.cited, topic.question, f"{topic.said}\n{reply}")
            else:
                topic = Topic(cited[0], question, reply)
        return cls(list(asked), list(replies), topic)

    @property
    def last_reply(self) -> str:
        return self.replies[-1] if self.replies else ""

    @property
    def redirected(self) -> bool:
        """Whether the last reply said the courses lack what was asked."""
        return NOT_GUESSING in self.last_reply

    def tutor_asked(self) -> bool:
        """Whether the tutor's last reply ended by asking the learner something."""
        prose = strip_blocks(self.last_reply).strip()
        return prose.endswith("?") or "<quiz>" in self.last_reply

    def hints_in_a_row(self) -> int:
        count = 0
        for question in reversed(self.asked):
            if move_of(question, None, explore=False) not in ("hint", "attempt"):
                break
            count += 1
        return count


def move_of(message: str, dialogue: Dialogue | None, *, explore: bool) -> Move:
    """What the learner's message does (see the module doc)."""
    if explore and _CATALOGUE.search(message):
        return "catalogue"
    if explore and _WHAT_NEXT.search(message):
        return "what_next"
    topic = dialogue.topic if dialogue is not None else None
    if topic is not None and _WHERE.search(message):
        return "where"
    for move, pattern in _MOVES:
        if pattern.search(message):
            if topic is None and move not in ("summary", "hint", "answer", "diagram"):
                return "new"
            if move in ("answer", "hint", "summary", "diagram") or about_topic(message, topic):
                return move
            return "new"
    if (
        topic is not None
        and dialogue is not None
        and dialogue.tutor_asked()
        and _ATTEMPT.search(message)
        and about_topic(message, topic)
    ):
        return "attempt"
    return "new"


def about_topic(message: str, topic: Topic | None) -> bool:
    """A follow-up on the topic: its own words are mostly the topic's, or too few to change it."""
    if topic is None:
        return False
    # The lesson's own name is in every question about it: it does not tie a turn to the topic.
    own = stem_set(_strip_move_words(message)) - stem_set(topic.cited.lesson_title)
    q = tutor_parameters().dialogue
    if len(own) <= q.few_words:
        return True
    return len(own & topic.words) / len(own) >= q.related_share


def _strip_move_words(message: str) -> str:
    for _, pattern in _MOVES:
        message = pattern.sub(" ", message)
    return message


def query_for(message: str, move: Move, dialogue: Dialogue) -> str:
    """The search query a turn becomes (see the module doc). The search tool spells out symbols
    and abbreviations itself (`_text.expand`)."""
    topic = dialogue.topic
    own = _strip_move_words(message)
    q = tutor_parameters().dialogue
    if topic is None or move in ("new", "catalogue", "what_next"):
        own = _STYLE.sub(" ", message)  # "explain X like i'm five": search for X
        if _LEANS_ON_CONTEXT.search(message) and len(stem_set(own)) <= q.leans_on_context_words:
            # "and for dicts?", "what's in that first lesson": the conversation says what
            before = topic.question if topic is not None else " ".join(_named(dialogue.last_reply))
            if topic is not None or not dialogue.redirected:
                return f"{own} {before}"
        if (
            topic is not None
            and move == "new"
            and len(stem_set(own)) <= q.few_for_topic
            and about_topic(message, topic)
        ):
            # "which arrow is the p - y step?" after the diagram: mostly the topic's own words, so
            # searched together with the section it is about
            return f"{own} {topic.cited.heading}"
        return own if stem_set(own) else message
    heading = " ".join(topic.cited.heading_path[-1:])
    return " ".join(part for part in (heading, topic.question, own) if part.strip())


def _named(reply: str) -> list[str]:
    """What a reply named in bold (lesson titles in Explore's answers)."""
    return re.findall(r"\*\*([^*]+)\*\*", reply)[:1]


def own_words(message: str) -> set[str]:
    """The message's content words beyond the move it makes ("why", "i don't get it")."""
    return stem_set(_strip_move_words(message))
