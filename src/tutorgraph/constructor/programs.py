"""Questions about the programs and commands a lesson shows.

Python programs (`program_questions`): a program that prints is asked about as "predict the
output", and the expected output is what the program printed when it was RUN in the sandbox
(`tutorgraph.sandbox.run_python`, twice, to refuse output that changes from run to run), never
what the page shows or a guess. A program the source shows failing is asked "what goes wrong,
and why?", with the error it raised when run (the page's error only where no sandbox is
available) and the prose that explains it as the answer's why. A program is shown with the lines
of the lesson's earlier programs that define the names it uses (`with_context`). A program whose
run fails, times out, prints nothing or prints differently twice is not asked to predict, and
the writer is told why (`ProgramQuestions.notes`); programs that need a library the sandbox
lacks (it has the standard library only) end up there too.

Interactive sessions (`>>> ` lines, `session_code`) are run too, each top-level expression's
value echoed as the interpreter echoes it (`echoed`), and asked "what does the session show?"
with the run's output; a session that reads the machine it runs on (its home folder, files,
environment) is not asked.

IPython cells (`In [n]: code`, indented continuation lines, `Out[n]: value`, as a PDF of a
notebook reads; `ipython_cells`) are run too, with the definitions they need from the file's
earlier cells, the last expression's value echoed as IPython shows it, and asked "what does
the IPython cell show when it runs in Python 3?" (`cell_questions`): the expected output is
the run's, never the page's `Out` (a Python 2 book's `print` shows tuples). A cell whose run
fails, shows nothing or too much (`programs.max_output_chars`), calls `help()`, or reads the
machine is not asked; a cell broken across a page (its code split by prose) is not rebuilt.

Shell commands are read in `commands.py` (`ShellCommand` and `shell_commands` stay importable
from here); a terminal session in an unlabelled fence is no program to run.

Sizes and time limits are parameters: `programs` in constructor/parameters.yaml."""

from __future__ import annotations

import ast
import builtins
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from tutorgraph import offload

# ShellCommand and shell_commands are kept importable from here (they lived here before).
from tutorgraph.constructor.commands import SHELL_FENCES, is_shell
from tutorgraph.constructor.commands import ShellCommand as ShellCommand
from tutorgraph.constructor.commands import shell_commands as shell_commands
from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import ItemAsks
from tutorgraph.constructor.text import (
    INSTRUCTION,
    OUTPUT_FENCES,
    sentences,
    stands_alone,
    text_blocks,
)
from tutorgraph.knowledge.bloom import QuestionType
from tutorgraph.sandbox import RunResult, SandboxLimits, SandboxUnavailable, run_python
from tutorgraph.text.stopwords import ANSWER_STOPWORDS


@dataclass(frozen=True)
class ProgramQuestion:
    kind: QuestionType  # "debugging" when the program stops with an error, else "scenario"
    question: str
    answer: list[str]  # the answer's parts: what it prints, the error, why
    program: str  # the program as the source shows it (the item's evidence)
    asks: ItemAsks = "how"  # "predict", "debug" or "how" (what the program does)
    output: str = ""  # what the program printed in the sandbox (a "predict" question)


@dataclass(frozen=True)
class ProgramQuestions:
    """The questions about a topic's programs, and why a program was not asked to predict."""

    questions: list[ProgramQuestion]
    notes: list[str]


PYTHON_FENCES = frozenset({"python", "py", "python3", "code"})


def _programs(blocks: Sequence[tuple[str, str]]) -> list[str]:
    """The code of the blocks: programs as written, interactive sessions without their
    prompts and shown output."""
    return [
        session_code(body) or body
        for kind, body in blocks
        if kind not in OUTPUT_FENCES and kind != "prose"
    ]


# ---- interactive sessions ---------------------------------------------------------------------

_SESSION_LINE = re.compile(r"^\s*(?:>>>|\.\.\.)(?: |$)")
_CALLOUT = re.compile(r"\s*[\u2460-\u2473]+\s*$")  # "①": a book's note marker, not code


