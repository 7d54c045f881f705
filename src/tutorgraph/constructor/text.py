"""Text helpers for the offline constructor: prose sentences, code blocks, and salient terms.

Salience is tf-idf over sections: a term counts for a section when it is frequent there and rare
elsewhere; bold and `code` spans, and the subjects of definitional sentences ("X is a ..."), are
boosted because that is how authors mark the terms they introduce. The sizes and boosts are
parameters: `reading` in constructor/parameters.yaml."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.text.stemming import stem
from tutorgraph.text.stopwords import ANSWER_STOPWORDS
from tutorgraph.text.tokens import normalise

FENCE_BLOCK = re.compile(r"^(```|~~~).*?^\1\s*$", re.M | re.S)
# A sentence ends at . ! or ? before a capital, but not after a title or a common abbreviation
# ("Dr. Maverick", "e.g. NumPy"). (Fixed-width lookbehinds: one per abbreviation length.)
_SENTENCE_END = re.compile(
    r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bProf\.)(?<!\bFig\.)"
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)"
    r"(?<=[.!?])\s+(?=[A-Z`\"'(\[])"
)
# List items an extraction ran together ("... printed yet.- The function returns ..."): a
# sentence ends at the period.
_RUN_ON_ITEMS = re.compile(r"(?<=[.!?])-\s*(?=[A-Z`])")
_BOLD = re.compile(r"\*\*([^*\n]{2,60})\*\*|__([^_\n]{2,60})__")
_CODE_SPAN = re.compile(r"`([^`\n]{1,40})`")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_HTML_TAG = re.compile(r"<[^>]+>")
_LIQUID = re.compile(r"\{[%{].*?[%}]\}|\{:[^}]*\}")
_DEFINITION = re.compile(
    r"^(?:an?\s+|the\s+)?(?P<term>[\w`'\- ]{2,48}?)\s+(?:is|are|refers to|means|denotes)\s+"
    r"(?:an?\s+|the\s+|called\s+)?(?P<rest>.+)$",
    re.I,
)
# Extra function words for term extraction (not content in a heading or a key term).
_GENERIC = frozenset(
    [
        "use",
        "used",
        "uses",
        "using",
        "example",
        "examples",
        "see",
        "like",
        "make",
        "makes",
        "made",
        "need",
        "needs",
        "new",
        "first",
        "second",
        "many",
        "much",
        "often",
        "now",
        "way",
        "want",
        "wants",
        "let",
        "lets",
        "look",
        "looks",
        "following",
        "follow",
        "follows",
        "called",
        "call",
        "calls",
        "also",
        "can",
        "show",
        "shows",
        "shown",
        "time",
        "times",
        "number",
        "numbers",
        "different",
        "same",
        "case",
        "cases",
        "work",
        "works",
        "part",
        "parts",
        "go",
        "goes",
        "going",
        "take",
        "takes",
        "give",
        "gives",
        "given",
        "note",
        "just",
        "still",
        "even",
        "every",
        "section",
        "chapter",
        "lesson",
        "episode",
        "figure",
        "table",
        "instead",
        "however",
        "therefore",
        "already",
        "another",
    ]
)


_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)[*_](?=\w)|(?<=\w)[*_](?!\w)")


def _without_emphasis(text: str) -> str:
    """Bold and italic marks removed outside code spans; code keeps its underscores and stars
    (`__iter__()`, `*args`)."""
    parts = re.split(r"(`[^`\n]*`)", text)
    return "".join(p if p.startswith("`") else _EMPHASIS.sub("", p) for p in parts)


def prose(markdown: str) -> str:
    """Markdown without code fences, images, tables, HTML tags and template tags."""
    text = FENCE_BLOCK.sub("\n", markdown)
    text = _LIQUID.sub(" ", text)
    text = _HTML_TAG.sub(" ", text)
    text = _LINK.sub(r"\1", text)
    lines = [
        line
        for line in text.splitlines()
        if not line.lstrip().startswith(("|", "#", ">"))
        and not re.match(r"^\s*[-=*_]{3,}\s*$", line)
    ]
    return "\n".join(lines)


OUTPUT_FENCES = frozenset({"output", "error", "text", "console", "stdout", "stderr", "result"})


def code_blocks(markdown: str, *, programs_only: bool = False) -> list[str]:
    """The bodies of the fenced code blocks, in order; `programs_only` skips blocks fenced as
    program output (```output, ```error...)."""
    blocks = []
    for match in FENCE_BLOCK.finditer(markdown):
        all_lines = match.group(0).splitlines()
        language = all_lines[0].strip().lstrip("`~").strip().lower()
        if programs_only and language in OUTPUT_FENCES:
            continue
        lines = all_lines[1:-1]
        body = "\n".join(lines).strip("\n")
        if body.strip():
            blocks.append(body)
    return blocks


def sentences(markdown: str) -> list[str]:
    """The prose sentences of a markdown text, list markers and emphasis removed."""
    found: list[str] = []
    least = constructor_parameters().reading.sentence_min_words
    for paragraph in re.split(r"\n\s*\n", prose(markdown)):
        lines = [re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", line) for line in paragraph.splitlines()]
        text = " ".join(line.strip() for line in lines if line.strip())
        text = _without_emphasis(text)
        text = _RUN_ON_ITEMS.sub(" ", text)
        for sentence in _SENTENCE_END.split(text):
            sentence = sentence.strip()
            if len(sentence.split()) >= least:
                found.append(sentence)
    return found


def content_words(text: str) -> list[str]:
    """Lower-case words without function words ("what's" counts as "what")."""
    words = (w.split("'")[0] for w in normalise(text).split())
    return [w for w in words if w and w not in ANSWER_STOPWORDS and w not in _GENERIC]


def stems_of(text: str) -> set[str]:
    return {stem(w) for w in content_words(text) if len(w) > 1}


def candidate_terms(text: str) -> Counter[str]:
    """Unigram and bigram terms of the prose (no stopwords inside a term), with counts."""
    counts: Counter[str] = Counter()
    short = constructor_parameters().reading.short_word_letters
    # Identifiers in code spans (`weight_kg`, `data.shape`, `range(3)`) are examples, not terms.
    text = re.sub(r"`[^`\n]*[_.()\[\]\d][^`\n]*`", " ", text)
    for sentence in sentences(text):
        run: list[str] = []
        for word in [*normalise(sentence).split(), "."]:
            if word in ANSWER_STOPWORDS or word in _GENERIC or word == "." or word.isdigit():
                _add_runs(counts, run)
                run = []
            elif len(word) > short or (word.isalpha() and len(word) == short and run):
                run.append(word)
        _add_runs(counts, run)
    return counts


def _add_runs(counts: Counter[str], run: list[str]) -> None:
    for i, word in enumerate(run):
        counts[word] += 1
        if i + 1 < len(run):
            counts[f"{word} {run[i + 1]}"] += 1


def marked_terms(markdown: str) -> set[str]:
    """Terms the author marked in bold (at most `reading.marked_term_max_words` words)."""
    most = constructor_parameters().reading.marked_term_max_words
    marked = {normalise(a or b) for a, b in _BOLD.findall(markdown)}
    return {m for m in marked if m and m not in ANSWER_STOPWORDS and len(m.split()) <= most}


def salient_terms(texts: Sequence[str], *, top: int | None = None) -> list[list[str]]:
    """For each text, its most salient terms (`top`, by default `topics.key_terms`) by tf-idf
    against the others (marked terms boosted; a bigram beats its own unigrams when it is about
    as frequent)."""
    parameters = constructor_parameters()
    q = parameters.reading
    if top is None:
        top = parameters.topics.key_terms
    counts = [candidate_terms(t) for t in texts]
    marks = [marked_terms(t) for t in texts]
    df: Counter[str] = Counter()
    for c in counts:
        df.update(c.keys())
    n = len(texts)
    result = []
    for c, marked in zip(counts, marks, strict=True):
        scored = []
        for term, tf in c.items():
            if (tf < q.min_term_count and term not in marked) or any(ch.isdigit() for ch in term):
                continue
            idf = math.log((n + 1) / (df[term] + 0.5)) + 1.0
            score = (1 + math.log(tf)) * idf * (q.marked_boost if term in marked else 1.0)
            if " " in term:
                score *= q.phrase_boost
            scored.append((score, term))
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        chosen: list[str] = []
        for _, term in scored:
            if any(term in kept.split() or kept in term.split() for kept in chosen):
                continue
            chosen.append(term)
            if len(chosen) == top:
                break
        result.append(chosen)
    return result


def definition_of(sentence: str) -> tuple[str, str] | None:
    """(term, definition) when the sentence reads "X is/are/means ...", else None."""
    match = _DEFINITION.match(sentence.strip())
    if not match:
        return None
    term = match.group("term").strip(" `'")
    words = term.split()
    most = constructor_parameters().reading.definition_term_max_words
    if not words or len(words) > most or words[0].lower() in _NOT_A_SUBJECT:
        return None
    if any(w.lower() in _QUESTION_WORDS or any(c.isdigit() for c in w) for w in words):
        return None
    if all(w.lower() in ANSWER_STOPWORDS for w in words):
        return None
    return term, match.group("rest").rstrip(".")


# Words that start a definition-shaped sentence which defines nothing: pronouns, and the
# imperative verbs of learning objectives ("Explain what ... is").
_NOT_A_SUBJECT = frozenset(
    {
        *("it", "this", "that", "there", "here", "these", "those", "which", "what", "who"),
        *("how", "why", "one", "each", "all", "explain", "describe", "write", "create"),
        *("define", "identify", "compare"),
    }
)
_QUESTION_WORDS = frozenset(("what", "how", "why", "which", "who", "when", "where", "whether"))


def overlap(a: Iterable[str], b: Iterable[str]) -> float:
    """The share of `a`'s items that are in `b` (0 when `a` is empty)."""
    left, right = set(a), set(b)
    return len(left & right) / len(left) if left else 0.0


