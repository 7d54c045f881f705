"""The offline quiz writer and the quiz checks.

Writer: questions from templates per Bloom level, each filled from one source sentence (or a
code block and the prose that explains it), so every reference answer is the author's own
words and every key point is a clause the sources state:

| level      | type       | source                                | question                     |
|------------|------------|---------------------------------------|------------------------------|
| remember   | conceptual | "X is/are/means Y"                    | In <topic>, what is X?       |
| understand | conceptual | a sentence with a purpose/cause cue   | What does X do, and why?     |
| apply      | debugging  | a code block near error/bug words     | What goes wrong in the code? |
| apply      | scenario   | a code block and the prose around it  | What does this code do?      |
| apply      | scenario   | "use X when/to ..."                   | When would you use X?        |
| analyze    | conceptual | two key terms with a contrast cue     | How does X differ from Y?    |
| evaluate   | design     | a sentence with a trade-off cue       | What are X's trade-offs?     |

Checks (used by quiz generation and validation): an item is answerable when a BM25 search of
the sources with the question alone finds its evidence in the top results; it leaks when the
question states most of its own key points; two items duplicate when their content words mostly
coincide. The writer cannot judge whether a question is interesting, and its questions are
only as grammatical as the templates."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import bm25s
import Stemmer

from tutorgraph.constructor.state import QuizItem, SourceChunk, Topic
from tutorgraph.constructor.text import (
    code_blocks,
    definition_of,
    overlap,
    sentences,
    stems_of,
)
from tutorgraph.grading._text import normalise
from tutorgraph.knowledge.bloom import BloomLevel, QuestionType

ITEMS_PER_TOPIC = 4
ANSWERABLE_TOP_K = 3
ANSWERABLE_COVERAGE = 0.7  # share of the evidence's content stems a retrieved chunk must hold
LEAK_SHARE = 0.6  # a question holding this share of a key point's content stems gives it away
DUPLICATE_SHARE = 0.8
MAX_CODE_LINES = 14

_PURPOSE = re.compile(
    r"\b(because|so that|in order to|allows?|lets|enables?|prevents?|ensures?|avoids?|"
    r"which means|this means|the reason|helps?|makes it possible)\b",
    re.I,
)
_CONTRAST = re.compile(r"\b(whereas|unlike|instead of|rather than|differs?|while|but not)\b", re.I)
_TRADE_OFF = re.compile(
    r"\b(trade-?off|however|at the cost|downside|drawback|slower|faster|expensive|cheaper|"
    r"advantage|disadvantage|limitation)\b",
    re.I,
)
_USE_WHEN = re.compile(r"\b(use|using|useful|apply)\b.*\b(when|if|to)\b", re.I)
_ERROR_WORDS = re.compile(r"\b(error|bug|exception|fails?|wrong|mistake|traceback)\b", re.I)
_STEMMER = Stemmer.Stemmer("english")


@dataclass(frozen=True)
class TopicMaterial:
    """What the writer needs about one topic: its text and terms."""

    topic: Topic
    text: str


def write_questions(material: TopicMaterial, *, wanted: int = ITEMS_PER_TOPIC) -> list[QuizItem]:
    """Up to `wanted` questions on one topic, one per template family first, climbing Bloom."""
    topic = material.topic
    sents = sentences(material.text)
    candidates = [
        *_definitions(topic, sents),
        *_purposes(topic, sents),
        *_code_questions(topic, material.text),
        *_use_when(topic, sents),
        *_contrasts(topic, sents),
        *_trade_offs(topic, sents),
    ]
    chosen: list[QuizItem] = []
    used_evidence: set[str] = set()
    # One per Bloom level first (breadth), then fill by order.
    for level in BloomLevel:
        for item in candidates:
            if item.bloom_level is level and item.evidence not in used_evidence:
                chosen.append(item)
                used_evidence.add(item.evidence)
                break
    for item in candidates:
        if len(chosen) >= wanted:
            break
        if item.evidence not in used_evidence:
            chosen.append(item)
            used_evidence.add(item.evidence)
    chosen = chosen[:wanted]
    chosen.sort(key=lambda item: item.bloom_level.rank)
    return [
        item.model_copy(update={"item_id": f"{topic.topic_id}-q{i + 1}"})
        for i, item in enumerate(chosen)
    ]


def _item(
    topic: Topic,
    level: BloomLevel,
    kind: QuestionType,
    text: str,
    answer: str,
    points: Sequence[str],
    evidence: str,
) -> QuizItem:
    return QuizItem(
        item_id="",
        topic_id=topic.topic_id,
        bloom_level=level,
        type=kind,
        difficulty=min(5, level.rank + 1),
        text=text,
        reference_answer=answer,
        key_points=[p for p in points if p],
        evidence=evidence,
    )


def _topic_phrase(topic: Topic) -> str:
    return topic.title.strip().rstrip(".:")


def _definitions(topic: Topic, sents: Sequence[str]) -> list[QuizItem]:
    items = []
    for sentence in sents:
        found = definition_of(sentence)
        if found is None or len(sentence.split()) > 45:
            continue
        term, rest = found
        if len(rest.split()) < 4:
            continue
        question = f"In {_topic_phrase(topic)}, what is {_term(term)}?"
        items.append(
            _item(
                topic,
                BloomLevel.REMEMBER,
                "conceptual",
                question,
                sentence,
                [rest],
                sentence,
            )
        )
    return items


def _term(term: str) -> str:
    return f"`{term}`" if re.search(r"[_()\[\].]|^[a-z]+[A-Z]", term) else term


def _focus_term(topic: Topic, sentence: str) -> str | None:
    stems = stems_of(sentence)
    for term in topic.key_terms:
        term_stems = stems_of(term)
        if term_stems and term_stems <= stems:
            return term
    return None


def _purposes(topic: Topic, sents: Sequence[str]) -> list[QuizItem]:
    items = []
    for sentence in sents:
        if not _PURPOSE.search(sentence) or not 8 <= len(sentence.split()) <= 45:
            continue
        term = _focus_term(topic, sentence)
        if term is None:
            continue
        question = (
            f"In {_topic_phrase(topic)}, what does {_term(term)} do, and why does it matter? "
            "Explain in your own words."
        )
        items.append(
            _item(
                topic,
                BloomLevel.UNDERSTAND,
                "conceptual",
                question,
                sentence,
                _clauses(sentence),
                sentence,
            )
        )
    return items


def _clauses(sentence: str) -> list[str]:
    """A sentence cut at its cause/purpose cue into key points (the whole when it cannot be)."""
    match = _PURPOSE.search(sentence)
    if match and match.start() > 15 and len(sentence) - match.end() > 15:
        return [sentence[: match.start()].strip(" ,;"), sentence[match.start() :].strip(" .")]
    return [sentence.rstrip(".")]


def _code_questions(topic: Topic, text: str) -> list[QuizItem]:
    items = []
    paragraphs = re.split(r"\n\s*\n", text)
    for block in code_blocks(text, programs_only=True):
        lines = block.splitlines()
        if not 2 <= len(lines) <= MAX_CODE_LINES:
            continue
        explanation = _explanation_of(block, paragraphs)
        if not explanation:
            continue
        fence = "```\n" + block + "\n```"
        if _ERROR_WORDS.search(" ".join(explanation)):
            question = (
                f"In {_topic_phrase(topic)}, this code does not do what was intended:\n\n"
                f"{fence}\n\nWhat goes wrong, and how would you fix it?"
            )
            kind: QuestionType = "debugging"
        else:
            question = (
                f"In {_topic_phrase(topic)}, what does this code do, and why is it written "
                f"this way?\n\n{fence}"
            )
            kind = "scenario"
        items.append(
            _item(
                topic,
                BloomLevel.APPLY,
                kind,
                question,
                " ".join(explanation),
                explanation,
                block,
            )
        )
    return items


def _explanation_of(block: str, paragraphs: Sequence[str]) -> list[str]:
    """The prose sentences next to a code block (the paragraph before and after it)."""
    first_line = block.splitlines()[0]
    for index, paragraph in enumerate(paragraphs):
        if first_line in paragraph and paragraph.lstrip().startswith(("```", "~~~")):
            around = [paragraphs[i] for i in (index - 1, index + 1) if 0 <= i < len(paragraphs)]
            found = [s for p in around for s in sentences(p) if not s.endswith("?")]
            return [s for s in found if 6 <= len(s.split()) <= 45][:2]
    return []


def _use_when(topic: Topic, sents: Sequence[str]) -> list[QuizItem]:
    items = []
    for sentence in sents:
        if not _USE_WHEN.search(sentence) or not 8 <= len(sentence.split()) <= 45:
            continue
        term = _focus_term(topic, sentence)
        if term is None:
            continue
        question = f"In {_topic_phrase(topic)}, when would you use {_term(term)}, and what for?"
        items.append(
            _item(
                topic,
                BloomLevel.APPLY,
                "scenario",
                question,
                sentence,
                [sentence.rstrip(".")],
                sentence,
            )
        )
    return items


def _contrasts(topic: Topic, sents: Sequence[str]) -> list[QuizItem]:
    items = []
    for sentence in sents:
        if not _CONTRAST.search(sentence) or not 8 <= len(sentence.split()) <= 50:
            continue
        stems = stems_of(sentence)
        terms = [t for t in topic.key_terms if stems_of(t) and stems_of(t) <= stems]
        if len(terms) < 2:
            continue
        a, b = terms[0], terms[1]
        question = f"In {_topic_phrase(topic)}, how does {_term(a)} differ from {_term(b)}?"
        items.append(
            _item(
                topic,
                BloomLevel.ANALYZE,
                "conceptual",
                question,
                sentence,
                [sentence.rstrip(".")],
                sentence,
            )
        )
    return items


def _trade_offs(topic: Topic, sents: Sequence[str]) -> list[QuizItem]:
    items = []
    for sentence in sents:
        if not _TRADE_OFF.search(sentence) or not 8 <= len(sentence.split()) <= 45:
            continue
        term = _focus_term(topic, sentence)
        if term is None:
            continue
        question = (
            f"In {_topic_phrase(topic)}, what are the trade-offs of {_term(term)}? "
            "Say when it is worth it and what it costs."
        )
        items.append(
            _item(
                topic,
                BloomLevel.EVALUATE,
                "design",
                question,
                sentence,
                [sentence.rstrip(".")],
                sentence,
            )
        )
    return items


class EvidenceIndex:
    """BM25 over the source chunks: the answerability check's search."""

    def __init__(self, chunks: Sequence[SourceChunk]) -> None:
        self.chunks = list(chunks)
        self._retriever = bm25s.BM25()
        if self.chunks:
            self._retriever.index(self._tokens([c.text for c in self.chunks]), show_progress=False)

    @staticmethod
    def _tokens(texts: Sequence[str]) -> bm25s.tokenization.Tokenized:
        return bm25s.tokenize(list(texts), stopwords="en", stemmer=_STEMMER, show_progress=False)

    def search(self, query: str, *, k: int) -> list[SourceChunk]:
        if not self.chunks:
            return []
        tokens = self._tokens([query])
        if not tokens.vocab:
            return []
        ids, scores = self._retriever.retrieve(
            tokens, k=min(k, len(self.chunks)), show_progress=False, n_threads=0
        )
        return [self.chunks[int(i)] for i, s in zip(ids[0], scores[0], strict=True) if float(s) > 0]

    def evidence_for(self, item: QuizItem) -> SourceChunk | None:
        """The retrieved chunk that holds the item's evidence, searching with the question
        only (the reference answer is not part of the query)."""
        wanted = normalise(item.evidence)
        wanted_stems = stems_of(item.evidence)
        for chunk in self.search(item.text, k=ANSWERABLE_TOP_K):
            text = normalise(chunk.text)
            if wanted and wanted in text:
                return chunk
            if overlap(wanted_stems, stems_of(chunk.text)) >= ANSWERABLE_COVERAGE:
                return chunk
        return None


