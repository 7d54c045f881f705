"""The offline quiz writer and the quiz checks.

Writer: questions from templates per Bloom level, each filled from one source sentence (or a
code block and the prose that explains it), so every reference answer is the author's own
words and every key point is a clause the sources state:

| level      | type       | source                                     | question                  |
|------------|------------|--------------------------------------------|---------------------------|
| remember   | conceptual | "X is a ..." / "X means ..." (X a term)    | In <topic>, what is X?    |
| understand | conceptual | a sentence opening with X, with a purpose  | What does X do, and why?  |
|            |            | or cause cue ("so that", "because"...)     |                           |
| apply      | scenario   | a program, the prose that explains it, and | What does this code do?   |
|            |            | its output when the source shows it        |                           |
| apply      | debugging  | a program followed by its error and the    | What goes wrong, and why? |
|            |            | prose that says why (else: "What happens   |                           |
|            |            | when this code runs?")                     |                           |
| apply      | scenario   | "use X when/to ..." stated as a rule       | When would you use X?     |
| analyze    | conceptual | X and Y on either side of "whereas"...,    | How does X differ from Y? |
|            |            | not in a walk-through of an example        |                           |

X is one of the topic's terms (salient or marked by the author); a sentence is used only when
it stands alone (no lead-in ending with a colon, no "And then...", no exercise instruction)
and is the lesson's own (exercises and their solutions are skipped: a solution's sentence is
true of its exercise only). A program whose output depends on the clock or on chance is not
asked about.
The offline writer does not write evaluate or create questions: it cannot judge trade-offs.

Checks (used by quiz generation and validation): an item is answerable when a BM25 search of
the sources with the question alone finds its evidence in the top results; it leaks when the
question states most of its own key points; two items duplicate when their content words mostly
coincide. The writer cannot judge whether a question is interesting, and its questions are
only as grammatical as the templates."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import bm25s
import Stemmer

from tutorgraph.constructor.state import QuizItem, SourceChunk, Topic
from tutorgraph.constructor.text import (
    FENCE_BLOCK,
    OUTPUT_FENCES,
    definition_of,
    marked_terms,
    overlap,
    sentences,
    stems_of,
)
from tutorgraph.grading._text import STOPWORDS, normalise
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
_CONTRAST = re.compile(r"\b(whereas|unlike|instead of|rather than|while|but not)\b", re.I)
_STEMMER = Stemmer.Stemmer("english")


@dataclass(frozen=True)
class TopicMaterial:
    """What the writer needs about one topic: its text, and the text of its file before it (the
    programs a program of the topic may build on)."""

    topic: Topic
    text: str
    earlier: str = ""


def write_questions(material: TopicMaterial, *, wanted: int = ITEMS_PER_TOPIC) -> list[QuizItem]:
    """Up to `wanted` questions on one topic, one per template family first, climbing Bloom."""
    topic = material.topic
    sents = [s for s in sentences(lesson_prose(material.text)) if _usable(s)]
    terms = _topic_terms(topic, material.text)
    families = [
        _definitions(topic, sents, terms),
        _purposes(topic, sents, terms),
        _code_questions(topic, material.text, material.earlier),
        _use_when(topic, sents, terms),
        _contrasts(topic, sents, terms),
    ]
    # Round robin over the template families, so no one family fills the topic.
    candidates = [
        family[i]
        for i in range(max((len(f) for f in families), default=0))
        for family in families
        if i < len(family)
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


_CONTINUATION = re.compile(
    r"^(and|then|so|but|or|also|this|that|these|those|it|they|here|for example|for instance|"
    r"however|still|instead)\b|^[^,]{0,60}, though,",
    re.I,
)


def _usable(sentence: str) -> bool:
    """A sentence that can stand alone as an answer: not a lead-in to code or a list (ending
    with a colon), not a question, not a continuation of the sentence before ("And then...",
    "This means..."), not an exercise instruction."""
    text = sentence.strip()
    if text.endswith((":", "?")) or "?" in text or _CONTINUATION.match(text):
        return False
    if re.match(r"^(challenge|exercise|solution)\b", text, re.I):
        return False
    return not _IMPERATIVE.match(text)


# Sentences opening like this are instructions to the reader, not statements about the topic.
_IMPERATIVE = re.compile(
    r"^(write|try|run|use|make|modify|change|add|create|open|read|take|note|think|test|"
    r"repeat|let's|let|separately|consider|imagine|look|check|see|compare|explain|identify|"
    r"remember|recall|go|type|enter|save|fix|find|now)\b",
    re.I,
)


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


def _topic_terms(topic: Topic, text: str) -> set[str]:
    """The terms a question may ask about: the topic's salient terms, the terms the author
    marked (bold, defined), and the words of its title."""
    terms = {normalise(t) for t in topic.key_terms} | marked_terms(text)
    terms |= {normalise(topic.title)}
    return {t for t in terms if t}


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


_IS_A = re.compile(
    r"^(?P<article>an?\s+|the\s+)?(?P<term>[\w`'\- ]{2,40}?)\s+(?P<verb>is|are)\s+"
    r"(?P<rest>(?:an?|the|one|any|some)\s+.+)$",
    re.I,
)
_MEANS = re.compile(
    r"^(?P<article>an?\s+|the\s+)?(?P<term>[\w`'\- ]{2,40}?)\s+(?P<verb>refers to|means|denotes)"
    r"\s+(?P<rest>.+)$",
    re.I,
)


def _definitions(topic: Topic, sents: Sequence[str], terms: set[str]) -> list[QuizItem]:
    """ "X is a ..." / "X means ..." where X is a term of the topic: "what is X?"."""
    items = []
    for sentence in sents:
        match = _IS_A.match(sentence) or _MEANS.match(sentence)
        if match is None or definition_of(sentence) is None or len(sentence.split()) > 45:
            continue
        term = match.group("term").strip(" `'")
        if normalise(term) not in terms or len(match.group("rest").split()) < 4:
            continue
        plural = match.group("verb").lower() == "are"
        article = (match.group("article") or "").strip().lower()
        article = "" if plural else ("a" if article in ("a", "an", "") else article)
        if article == "a" and term[:1].lower() in "aeiou":
            article = "an"
        subject = f"{article} {_term(term)}".strip() if not plural else _term(term)
        question = f"In {_topic_phrase(topic)}, what {'are' if plural else 'is'} {subject}?"
        rest = match.group("rest").rstrip(".")
        items.append(
            _item(topic, BloomLevel.REMEMBER, "conceptual", question, sentence, [rest], sentence)
        )
    return items


def _term(term: str) -> str:
    return f"`{term}`" if re.search(r"[_()\[\].]|^[a-z]+[A-Z]", term) else term


def _subject_term(sentence: str, terms: set[str]) -> str | None:
    """The topic term the sentence is about: the one it opens with (after an article)."""
    opening = normalise(re.sub(r"^(an?|the)\s+", "", sentence.strip(), flags=re.I))
    best = None
    for term in terms:
        if term and opening.startswith(term + " ") and (best is None or len(term) > len(best)):
            best = term
    return best


def _purposes(topic: Topic, sents: Sequence[str], terms: set[str]) -> list[QuizItem]:
    """A sentence that opens with a term and says what it is for or why: "what does X do?"."""
    items = []
    for sentence in sents:
        if not _PURPOSE.search(sentence) or not 8 <= len(sentence.split()) <= 45:
            continue
        term = _subject_term(sentence, terms)
        if term is None or definition_of(sentence) is not None:
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


_FENCE = re.compile(r"^(```|~~~)\s*([\w+-]*)\s*$")


def _blocks(text: str) -> list[tuple[str, str]]:
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
        fence = _FENCE.match(lines[index].strip())
        if fence:
            flush()
            body: list[str] = []
            index += 1
            while index < len(lines) and not lines[index].strip().startswith(fence.group(1)):
                body.append(lines[index])
                index += 1
            blocks.append((fence.group(2).lower() or "code", "\n".join(body).strip("\n")))
        elif not lines[index].strip():
            flush()
        else:
            paragraph.append(lines[index])
        index += 1
    flush()
    return blocks


def _programs(blocks: Sequence[tuple[str, str]]) -> list[str]:
    return [body for kind, body in blocks if kind not in OUTPUT_FENCES and kind != "prose"]


def _code_questions(topic: Topic, text: str, earlier: str = "") -> list[QuizItem]:
    """A program whose output or error the source shows, with the prose that explains it.

    - it stops with an error the prose explains: "what goes wrong, and why?";
    - it stops with an error the prose does not explain: "what happens when it runs?" (the
      writer cannot supply a why the source does not state);
    - it prints: "what does this code do, and what does it show?", or "what does this code
      do?" when the source shows its output only in part ("..." in a long array).

    Code the source does not run, that nothing explains or shows, or whose output no reader
    can predict (the clock, random numbers) is left out."""
    items = []
    blocks = _blocks(text)
    before = _programs(_blocks(earlier))
    for index, (kind, body) in enumerate(blocks):
        lines = body.splitlines()
        if kind in OUTPUT_FENCES or kind == "prose" or not 2 <= len(lines) <= MAX_CODE_LINES:
            continue
        printed, error, after = _shown(blocks, index)
        if printed and _UNPREDICTABLE.search(body):
            continue
        if any(_ELIDED.search(line) for line in printed):
            printed = []
        explained = _explanation(blocks, index)
        if not printed and not error and not explained:
            continue
        if not printed and not error and after == index + 1:
            continue  # the source never runs it
        program = with_context(body, [*before, *_programs(blocks[:index])])
        if program is None:
            continue  # it uses names the lesson never defines before it
        fence = "```\n" + program + "\n```"
        answer: list[str] = []
        if printed:
            answer.append("It prints: " + " / ".join(printed))
        if error:
            cause = _cause(blocks, index, after, error)
            answer += [f"Python stops with: {error}", *cause]
            asked = (
                "what goes wrong when this code runs, and why?"
                if cause
                else "what happens when this code runs?"
            )
            kind_of: QuestionType = "debugging"
        else:
            answer = explained + answer
            asked = (
                "what does this code do, and what does it show?"
                if printed
                else "what does this code do?"
            )
            kind_of = "scenario"
        question = f"In {_topic_phrase(topic)}, {asked}\n\n{fence}"
        items.append(
            _item(topic, BloomLevel.APPLY, kind_of, question, " ".join(answer), answer, body)
        )
    return items


# Output no reader can predict from the code: the clock, random numbers, object ids.
_UNPREDICTABLE = re.compile(
    r"\b(time\.(time|ctime|localtime|perf_counter)|datetime\.(now|today)|date\.today|"
    r"random\.|uuid|id\()"
)
# Output the source shows only in part: numpy's "..." inside a long array.
_ELIDED = re.compile(r"(^|\s)(\.\.\.|…)(\s|\]|$)")


# Names a program may use without defining them: Python's builtins.
_BUILTINS = frozenset(dir(builtins))
MAX_CONTEXT_LINES = 8  # the earlier lines a program may be shown with
_CONTEXT_DEPTH = 3  # a definition may use a name defined earlier still, this many times over


def with_context(program: str, before: Sequence[str]) -> str | None:
    """The program preceded by the statements of the lesson's earlier programs (`before`, in
    the lesson's order) that define the names it uses and does not define: "print(odds[0])"
    is shown with "odds = [1, 3, 5, 7]"; the latest definition of each name, and the
    definitions those need in turn. The program alone when it needs none; None when a name
    it uses is defined nowhere before it (the question could not be answered from what it
    shows) or the context would be long. A program that is not valid Python (an error
    example) is shown as it is."""
    try:
        wanted = [(name, (len(before), 0)) for name in _free_names(ast.parse(program))]
    except SyntaxError:
        return program
    chosen: dict[tuple[int, int], str] = {}  # (program, line) -> the statement's source
    for _ in range(_CONTEXT_DEPTH):
        if not wanted:
            break
        needed: list[tuple[str, tuple[int, int]]] = []
        for name, until in wanted:
            found = _latest_definition(name, before, until)
            if found is None:
                return None
            position, statement, source = found
            if position not in chosen:
                chosen[position] = source
                needed += [(n, position) for n in _reads(statement)]
        wanted = [
            (name, until)
            for name, until in needed
            if not any(p < until and name in _bound_names(ast.parse(s)) for p, s in chosen.items())
        ]
    if wanted:
        return None
    if not chosen:
        return program
    context = [chosen[position] for position in sorted(chosen)]
    if sum(len(source.splitlines()) for source in context) > MAX_CONTEXT_LINES:
        return None
    return "\n".join(context) + "\n\n" + program


def _latest_definition(
    name: str, before: Sequence[str], until: tuple[int, int]
) -> tuple[tuple[int, int], ast.stmt, str] | None:
    """The last top-level statement of the earlier programs, before position `until`, that
    binds `name`."""
    for number in range(min(until[0], len(before) - 1), -1, -1):
        try:
            tree = ast.parse(before[number])
        except SyntaxError:
            continue
        binding = [s for s in tree.body if name in _bound_names(s) and (number, s.lineno) < until]
        if binding:
            statement = binding[-1]
            source = ast.get_source_segment(before[number], statement) or ""
            return (number, statement.lineno), statement, source
    return None


def _reads(statement: ast.stmt) -> set[str]:
    """The names a context statement needs defined before it: a function's free names; the
    names any other statement reads, its own target too ("patient_id = 'inflam_' +
    patient_id" needs the earlier `patient_id`)."""
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return _free_names(ast.Module(body=[statement], type_ignores=[]))
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return set()
    read = {
        n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    return read - _BUILTINS


def _bound_names(node: ast.AST) -> set[str]:
    """The names a statement (or module) binds at its top level."""
    statements = node.body if isinstance(node, ast.Module) else [node]
    bound: set[str] = set()
    for statement in statements:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(statement.name)
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            bound |= {(a.asname or a.name).split(".")[0] for a in statement.names}
        else:
            bound |= {
                n.id
                for n in ast.walk(statement)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
    return bound


def _free_names(tree: ast.Module) -> set[str]:
    """The names a program reads that it binds nowhere (parameters, imports and names bound
    inside it count as bound) and that are not builtins."""
    bound = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return read - bound - _BUILTINS


MAX_OUTPUT_LINES = 12


def _shown(blocks: Sequence[tuple[str, str]], index: int) -> tuple[list[str], str, int]:
    """What the source shows a program print (its output lines) and the error it stops with,
    from the output and error blocks right after it; and the index of the block after them."""
    printed: list[str] = []
    error = ""
    after = index + 1
    while after < len(blocks) and blocks[after][0] in OUTPUT_FENCES:
        lines = [line.rstrip() for line in blocks[after][1].splitlines() if line.strip()]
        errors = [line.strip() for line in lines if _ERROR_LINE.match(line)]
        if blocks[after][0] == "error" or errors:
            error = errors[-1] if errors else (lines[-1].strip() if lines else "")
        else:
            printed += [line.strip() for line in lines]
        after += 1
    if len(printed) > MAX_OUTPUT_LINES:
        printed = [*printed[:MAX_OUTPUT_LINES], "…"]  # shown in part: not asked for
    return printed, error, after


_CAUSE = re.compile(
    r"\b(because|since|means|meaning|missing|can't|cannot|doesn't|does not|isn't|is not|"
    r"haven't|hasn't|didn't|did not|instead|forgot|typo|should|must|need|only|never|yet)\b",
    re.I,
)
# Phrases that give a reason whatever they name: "the problem is that the definition is
# missing a colon", "one reason for this error is...".
_REASON = re.compile(r"\b(the problem is|reason|because|missing|forgot|typo)\b", re.I)


# A sentence opening like this moves on to the next point or example.
_NEXT_POINT = re.compile(
    r"^(finally|next|now|another|then|also|the (second|third|next|last|other)|second|third|"
    r"let's|let us|in the following|here's)\b",
    re.I,
)


def _cause(blocks: Sequence[tuple[str, str]], index: int, after: int, error: str) -> list[str]:
    """The sentences that say why a program stops with its error.

    First the prose right after the error, up to the sentence that moves on (to the next
    example: "Finally, the third possibility...", or a lead-in to more code): a sentence that
    gives a reason ("the problem is", "because", "missing"), or has a cause cue ("does not",
    "never"...) and names something of the program or its error message. Else the paragraph
    that introduces the program, when it names the program's variables with a cause cue ("In
    the following example, `count` should have been defined before the loop:"). A sentence
    that does neither is about something else and is left out."""
    about = code_names(blocks[index][1]) | code_names(error)
    found: list[str] = []
    if after < len(blocks) and blocks[after][0] == "prose":
        for sentence in sentences(blocks[after][1]):
            if _NEXT_POINT.match(sentence) or sentence.rstrip().endswith(":"):
                break
            if (
                6 <= len(sentence.split()) <= 45
                and _usable_after_code(sentence)
                and (
                    _REASON.search(sentence)
                    or (_CAUSE.search(sentence) and _names_any(sentence, about))
                )
            ):
                found.append(sentence)
    if not found and index > 0 and blocks[index - 1][0] == "prose":
        found = [
            _LEAD_IN.sub("", sentence).rstrip(" :.") + "."
            for sentence in sentences(blocks[index - 1][1])
            if 6 <= len(sentence.split()) <= 45
            and "?" not in sentence
            and _CAUSE.search(sentence)
            and _names_any(sentence, defined_names(blocks[index][1]))
        ][-1:]
    return [sentence[:1].upper() + sentence[1:] for sentence in found[:2]]


_LEAD_IN = re.compile(r"^(in|for) (the|this) (following|next) (example|code|program),\s*", re.I)
_DEFINED = re.compile(r"^\s*(?:def\s+(\w+)|for\s+(\w+)\s+in\b|(\w+)\s*[+\-*/]?=[^=])", re.M)


def defined_names(code: str) -> set[str]:
    """The names a program defines (assigns, loops over, defines a function by): what a
    sentence introducing the program talks about when it names it."""
    return {name.lower() for match in _DEFINED.findall(code) for name in match if name}


_ERROR_LINE = re.compile(r"^\s*\w*(Error|Exception)\b")
_STRING_OR_COMMENT = re.compile(
    r"#[^\n]*|'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'[^'\n]*'|\"[^\"\n]*\""
)
_KEYWORDS = frozenset(
    {"print", "import", "from", "def", "return", "for", "while", "with", "class", "pass"}
    | {"none", "true", "false", "range", "len", "error", "elif", "else"}
)


def code_names(code: str) -> set[str]:
    """The identifiers a program uses (in lower case), its strings and comments left out:
    the words a sentence must share with it to be about it."""
    bare = _STRING_OR_COMMENT.sub(" ", code)
    names = {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", bare)}
    return names - _KEYWORDS - STOPWORDS


def _names_any(sentence: str, names: set[str]) -> bool:
    lowered = sentence.lower()
    return any(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", lowered) for n in names)


def _usable_after_code(sentence: str) -> bool:
    """A sentence after a program may open with "This" (it is about the program), but not
    lead in to more code, ask a question or instruct."""
    return not sentence.rstrip().endswith((":", "?")) and not _IMPERATIVE.match(sentence)


def _explanation(blocks: Sequence[tuple[str, str]], index: int) -> list[str]:
    """The prose sentences that explain a code block: sentences of the paragraph before it,
    or after it (and its output), that name something the code uses (not a word of its
    strings or comments); lead-ins, questions and instructions are left out."""
    names = code_names(blocks[index][1])
    after = index + 1
    while after < len(blocks) and blocks[after][0] in OUTPUT_FENCES:
        after += 1
    around = [i for i in (index - 1, after) if 0 <= i < len(blocks) and blocks[i][0] == "prose"]
    for position in around:
        found = [
            s
            for s in sentences(blocks[position][1])
            if _usable(s) and 6 <= len(s.split()) <= 45 and _names_any(s, names)
        ]
        if found:
            return found[:2]
    return []


# A "use X to..." sentence that states no rule: an analogy ("we could use the dot notation to
# write his name"), or one case ("in the case of `print`, we use the parentheses to...").
_HYPOTHETICAL = re.compile(
    r"\b(could|would|might|in the case of|for example|for instance|such as|here)\b", re.I
)


def _use_when(topic: Topic, sents: Sequence[str], terms: set[str]) -> list[QuizItem]:
    """ "Use X when/to ..." where X is a topic term and the sentence states a rule, not one
    case or an analogy: "when would you use X?"."""
    items = []
    for sentence in sents:
        match = re.search(
            r"\b(?:use|using)\s+(?:an?\s+|the\s+)?(?P<term>[\w`' -]{2,40}?)\s+(?:when|if|to)\b",
            sentence,
            re.I,
        )
        if match is None or not 8 <= len(sentence.split()) <= 45 or _HYPOTHETICAL.search(sentence):
            continue
        term = normalise(match.group("term"))
        if term not in terms:
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


def _contrasts(topic: Topic, sents: Sequence[str], terms: set[str]) -> list[QuizItem]:
    """ "X ..., whereas Y ..." with two topic terms on either side of the contrast word."""
    items = []
    for sentence in sents:
        cue = _CONTRAST.search(sentence)
        if cue is None or not 8 <= len(sentence.split()) <= 50 or _AN_EXAMPLE.search(sentence):
            continue
        before = normalise(sentence[: cue.start()])
        after = normalise(sentence[cue.end() :])
        left = [t for t in terms if f" {t} " in f" {before} "]
        right = [t for t in terms if f" {t} " in f" {after} " and t not in left]
        if not left or not right:
            continue
        a, b = max(left, key=len), max(right, key=len)
        if stems_of(a) & stems_of(b):  # "variable" vs "variables" is no contrast
            continue
        a, b = _as_written(a, sentence), _as_written(b, sentence)
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


# A sentence that walks through an example states no general difference: "In the example
# below, the first two lines are indented with tabs, while the third..."; "A statement such as
# `1 < 0` returns False, while...".
_AN_EXAMPLE = re.compile(
    r"\b(example|such as|e\.g\.|below|above|following|here)\b|`[^`]*\d[^`]*`", re.I
)


def _as_written(term: str, sentence: str) -> str:
    """The term as the sentence spells it ("False", not "false"), when it does."""
    found = re.search(rf"(?<!\w){re.escape(term)}(?!\w)", sentence, re.I)
    return found.group(0) if found else term


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
    """The question's words state most of one of its own key points. A code block in the
    question is left out: a program's output repeats its print statements' words without
    giving away what it computes."""
    asked = stems_of(FENCE_BLOCK.sub(" ", item.text))
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