def slugify(text: str, *, limit: int = 48) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", normalise(text)).strip("-")[:limit].strip("-")
    return slug or "topic"


_DIV_OPEN = re.compile(r"^\s*:{3,}\s*\{?\s*\.?([A-Za-z][\w-]*)?[^:]*$")
_DIV_CLOSE = re.compile(r"^\s*:{3,}\s*$")
_HEADING_LINE = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_ATTRIBUTES = re.compile(r"(?<=\))\{[^}\n]*\}")
# Pandoc fenced-div classes whose content is for instructors, not learners.
HIDDEN_DIVS = frozenset({"instructor", "instructor-note", "instructornote", "spoiler-instructor"})


def flatten_divs(markdown: str) -> str:
    """Pandoc fenced divs (`::: challenge` ... `:::`, used by Pandoc, Quarto and The
    Carpentries) as plain markdown: the marker lines go, a heading inside a box becomes a bold
    label (a box title is not a section of the document), instructor-only boxes are dropped,
    and `{...}` attribute blocks after images and links are removed."""
    out: list[str] = []
    stack: list[str] = []
    in_fence = False
    for line in markdown.splitlines():
        if re.match(r"^\s*(```|~~~)", line):
            in_fence = not in_fence
        if not in_fence and _DIV_CLOSE.match(line) and stack:
            stack.pop()
            continue
        if not in_fence and _DIV_OPEN.match(line) and line.strip().startswith(":::"):
            match = _DIV_OPEN.match(line)
            stack.append((match.group(1) or "").lower() if match else "")
            continue
        if any(kind in HIDDEN_DIVS for kind in stack):
            continue
        heading = _HEADING_LINE.match(line) if stack and not in_fence else None
        if heading:
            kind = stack[-1].replace("-", " ").capitalize()
            label = heading.group(2).strip()
            out.append(
                f"**{kind}: {label}**" if kind and kind.lower() != label.lower() else f"**{label}**"
            )
            continue
        out.append(_ATTRIBUTES.sub("", line) if not in_fence else line)
    return "\n".join(out)


