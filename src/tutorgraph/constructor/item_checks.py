"""The quiz checks, whichever engine wrote the items (used by quiz generation and validation):

- answerable (`EvidenceIndex.supporting_passage`): a BM25 search of the sources with the
  question alone finds, in its top results, a passage that holds each key point's words that
  the question does not already say, within a few consecutive sentences or lines. A passage
  that only repeats the question's own sentence supports nothing (it holds no word the
  question lacks), so answerability can fail. A predict-the-output item is supported by the
  passage that holds its program: its expected output comes from running that program, not
  from the text;
- leaks: the question states most of one of its key points, a short key point (a blank's
  term, a one-word answer) is in the question, also by stem ("binary" / "binaries");
- stands alone and well formed (`wording_problems`): no "this", "these", "the above", "the
  following", "here", "as shown" pointing outside the question (code is left out of the
  test), no sentence fragment followed by "Why?", an opening capital and a closing "?" or ".";
- a fair multiple-choice form (`choice_problems`): enough options, none repeated, no "all /
  none of the above", a right option that is not the longest by far, a why_wrong per option;
- duplicates: two items whose content words mostly coincide.

What it cannot judge: whether a question is interesting or its answer is true beyond what
the sources say. How many results, how much and how mostly are parameters: `item_checks` in
constructor/parameters.yaml."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

import bm25s

from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import QuizItem, SourceChunk
from tutorgraph.constructor.text import FENCE_BLOCK, overlap, stems_of
from tutorgraph.text.stemming import stem_words
from tutorgraph.text.tokens import normalise


class EvidenceIndex:
    """BM25 over the source chunks: the answerability check's search."""

    _recent: ClassVar[dict[tuple[str, ...], EvidenceIndex]] = {}

    @classmethod
    def of(cls, chunks: Sequence[SourceChunk]) -> EvidenceIndex:
        """The index of these chunks, built once: quiz generation checks every topic's items
        and validation checks them all again against the same sources. (Chunk ids name an
        upload and a position, so the same ids are the same text.)"""
        key = tuple(c.chunk_id for c in chunks)
        index = cls._recent.get(key)
        if index is None:
            index = cls(chunks)
            cls._recent.clear()  # one build's sources at a time
            cls._recent[key] = index
        return index

    def __init__(self, chunks: Sequence[SourceChunk]) -> None:
        self.chunks = list(chunks)
        self._windows: dict[tuple[str, int], list[set[str]]] = {}  # (chunk id, size) -> windows
        self._retriever = bm25s.BM25()
        if self.chunks:
            self._retriever.index(self._tokens([c.text for c in self.chunks]), show_progress=False)

    @staticmethod
    def _tokens(texts: Sequence[str]) -> bm25s.tokenization.Tokenized:
        return bm25s.tokenize(list(texts), stopwords="en", stemmer=stem_words, show_progress=False)

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

    def supporting_passage(self, item: QuizItem) -> SourceChunk | None:
        """The first chunk of a search with the question alone (`item_checks.answerable_top_k`
        results; the reference answer is not part of the query) that supports the item's key
        points: for each key point, the words it has that the question does not say are, for
        `answerable_coverage` of them, within `support_window` consecutive sentences or lines
        of the chunk. None when no retrieved chunk does, or when the question already says all
        its key points (a copy of the question's own sentence supports nothing). A predict item
        is supported by the chunk that holds its program (its output is the program's run)."""
        q = constructor_parameters().item_checks
        asked = stems_of(item.text)
        needed = [
            wanted - asked
            for point in item.key_points
            if (wanted := stems_of(_output_removed(point)))
        ]
        if item.asks == "predict":
            needed = [stems_of(item.evidence)]
        needed = [stems for stems in needed if stems]
        if not needed:
            return None
        for chunk in self.search(item.text, k=q.answerable_top_k):
            windows = self.windows_of(chunk, q.support_window)
            if all(
                any(overlap(stems, window) >= q.answerable_coverage for window in windows)
                for stems in needed
            ):
                return chunk
        return None

    def windows_of(self, chunk: SourceChunk, size: int) -> list[set[str]]:
        """`_windows` of a chunk, computed once per index (every item searches the same
        chunks)."""
        key = (chunk.chunk_id, size)
        if key not in self._windows:
            self._windows[key] = _windows(chunk.text, size)
        return self._windows[key]

    def evidence_for(self, item: QuizItem) -> SourceChunk | None:
        """The passage that supports the item (`supporting_passage`; the old name)."""
        return self.supporting_passage(item)


def _output_removed(point: str) -> str:
    return point.removeprefix("It prints: ")


_UNIT_END = re.compile(r"(?<=[.!?])\s+|\n+")


def _windows(text: str, size: int) -> list[set[str]]:
    """The content stems of every run of `size` consecutive sentences or lines of the text."""
    units = [stems_of(u) for u in _UNIT_END.split(text) if u.strip()]
    if len(units) <= size:
        return [set().union(*units)] if units else []
    return [set().union(*units[i : i + size]) for i in range(len(units) - size + 1)]


BLANK = "_____"