def session_code(body: str) -> str | None:
    """The code typed in an interactive session (its `>>> ` and `... ` lines, without the
    prompts, the output the page shows, or note markers such as "①"); None when the block is
    no session."""
    lines = [line for line in body.splitlines() if line.strip()]
    if not lines or not lines[0].lstrip().startswith(">>>"):
        return None
    code = [
        _CALLOUT.sub("", re.sub(r"^\s*(?:>>>|\.\.\.) ?", "", line))
        for line in lines
        if _SESSION_LINE.match(line)
    ]
    return "\n".join(code).strip("\n") or None


def echoed(program: str) -> str | None:
    """The program with each top-level expression's value shown as the interactive interpreter
    shows it (`sys.displayhook`: its repr, nothing for None); None when it does not parse."""
    tree = _parsed(program)
    if tree is None:
        return None
    for position, statement in enumerate(tree.body):
        if isinstance(statement, ast.Expr):
            hook = ast.parse("__import__('sys').displayhook", mode="eval").body
            call = ast.Call(func=hook, args=[statement.value], keywords=[])
            tree.body[position] = ast.Expr(value=call)
    return ast.unparse(ast.fix_missing_locations(tree))


def _session_question(
    topic: str, session: str, before: Sequence[str]
) -> tuple[ProgramQuestion | None, str]:
    """ "What does the Python session show?" for a session that, RUN in the sandbox (with the
    earlier code it builds on, each expression's value echoed as the interpreter does), shows
    the same output twice; else a note saying why not. A session that reads the machine it
    runs on (`_MACHINE`: the home folder, files, the environment) is not asked."""
    q = constructor_parameters().programs
    lines = session.splitlines()
    if (
        not q.min_code_lines <= len(lines) <= q.max_code_lines
        or _UNPREDICTABLE.search(session)
        or _MACHINE.search(session)
    ):
        return None, ""
    program = with_context(session, before)
    runnable = echoed(program) if program is not None else None
    if program is None or runnable is None:
        return (
            None,
            f"{topic}: not asked to predict `{_first_line(session)}`: it does not run alone",
        )
    shown, why_not = printed_output(runnable)
    if not shown:
        return None, f"{topic}: not asked to predict `{_first_line(session)}`: {why_not}"
    typed = "\n".join(
        (">>> " if not line.startswith((" ", "\t")) else "... ") + line
        for line in program.splitlines()
        if line.strip()
    )
    return (
        ProgramQuestion(
            "scenario",
            f"In {topic}, what does the Python session show when its lines are typed in?"
            f"\n\n```pycon\n{typed}\n```",
            ["It prints: " + " / ".join(shown.splitlines())],
            session,
            asks="predict",
            output=shown,
        ),
        "",
    )


