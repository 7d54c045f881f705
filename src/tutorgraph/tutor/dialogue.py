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
from typing import Literal, get_args

from tutorgraph.content.chunking import split_sections
from tutorgraph.text.lexicon_check import everyday_forms
from tutorgraph.text.query import stem_set, stems
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


# --- the turn decider -----------------------------------------------------------------------------

Intent = Literal["continue", "new_in_lesson", "leave_lesson", "repeat", "confused"]
INTENTS: tuple[Intent, ...] = get_args(Intent)

# "say that again", "could you say again the formula": the same words, asked for
_REPEAT = re.compile(
    r"(\b(say|show|give|post|paste|read|write|tell)\b[^.?!]{0,40}\b(again|once more)\b|"
    r"\brepeat\b|\bcome again\b|\bone more time\b|\bwhat did you (just )?say\b|"
    r"\bscroll(ed)? (back|up)\b|\b(go|take me) back to what you said\b)",
    re.IGNORECASE,
)
# "explain it another way", "none of that clicked": the same idea, other words
_ANOTHER_WAY = re.compile(
    r"\b(another way|(?<!the )other way(?! a?round)|different(ly| way| words| angle)|"
    r"other words|rephrase|reword|"
    r"(put|say|explain) (it|that|this) (differently|otherwise)|"
    r"(doesn'?t|does not|didn'?t|did not|never|none of (that|this|it)) (make sense|click\w*)|"
    r"not clicking|makes no sense|confus\w*|lost me|i'?m lost|"
    r"(not|n'?t|dont|never) (understand|understood|follow(ing)?|get(ting)? it)|"
    r"still (don'?t|do not|not) (get|see|understand))\b",
    re.IGNORECASE,
)
# "unrelated, but...", "random q": the learner says the subject changes
_CHANGE_OF_SUBJECT = re.compile(
    r"\b(unrelated|random (q|question)|off[- ]topic|other question|different (question|topic)|"
    r"side question|by the way|btw|another thing|change of subject|new question|"
    r"back to the lesson)\b",
    re.IGNORECASE,
)
# A turn that leans on what was just said: a pronoun, or it opens with a link word
# ("and...", "so...", "but...", "what if...").
_POINTS_BACK = re.compile(
    r"\b(it|its|this|that|these|those|them|then|there)\b|"
    r"^\W*((ok|okay|hmm|right|oh|ah|wait)\W+)*(and|so|but|or|then|also|what if|now|same|even)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class LessonScope:
    """What the open lesson covers, read from its text: how often it says each content word
    (lesson and reference notes), the words of its headings, and the other lessons of the course
    by the words of their titles and concepts. With it a new question is told from one that
    leaves the lesson, without a search."""

    title: str = ""
    mentions: dict[str, int] = field(default_factory=dict)
    heading_words: frozenset[str] = frozenset()
    headings: tuple[tuple[str, frozenset[str]], ...] = ()  # (heading, its words)
    sections: tuple[tuple[tuple[str, ...], frozenset[str]], ...] = ()  # (heading path, words)
    others: tuple[tuple[str, frozenset[str]], ...] = ()  # (lesson title, its words)

    @classmethod
    def of(
        cls,
        *,
        title: str,
        content: str,
        reference_notes: str = "",
        others: Sequence[tuple[str, Sequence[str]]] = (),
    ) -> LessonScope:
        mentions: dict[str, int] = {}
        for word in stems(f"{content}\n{reference_notes}"):
            mentions[word] = mentions.get(word, 0) + 1
        found = re.findall(r"^#{2,4}\s+(.+?)\s*$", content, flags=re.MULTILINE)
        sections = tuple(
            (tuple(section.heading_path[1:]), frozenset(stem_set("\n".join(section.blocks))))
            for section in split_sections(content)
        )
        headings = tuple((h, frozenset(stem_set(h))) for h in found)
        return cls(
            title=title,
            mentions=mentions,
            heading_words=frozenset(w for _, words in headings for w in words),
            headings=headings,
            sections=sections,
            others=tuple(
                (name, frozenset(stem_set(f"{name} {' '.join(c.replace('-', ' ') for c in cs)}")))
                for name, cs in others
            ),
        )

    def covers(self, words: set[str]) -> bool:
        """Whether the lesson teaches these words: it says enough of them often enough
        (`dialogue.in_lesson_share`, `dialogue.lesson_mentions`), and no other lesson of the
        course is named by one it only mentions in passing."""
        if not words:
            return True
        q = tutor_parameters().dialogue
        said = {w for w in words if self.mentions.get(w, 0) >= q.lesson_mentions}
        if len(said) / len(words) < q.in_lesson_share:
            return False
        return self.taught_elsewhere(words) is None

    def taught_elsewhere(self, words: set[str]) -> str | None:
        """The other lesson of the course whose title or concepts name words this lesson says
        at most in passing (fewer than `dialogue.lesson_mentions` times), the one naming most of
        them; None when there is none."""
        least = tutor_parameters().dialogue.lesson_mentions
        outside = {w for w in words if self.mentions.get(w, 0) < least}
        best = max(((len(outside & named), title) for title, named in self.others), default=None)
        return best[1] if best is not None and best[0] else None

    def said_in_section(self, words: set[str], path: Sequence[str]) -> bool:
        """Whether the lesson section at `path` (or one under it) says at least
        `dialogue.in_lesson_share` of `words`: a question about a detail of the topic."""
        share = tutor_parameters().dialogue.in_lesson_share
        said: set[str] = set()
        for heading_path, text in self.sections:
            if path and heading_path[: len(path)] == tuple(path):
                said |= words & text
        return bool(words) and len(said) >= share * len(words)

    def unknown(self, message: str) -> set[str]:
        """The message's words that are neither everyday English nor said by the lesson: terms
        of another subject ("parquet", "laptop")."""
        words = set(re.findall(r"[a-z][a-z0-9]+", message.lower()))
        return {
            w
            for w in words - everyday_forms()
            if not (stem_set(w) & set(self.mentions)) and stem_set(w)
        }

    def section_naming(self, words: set[str]) -> str | None:
        """The lesson heading `words` name: the one that says most of them, when they say at
        least `dialogue.in_lesson_share` of its own words (beyond the lesson's title): "multi
        head" names "Multi-head attention"; "model" alone does not name "Causal masking for
        autoregressive models". None when no heading is named."""
        title = stem_set(self.title)
        share = tutor_parameters().dialogue.in_lesson_share
        named = [
            (len(words & own), h)
            for h, heading in self.headings
            if (own := heading - title) and len(words & own) >= share * len(own)
        ]
        best = max(named, default=None)
        return best[1] if best is not None and best[0] else None


@dataclass(frozen=True)
class TurnDecision:
    """What a turn does, decided before anything is searched: its intent, the follow-up move
    (for `continue` and `confused`), and the words it is about (for a new question, its own
    words, never the previous topic's)."""

    intent: Intent
    move: Move
    about: str  # what to search for, in the learner's words

    @property
    def follows(self) -> bool:
        """Whether the turn is answered from the conversation's topic (searched with it)."""
        return self.intent in ("continue", "confused")


def decide(message: str, dialogue: Dialogue, scope: LessonScope) -> TurnDecision:
    """The turn decider (decision 0048), a pure function of the conversation and the lesson:

    - repeat: the learner asks for the same words again ("say that again");
    - confused: the learner did not follow ("i don't get it", "explain it another way") or
      asks for it simpler: the same idea, told another way;
    - continue: a follow-up on the topic ("why?", "and in code?", "an example?", an answer to
      the tutor's question) that names nothing new;
    - new_in_lesson: a question about something the lesson teaches that is not the topic, even
      when it is terse and leans on the conversation ("ok what about multi-head?");
    - leave_lesson: a question the lesson does not teach (another lesson's subject, or none)."""
    topic = dialogue.topic
    if asks_to_repeat(message, bool(dialogue.replies)):
        return TurnDecision("repeat", "new", message)
    move = move_of(message, dialogue, explore=False)
    if move in _ABOUT_THE_TOPIC and topic is not None:
        return TurnDecision("continue", move, message)  # an attempt may name anything
    own = own_words(message) - stem_set(scope.title)
    new = own - _core_words(topic) - _QUESTION_CHAT
    if topic is None or _CHANGE_OF_SUBJECT.search(message):
        changing = bool(_CHANGE_OF_SUBJECT.search(message))
        return _new(message, own, scope, changing=changing, move=move)
    if _names_another_section(new, topic, scope):
        return _new(message, own, scope)  # "why multi-head?" after the scaling: a new section
    if _ANOTHER_WAY.search(message) or move in ("confused", "simpler"):
        return TurnDecision("confused", "simpler" if move == "simpler" else "confused", message)
    if not new:
        return TurnDecision("continue", move if move != "new" else "more", message)  # "and?"
    if scope.said_in_section(new, topic.cited.heading_path):
        return TurnDecision("continue", move, message)
    if scope.taught_elsewhere(new) is not None and not scope.covers(new):
        return _new(message, own, scope)  # another lesson's subject
    if not scope.covers(new) and not _POINTS_BACK.search(message):
        return _new(message, own, scope)  # "how to pick lora rank" in a lesson on lists
    terse = len(new) <= _terse() and not _COMPARES.search(message)
    if move != "new" or _POINTS_BACK.search(message) or terse:
        # "why is the hidden size 4x d_model?", "what if a whole row is masked", "exposure
        # bias?": a follow-up on the topic, even when it names a detail of it (a question of
        # its own, move "new", is answered as a question searched with the topic)
        return TurnDecision("continue", move, message)
    return _new(message, own, scope)


# "TaskGroup vs gather": two things set side by side, a question of its own however short.
_COMPARES = re.compile(r"\b(vs\.?|versus)\b", re.IGNORECASE)


def _terse() -> int:
    """A turn with at most this many new words says too little to start a subject of its own."""
    return tutor_parameters().dialogue.leans_on_context_words


# Moves that only make sense about the topic in play, whatever words they use.
_ABOUT_THE_TOPIC: frozenset[Move] = frozenset({"attempt", "answer", "hint", "where", "diagram"})
# Words of a turn that ask, not name ("so", "mean", "work"): never a new subject on their own.
_QUESTION_CHAT = frozenset(stem_set("mean means work works happen happens thing things ok okay"))


def _new(
    message: str,
    own: set[str],
    scope: LessonScope,
    *,
    changing: bool = False,
    move: Move = "new",
) -> TurnDecision:
    """A new question: in the lesson when it teaches what is asked; leaving it when not, or when
    the learner says the subject changes and names a term the lesson never says."""
    about = _AND_FOR_PREFIX.sub("", message).strip() or message
    inside = scope.covers(own) and not (changing and scope.unknown(message))
    intent: Intent = "new_in_lesson" if inside else "leave_lesson"
    return TurnDecision(intent, move if move in _WITHOUT_A_TOPIC else "new", about)


# Moves that need no topic: "summarise the lesson", "draw it", "a hint", "the answer".
_WITHOUT_A_TOPIC: frozenset[Move] = frozenset({"summary", "diagram", "hint", "answer"})


_AND_FOR_PREFIX = re.compile(_AND_FOR, re.IGNORECASE)


def _core_words(topic: Topic | None) -> set[str]:
    """What the topic is about in its own terms: its heading path and the question that opened
    it (not every word the tutor said about it)."""
    if topic is None:
        return set()
    return stem_set(f"{' '.join(topic.cited.heading_path)} {topic.question}")


def _names_another_section(new: set[str], topic: Topic, scope: LessonScope) -> bool:
    """Whether words the topic does not say name another heading of the lesson (a distinct
    subject it teaches: "multi-head" after the scaling section)."""
    words = new - _QUESTION_CHAT
    if not words:
        return False
    heading = scope.section_naming(words)
    return heading is not None and heading not in topic.cited.heading_path


def asks_to_repeat(message: str, conversing: bool) -> bool:
    """Whether the learner asks to see what was said again (the one case a reply may repeat an
    earlier one)."""
    return conversing and bool(_REPEAT.search(message)) and not _ANOTHER_WAY.search(message)