_CONTINUATION = re.compile(
    r"^(and|then|so|but|or|also|this|that|these|those|it|they|here|for example|for instance|"
    r"however|still|instead)\b|^[^,]{0,60}, though,",
    re.I,
)


def stands_alone(sentence: str) -> bool:
    """A sentence that can stand alone as an answer: not a lead-in to code or a list (ending
    with a colon), not a question, not a continuation of the sentence before ("And then...",
    "This means..."), not an exercise instruction."""
    text = sentence.strip()
    if text.endswith((":", "?")) or "?" in text or _CONTINUATION.match(text):
        return False
    if re.match(r"^(challenge|exercise|solution)\b", text, re.I):
        return False
    return not INSTRUCTION.match(text)


# Sentences opening like this are instructions to the reader, not statements about the topic.
INSTRUCTION = re.compile(
    r"^(write|try|run|use|make|modify|change|add|create|open|read|take|note|think|test|"
    r"repeat|let's|let|separately|consider|imagine|look|check|see|compare|explain|identify|"
    r"remember|recall|go|type|enter|save|fix|find|now)\b",
    re.I,
)


# ---- blocks and lesson prose (read by the quiz writer) -----------------------------------------

# A sentence that points at something it does not show ("pitfalls like this", "these values")
# cannot be understood on its own in a quiz.
POINTS_ELSEWHERE = re.compile(
    r"\b(this|these|those|like that|such|on the other hand|above|below|following|here)\b", re.I
)