def program_questions(
    topic: str, text: str, earlier: str = "", *, run: bool = True
) -> ProgramQuestions:
    """Questions about the Python programs of a topic's text (`earlier`: its file's text before
    it, whose programs a program may build on).

    - the source shows it stopping with an error: "what goes wrong, and why?" when the prose
      says why, else "what happens?"; the error is the one the run raised;
    - it prints when run in the sandbox, the same twice: "what does it print?" (predict), the
      expected output being the run's; at most `programs.predict_max_programs` runs a topic;
    - else, when prose explains it and the source runs it: "what does the program do?".

    Code that nothing explains, shows or runs, that uses a name the lesson never defines, or
    whose output no reader can predict (the clock, random numbers) is left out. `run=False`
    (or no sandbox here) asks no predict question, and says so in the notes."""
    q = constructor_parameters().programs
    found: list[ProgramQuestion] = []
    notes: list[str] = []
    blocks = text_blocks(text)
    before = _programs(text_blocks(earlier))
    runs_left = q.predict_max_programs if run else 0
    for index, (kind, body) in enumerate(blocks):
        session = session_code(body)
        if session is not None:
            if kind in PYTHON_FENCES | {"pycon"} and runs_left > 0:
                context = [*before, *_programs(blocks[:index])]
                asked, note = _session_question(topic, session, context)
                runs_left -= 1
                found += [asked] if asked else []
                notes += [note] if note else []
            continue
        lines = body.splitlines()
        sized = q.min_code_lines <= len(lines) <= q.max_code_lines
        if kind in OUTPUT_FENCES or kind in SHELL_FENCES or kind == "prose" or not sized:
            continue
        if is_shell(body) or _is_cell_block(body):
            continue  # (IPython cells are asked about by `cell_questions`)
        shown, error, after = _shown(blocks, index)
        explained = _explanation(blocks, index)
        if _UNPREDICTABLE.search(body) or (not shown and not error and not explained):
            continue
        program = with_context(body, [*before, *_programs(blocks[:index])])
        if program is None:
            continue  # it uses names the lesson never defines before it
        fence = "```python\n" + program + "\n```"
        if error:
            question = _debugging(topic, blocks, index, after, error, program, fence, runs_left)
            runs_left -= 1
            if question is not None:
                found.append(question)
            continue
        printed, why_not = "", "the sandbox runs a topic's first programs only"
        if runs_left > 0 and kind in PYTHON_FENCES and _parsed(program) is not None:
            printed, why_not = printed_output(program)
            runs_left -= 1
        elif kind not in PYTHON_FENCES:
            why_not = f"it is fenced as {kind}, not Python"
        if printed:
            found.append(
                ProgramQuestion(
                    "scenario",
                    f"In {topic}, what does the Python program print when it runs?\n\n{fence}",
                    ["It prints: " + " / ".join(printed.splitlines())],
                    body,
                    asks="predict",
                    output=printed,
                )
            )
            continue
        notes.append(f"{topic}: not asked to predict `{_first_line(body)}`: {why_not}")
        if explained and (shown or after > index + 1):
            found.append(
                ProgramQuestion(
                    "scenario",
                    f"In {topic}, what does the Python program do?\n\n{fence}",
                    explained,
                    body,
                    asks="how",
                )
            )
    cells = cell_questions(topic, text, earlier, runs_left) if runs_left > 0 else None
    if cells is not None:
        found += cells.questions
        notes += cells.notes
    return ProgramQuestions(found, notes)


def _is_cell_block(body: str) -> bool:
    """A block of IPython cells (`In [n]:` / `Out[n]:` lines), not a program as written."""
    return any(_CELL_PROMPT.match(line) or _CELL_OUTPUT.match(line) for line in body.splitlines())


def _debugging(
    topic: str,
    blocks: Sequence[tuple[str, str]],
    index: int,
    after: int,
    shown_error: str,
    program: str,
    fence: str,
    runs_left: int,
) -> ProgramQuestion | None:
    """A program the source shows failing: "what goes wrong, and why?" with the error its run
    raised (the page's when no run is possible here), or None when it runs without error."""
    error = shown_error
    if runs_left > 0 and _parsed(program) is not None:
        raised = raised_error(program)
        if raised == "":
            return None  # it runs fine here: the page's error came from elsewhere
        error = raised or shown_error
    cause = _cause(blocks, index, after, error)
    asked = (
        "what goes wrong when the Python program runs, and why?"
        if cause
        else "what happens when the Python program runs?"
    )
    return ProgramQuestion(
        "debugging",
        f"In {topic}, {asked}\n\n{fence}",
        [f"Python stops with: {error}", *cause],
        blocks[index][1],
        asks="debug",
    )


def _first_line(code: str) -> str:
    return next((line.strip() for line in code.splitlines() if line.strip()), "")


def _limits() -> SandboxLimits:
    q = constructor_parameters().programs
    return SandboxLimits(cpu_seconds=q.run_cpu_seconds, wall_seconds=q.run_wall_seconds)


