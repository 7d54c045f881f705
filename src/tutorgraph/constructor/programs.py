"""Questions about the programs a lesson runs: a program whose output or error the source
shows is asked about ("what does this code show?", "what goes wrong, and why?"), with the
prose that explains it as the answer's why, and shown with the lines of the lesson's earlier
programs that define the names it uses. See `program_questions` for what is asked and what is
left out; `questions.py` turns these into quiz items. Its sizes are parameters: `programs` in
constructor/parameters.yaml."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.text import INSTRUCTION, OUTPUT_FENCES, sentences, stands_alone
from tutorgraph.knowledge.bloom import QuestionType
from tutorgraph.text.stopwords import ANSWER_STOPWORDS


@dataclass(frozen=True)
class ProgramQuestion:
    kind: QuestionType  # "debugging" when the program stops with an error, else "scenario"
    question: str
    answer: list[str]  # the answer's parts: what it prints, the error, why
    program: str  # the program as the source shows it (the item's evidence)


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


def program_questions(topic: str, text: str, earlier: str = "") -> list[ProgramQuestion]:
    """A program whose output or error the source shows, with the prose that explains it.

    - it stops with an error the prose explains: "what goes wrong, and why?";
    - it stops with an error the prose does not explain: "what happens when it runs?" (the
      writer cannot supply a why the source does not state);
    - it prints: "what does this code do, and what does it show?", or "what does this code
      do?" when the source shows its output only in part ("..." in a long array).

    Code the source does not run, that nothing explains or shows, or whose output no reader
    can predict (the clock, random numbers) is left out."""
    q = constructor_parameters().programs
    found = []
    blocks = _blocks(text)
    before = _programs(_blocks(earlier))
    for index, (kind, body) in enumerate(blocks):
        lines = body.splitlines()
        sized = q.min_code_lines <= len(lines) <= q.max_code_lines
        if kind in OUTPUT_FENCES or kind == "prose" or not sized:
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
        found.append(ProgramQuestion(kind_of, f"In {topic}, {asked}\n\n{fence}", answer, body))
    return found


# Output no reader can predict from the code: the clock, random numbers, object ids.
_UNPREDICTABLE = re.compile(
    r"\b(time\.(time|ctime|localtime|perf_counter)|datetime\.(now|today)|date\.today|"
    r"random\.|uuid|id\()"
)
# Output the source shows only in part: numpy's "..." inside a long array.
_ELIDED = re.compile(r"(^|\s)(\.\.\.|…)(\s|\]|$)")


# Names a program may use without defining them: Python's builtins.
_BUILTINS = frozenset(dir(builtins))


def with_context(program: str, before: Sequence[str]) -> str | None:
    """The program preceded by the statements of the lesson's earlier programs (`before`, in
    the lesson's order) that define the names it uses and does not define: "print(odds[0])"
    is shown with "odds = [1, 3, 5, 7]"; the latest definition of each name, and the
    definitions those need in turn. The program alone when it needs none; None when a name
    it uses is defined nowhere before it (the question could not be answered from what it
    shows) or the context would be long (`programs.max_context_lines`). A program that is not
    valid Python (an error example) is shown as it is."""
    q = constructor_parameters().programs
    tree = _parsed(program)
    if tree is None:
        return program
    wanted = [(name, (len(before), 0)) for name in _free_names(tree)]
    # (program, line) -> the statement and its source
    chosen: dict[tuple[int, int], tuple[ast.stmt, str]] = {}
    for _ in range(q.context_depth):
        if not wanted:
            break
        needed: list[tuple[str, tuple[int, int]]] = []
        for name, until in wanted:
            found = _latest_definition(name, before, until)
            if found is None:
                return None
            position, statement, source = found
            if position not in chosen:
                chosen[position] = (statement, source)
                needed += [(n, position) for n in _reads(statement)]
        wanted = [
            (name, until)
            for name, until in needed
            if not any(p < until and name in _bound_names(s) for p, (s, _) in chosen.items())
        ]
    if wanted:
        return None
    if not chosen:
        return program
    context = [chosen[position][1] for position in sorted(chosen)]
    if sum(len(source.splitlines()) for source in context) > q.max_context_lines:
        return None
    return "\n".join(context) + "\n\n" + program


@lru_cache(maxsize=512)
def _parsed(source: str) -> ast.Module | None:
    """The program's syntax tree (None when it is not valid Python), parsed once: every
    program of a lesson is searched for the definitions of every later one."""
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _latest_definition(
    name: str, before: Sequence[str], until: tuple[int, int]
) -> tuple[tuple[int, int], ast.stmt, str] | None:
    """The last top-level statement of the earlier programs, before position `until`, that
    binds `name`."""
    for number in range(min(until[0], len(before) - 1), -1, -1):
        tree = _parsed(before[number])
        if tree is None:
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
    most = constructor_parameters().programs.max_output_lines
    if len(printed) > most:
        printed = [*printed[:most], "…"]  # shown in part: not asked for
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
    q = constructor_parameters().programs
    about = code_names(blocks[index][1]) | code_names(error)
    found: list[str] = []
    if after < len(blocks) and blocks[after][0] == "prose":
        for sentence in sentences(blocks[after][1]):
            if _NEXT_POINT.match(sentence) or sentence.rstrip().endswith(":"):
                break
            if (
                q.explanation_min_words <= len(sentence.split()) <= q.explanation_max_words
                and _about_the_program(sentence)
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
            if q.explanation_min_words <= len(sentence.split()) <= q.explanation_max_words
            and "?" not in sentence
            and _CAUSE.search(sentence)
            and _names_any(sentence, defined_names(blocks[index][1]))
        ][-1:]
    return [sentence[:1].upper() + sentence[1:] for sentence in found[: q.explanation_sentences]]


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
    return names - _KEYWORDS - ANSWER_STOPWORDS


def _names_any(sentence: str, names: set[str]) -> bool:
    lowered = sentence.lower()
    return any(re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", lowered) for n in names)


def _about_the_program(sentence: str) -> bool:
    """A sentence after a program may open with "This" (it is about the program), but not
    lead in to more code, ask a question or instruct."""
    return not sentence.rstrip().endswith((":", "?")) and not INSTRUCTION.match(sentence)


def _explanation(blocks: Sequence[tuple[str, str]], index: int) -> list[str]:
    """The prose sentences that explain a code block: sentences of the paragraph before it,
    or after it (and its output), that name something the code uses (not a word of its
    strings or comments); lead-ins, questions and instructions are left out."""
    q = constructor_parameters().programs
    names = code_names(blocks[index][1])
    after = index + 1
    while after < len(blocks) and blocks[after][0] in OUTPUT_FENCES:
        after += 1
    around = [i for i in (index - 1, after) if 0 <= i < len(blocks) and blocks[i][0] == "prose"]
    for position in around:
        found = [
            s
            for s in sentences(blocks[position][1])
            if stands_alone(s)
            and q.explanation_min_words <= len(s.split()) <= q.explanation_max_words
            and _names_any(s, names)
        ]
        if found:
            return found[: q.explanation_sentences]
    return []