def leaks(item: QuizItem) -> bool:
    """The question states most of one of its own key points (ignoring the question's topic
    and the term it asks about)."""
    asked = stems_of(item.text)
    for point in item.key_points:
        point_stems = stems_of(point)
        if len(point_stems) >= 3 and overlap(point_stems, asked) >= LEAK_SHARE:
            return True
    return False


def duplicates(items: Sequence[QuizItem]) -> dict[str, str]:
    """item id -> the earlier item it duplicates."""
    seen: list[tuple[str, set[str], set[str]]] = []
    found: dict[str, str] = {}
    for item in items:
        question, answer = stems_of(item.text), stems_of(item.reference_answer)
        for other_id, other_q, other_a in seen:
            same_question = question == other_q or (
                overlap(question, other_q) >= DUPLICATE_SHARE
                and overlap(other_q, question) >= DUPLICATE_SHARE
            )
            if same_question and overlap(answer, other_a) >= DUPLICATE_SHARE:
                found[item.item_id] = other_id
                break
        else:
            seen.append((item.item_id, question, answer))
    return found


def check_items(items: Sequence[QuizItem], index: EvidenceIndex) -> list[QuizItem]:
    """Each item with its problems listed (an empty list keeps it)."""
    dupes = duplicates(items)
    checked = []
    for item in items:
        problems = []
        if index.evidence_for(item) is None:
            problems.append("not answerable: a search of the sources with the question misses it")
        if leaks(item):
            problems.append("leaks its answer: the question states its key point")
        if item.item_id in dupes:
            problems.append(f"duplicates {dupes[item.item_id]}")
        if not item.key_points:
            problems.append("has no key points to grade against")
        checked.append(item.model_copy(update={"problems": problems}))
    return checked