def _run(program: str) -> RunResult | None:
    """The program's run in the sandbox, holding one of the process's sandbox slots (a build
    is background work on a worker thread: it waits up to `programs.run_wall_seconds` for
    one); None when no sandbox is available or none is free."""
    wait = constructor_parameters().programs.run_wall_seconds
    try:
        with offload.slots("sandbox").claim(None, wait=wait):
            return run_python(program, limits=_limits())
    except (SandboxUnavailable, offload.Busy):
        return None


def printed_output(program: str) -> tuple[str, str]:
    """(what the program printed, "") when it runs to the end in the sandbox and prints the
    same non-empty output twice, in at most `programs.max_output_lines` lines; else ("", why
    not)."""
    first = _run(program)
    if first is None:
        return "", "no sandbox is available (or free) to run it"
    if first.outcome != "ok":
        return "", f"its run ended with {first.outcome}: {_last_line(first.stderr)}"
    printed = first.stdout.rstrip()
    if not printed.strip():
        return "", "it prints nothing"
    if (
        first.truncated
        or len(printed.splitlines()) > constructor_parameters().programs.max_output_lines
    ):
        return "", "its output is too long to predict"
    second = _run(program)
    if second is None or second.stdout.rstrip() != printed:
        return "", "its output changes from run to run"
    return printed, ""


def raised_error(program: str) -> str | None:
    """The error line a program stops with when run in the sandbox: "" when it runs without
    error, None when it could not be run here."""
    result = _run(program)
    if result is None or result.outcome not in ("ok", "error"):
        return None
    if result.outcome == "ok":
        return ""
    errors = [line.strip() for line in result.stderr.splitlines() if _ERROR_LINE.match(line)]
    return errors[-1] if errors else None


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


# Output no reader can predict from the code: the clock, random numbers, object ids.
_UNPREDICTABLE = re.compile(
    r"\b(time\.(time|ctime|localtime|perf_counter)|datetime\.(now|today)|date\.today|"
    r"random\.|uuid|id\()"
)
# What a program reads from the machine it runs on (the home folder, the files, the
# environment): the sandbox's answer is not the reader's.
_MACHINE = re.compile(
    r"\b(expanduser|getcwd|environ|gethostname|getlogin|listdir|scandir|glob|os\.stat|"
    r"open\(|platform\.|sys\.path)"
)

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


# ---- IPython / Jupyter cells --------------------------------------------------------------------

_CELL_PROMPT = re.compile(r"^\s*In \[\d+\]:\s?(?P<code>.*)$")
_CELL_OUTPUT = re.compile(r"^\s*Out\[\d+\]:")


@dataclass(frozen=True)
class Cell:
    """An IPython cell of the text: the code typed after `In [n]:` (its continuation lines
    dedented), and whether the page shows what it printed or returned."""

    code: str
    shows_output: bool
    source: str  # the lines the page shows (an item's evidence)


def ipython_cells(text: str) -> list[Cell]:
    """The text's IPython cells in order, as a PDF or a notebook export shows them: `In [n]:
    code` lines, their indented continuation lines, then `Out[n]: value` or printed lines. A
    prompt left in the prose right before a block ("In [19]: # integers" above an indented
    block) opens the block's cell."""
    cells: list[Cell] = []
    opened: list[str] = []
    for kind, body in text_blocks(text):
        if kind == "prose":
            last = body.splitlines()[-1]
            prompt = _CELL_PROMPT.match(last)
            opened = [prompt.group("code")] if prompt else []
            continue
        if kind in SHELL_FENCES or kind in OUTPUT_FENCES:
            opened = []
            continue
        cells += _cells_of(body.splitlines(), opened)
        opened = []
    return cells


def _cells_of(lines: Sequence[str], opened: Sequence[str]) -> list[Cell]:
    cells: list[Cell] = []
    code: list[str] | None = list(opened) if opened else None
    more: list[str] = []  # continuation lines of the open cell
    shown: list[str] = []
    source: list[str] = []

    def close() -> None:
        if code is not None:
            cells.append(Cell(_cell_code(code, more), bool(shown), "\n".join(source)))

    for line in lines:
        prompt = _CELL_PROMPT.match(line)
        if prompt:
            close()
            code, more, shown, source = [prompt.group("code")], [], [], [line]
        elif code is not None and not shown and line[:1].isspace() and line.strip():
            more.append(line)
            source.append(line)
        elif code is not None and line.strip():
            shown.append(line)
            source.append(line)
    close()
    return [c for c in cells if c.code.strip()]