_FENCE_LINE = re.compile(r"^(?P<mark>```|~~~)\s*(?P<lang>[\w+-]*)\s*$")


def text_blocks(text: str) -> list[tuple[str, str]]:
    """The text as (kind, body) blocks in order: kind is the fence language ("" for an
    unlabelled fence) or "prose" for a paragraph."""
    blocks: list[tuple[str, str]] = []
    lines = text.splitlines()
    index = 0
    paragraph: list[str] = []

    def flush() -> None:
        if any(line.strip() for line in paragraph):
            blocks.append(("prose", "\n".join(paragraph).strip()))
        paragraph.clear()

    while index < len(lines):
        fence = _FENCE_LINE.match(lines[index].strip())
        if fence:
            flush()
            body: list[str] = []
            index += 1
            while index < len(lines) and not lines[index].strip().startswith(fence.group("mark")):
                body.append(lines[index])
                index += 1
            blocks.append((fence.group("lang").lower() or "code", "\n".join(body).strip("\n")))
        elif not lines[index].strip():
            flush()
        else:
            paragraph.append(lines[index])
        index += 1
    flush()
    return blocks


# A box or heading that opens an exercise, its solution or a hint: what follows answers that
# exercise ("The shape will be (60, 39) because..."), not the topic in general.
_EXERCISE_LABEL = re.compile(
    r"^\s*(?:\*\*|#{1,6}\s+)(?:challenge|exercise|solution|hint|practice|problem)s?\b", re.I
)
_HEADING = re.compile(r"^\s*#{1,6}\s+")


def lesson_prose(text: str) -> str:
    """The text without its exercises: from an exercise, solution or hint label to the next
    heading that is not one. The prose templates ask about what the lesson states; a
    sentence of a solution is true of its exercise only. (Code questions still read the
    exercises: a program and its output are true wherever they are.)"""
    kept: list[str] = []
    in_exercise = in_fence = False
    for line in text.splitlines():
        if re.match(r"^\s*(```|~~~)", line):
            in_fence = not in_fence
        if not in_fence and _EXERCISE_LABEL.match(line):
            in_exercise = True
        elif not in_fence and _HEADING.match(line):
            in_exercise = False
        if not in_exercise:
            kept.append(line)
    return "\n".join(kept)


# ---- key points, one per idea -------------------------------------------------------------------

# Where a statement joins two ideas: "; ", ", and ", ", so ", ", but ", " because ",
# ", whereas " (not ", which": what follows it is no clause on its own).
_IDEA_JOINT = re.compile(r";\s+|,\s+(?:and|so|but|whereas)\s+(?!that\b)|\s+because\s+", re.I)


def ideas(statement: str) -> list[str]:
    """A statement cut into its ideas, each a slice of it (so the reference answer that holds
    the statement holds every idea): cut at "; ", ", and ", ", so ", ", but ", " because ",
    ", whereas " where each part has `quiz_writer.idea_min_words` words and more than one
    content word of its own; a part too small stays with the one before, and so does the last
    item of a series ("a, b, and c"). The whole statement when it is one idea."""
    least = constructor_parameters().quiz_writer.idea_min_words
    parts: list[str] = []
    start = 0
    for joint in _IDEA_JOINT.finditer(statement):
        part = statement[start : joint.start()].strip(" ,;.")
        rest = statement[joint.end() :].strip(" ,;.")
        series = joint.group(0).startswith(",") and "," in part  # "a, b, and c": one idea
        if _an_idea(part, least) and _an_idea(rest, least) and not series:
            parts.append(part)
            start = joint.end()
    parts.append(statement[start:].strip(" ,;."))
    return [p for p in parts if p] or [statement.strip(" .")]


def _an_idea(part: str, least: int) -> bool:
    return len(part.split()) >= least and len(set(content_words(part))) > 1