def leaks(item: QuizItem) -> bool:
    """The question gives away one of its key points: it holds `leak_share` of a key point's
    content stems (a point of `leak_min_stems` or more), or all the stems of a shorter one (a
    blank's term, a one-word answer; "binaries" gives away "binary"). A code block in the
    question is left out: a program's output repeats its print statements' words without
    giving away what it computes. A choice item's options are not the question. A command or
    query that is the whole key point ("which query counts the rows of each species?") is given
    away only when the question writes it: its words naming the job are what it asks about; the
    command or query a "what does `...` do?" shows is left out like a program."""
    q = constructor_parameters().item_checks
    asked = stems_of(FENCE_BLOCK.sub(" ", item.text))
    if item.asks == "command":  # reading the command or query it shows is what it asks
        asked = stems_of(_CODE.sub(" ", FENCE_BLOCK.sub(" ", item.text)))
    blank = BLANK in item.text or item.asks == "blank"
    for point in item.key_points:
        if item.asks == "command" and _WHOLE_CODE.match(point):
            if point.strip("`") in item.text:
                return True
            continue
        point_stems = stems_of(_output_removed(point))
        if not point_stems:
            continue
        if blank and point_stems & asked:
            return True
        if len(point_stems) >= q.leak_min_stems:
            if overlap(point_stems, asked) >= q.leak_share:
                return True
        elif point_stems <= asked and item.asks != "predict":
            return True
    return False


# Words that point outside the question: at the thing before it, or a figure it cannot show.
_POINTS_OUTSIDE = re.compile(
    r"\b(this|these|those|the above|above|the following|below|here|as shown|shown here|"
    r"aforementioned)\b",
    re.I,
)
_CODE = re.compile(r"`[^`\n]*`")
_WHOLE_CODE = re.compile(r"^`[^`\n]+`$")
_FRAGMENT_WHY = re.compile(r"[.:]\s*(why|what is this for|how)\?\s*$", re.I)


def wording_problems(item: QuizItem) -> list[str]:
    """Why the question does not stand alone or is not a well-formed question ([] when it
    is): words pointing outside it (code and the code block it shows are not read), a
    statement followed by a bare "Why?", no opening capital or closing "?" / "."."""
    text = _CODE.sub(" ", FENCE_BLOCK.sub(" ", item.text)).strip()
    problems = []
    pointing = _POINTS_OUTSIDE.search(text)
    if pointing:
        problems.append(f"does not stand alone: '{pointing.group(0)}' points outside the question")
    if _FRAGMENT_WHY.search(text):
        problems.append("not a whole question: a statement followed by a bare question word")
    first_line = text.splitlines()[0].strip() if text else ""
    if not first_line[:1].isupper() or not first_line.rstrip().endswith(("?", ".", ":")):
        problems.append("not a whole question: it must open with a capital and end with ? or .")
    return problems


_CATCH_ALL = re.compile(r"\b(all|none|both|neither) of the (above|options|answers)\b", re.I)


def choice_problems(item: QuizItem) -> list[str]:
    """Why the item's multiple-choice form is unfair ([] when it is, or has none): fewer
    than `choice_min_options` options, a repeated option, "all / none of the above", the
    right option longer than `choice_length_ratio` times the longest wrong one, or no
    why_wrong entry per option."""
    if not item.options:
        return []
    q = constructor_parameters().item_checks
    problems = []
    options = item.options
    if item.correct_index is None or not 0 <= item.correct_index < len(options):
        return ["its right option is not one of its options"]
    if len(options) < q.choice_min_options:
        problems.append(f"a choice item needs {q.choice_min_options} options")
    if len({normalise(o) for o in options}) < len(options):
        problems.append("two options say the same")
    if any(_CATCH_ALL.search(o) for o in options):
        problems.append("an option is 'all/none of the above'")
    right = len(options[item.correct_index])
    longest_wrong = max(
        (len(o) for i, o in enumerate(options) if i != item.correct_index), default=0
    )
    if right > q.choice_length_ratio * longest_wrong:
        problems.append("its right option is the longest by far")
    if item.why_wrong and len(item.why_wrong) != len(options):
        problems.append("why_wrong has no entry per option")
    return problems


def duplicates(items: Sequence[QuizItem]) -> dict[str, str]:
    """item id -> the earlier item it duplicates."""
    same = constructor_parameters().item_checks.duplicate_share
    seen: list[tuple[str, set[str], set[str]]] = []
    found: dict[str, str] = {}
    for item in items:
        question, answer = stems_of(item.text), stems_of(item.reference_answer)
        for other_id, other_q, other_a in seen:
            same_question = question == other_q or (
                overlap(question, other_q) >= same and overlap(other_q, question) >= same
            )
            if same_question and overlap(answer, other_a) >= same:
                found[item.item_id] = other_id
                break
        else:
            seen.append((item.item_id, question, answer))
    return found


def check_items(
    items: Sequence[QuizItem], index: EvidenceIndex, *, earlier: Sequence[QuizItem] = ()
) -> list[QuizItem]:
    """Each item with its problems listed (an empty list keeps it). `earlier` items, checked
    before, count only as what an item may duplicate (so a build checks each item once)."""
    dupes = duplicates([*earlier, *items])
    checked = []
    for item in items:
        problems = []
        if index.supporting_passage(item) is None:
            problems.append(
                "not answerable: a search of the sources with the question finds no passage "
                "that supports its key points"
            )
        if leaks(item):
            problems.append("leaks its answer: the question states its key point")
        problems += wording_problems(item)
        problems += choice_problems(item)
        if item.item_id in dupes:
            problems.append(f"duplicates {dupes[item.item_id]}")
        if not item.key_points:
            problems.append("has no key points to grade against")
        checked.append(item.model_copy(update={"problems": problems}))
    return checked