def _cell_code(first: Sequence[str], more: Sequence[str]) -> str:
    """The cell's code: its prompt line, then its continuation lines dedented (indented once
    more when the prompt line opens a block, "for x in xs:")."""
    dedented = textwrap.dedent("\n".join(more)).splitlines()
    head = "\n".join(first).rstrip()
    if head.endswith(":"):
        dedented = ["    " + line for line in dedented]
    return "\n".join([head, *dedented]).strip("\n")


# How IPython shows a cell's result (`IPython.lib.pretty`, in short): nothing for None, a class
# by its name (`bool`, `__main__.Point`), a set in sorted order when it can be sorted, any other
# value by its repr. Defined in the program the sandbox runs, never shown to the learner.
_IPYTHON_SHOW = """
def _ipython_show(value):
    if value is None:
        return
    if isinstance(value, type):
        module = value.__module__
        print(value.__qualname__ if module == "builtins" else module + "." + value.__qualname__)
        return
    if isinstance(value, (set, frozenset)) and value:
        try:
            items = ", ".join(repr(item) for item in sorted(value))
        except TypeError:
            print(repr(value))
            return
        print("{" + items + "}" if isinstance(value, set) else "frozenset({" + items + "})")
        return
    print(repr(value))
"""


def _last_echoed(program: str) -> str | None:
    """The program with its last statement's value shown as IPython shows a cell's result
    (`_IPYTHON_SHOW`) when that statement is an expression; None when it does not parse."""
    tree = _parsed(program)
    if tree is None or not tree.body:
        return None
    last = tree.body[-1]
    if isinstance(last, ast.Expr):
        hook = ast.Name(id="_ipython_show", ctx=ast.Load())
        tree.body[-1] = ast.Expr(value=ast.Call(func=hook, args=[last.value], keywords=[]))
        tree.body[:0] = ast.parse(_IPYTHON_SHOW).body
    return ast.unparse(ast.fix_missing_locations(tree))


def cell_questions(topic: str, text: str, earlier: str, runs: int) -> ProgramQuestions:
    """ "What does the IPython cell show?" for the topic's cells that the page shows an output
    for, RUN in the sandbox with the definitions it needs from the file's earlier cells
    (`with_context`): the expected output is the run's, the same twice, and short enough to
    predict (`programs.max_output_chars`). At most `runs` cells are run."""
    q = constructor_parameters().programs
    before = [c.code for c in ipython_cells(earlier)]
    found: list[ProgramQuestion] = []
    notes: list[str] = []
    for cell in ipython_cells(text):
        if runs <= 0:
            break
        if not cell.shows_output:
            before.append(cell.code)
            continue
        unknowable = _UNPREDICTABLE.search(cell.code) or _MACHINE.search(cell.code)
        program = None if unknowable else with_context(cell.code, before)
        before.append(cell.code)
        runnable = _last_echoed(program) if program is not None else None
        if program is None or runnable is None or "help(" in cell.code:
            continue
        runs -= 1
        shown, why_not = printed_output(runnable)
        if len(shown) > q.max_output_chars:
            shown, why_not = "", "its output is too long to predict"
        if not shown:
            notes.append(f"{topic}: not asked to predict `{_first_line(cell.code)}`: {why_not}")
            continue
        found.append(
            ProgramQuestion(
                "scenario",
                f"In {topic}, what does the IPython cell show when it runs in Python 3?"
                f"\n\n```python\n{program}\n```",
                ["It prints: " + " / ".join(shown.splitlines())],
                cell.source,
                asks="predict",
                output=shown,
            )
        )
    return ProgramQuestions(found, notes)
