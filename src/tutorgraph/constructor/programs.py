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

Shell commands (`shell_commands`): the lines of ```bash / ```sh / ```console / ```shell fences
and `$ cmd` lines, each with the author's words that explain it: a `#` comment on its line or
right above it, or a prose sentence that names it in a code span. `questions.py` asks "What
does `cmd` do?" (answered by those words) or "Which command <does the job>?" (the command is
the answer; the other commands of the course are the choices). A command nothing explains is
not asked about. Which comment opens with a verb is read from a small list of the verbs that
explain commands (`_JOB_VERBS`): no part-of-speech model is used.

Sizes and time limits are parameters: `programs` in constructor/parameters.yaml."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from tutorgraph import offload
from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import ItemAsks
from tutorgraph.constructor.text import INSTRUCTION, OUTPUT_FENCES, sentences, stands_alone
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
    blocks = _blocks(text)
    before = _programs(_blocks(earlier))
    runs_left = q.predict_max_programs if run else 0
    for index, (kind, body) in enumerate(blocks):
        lines = body.splitlines()
        sized = q.min_code_lines <= len(lines) <= q.max_code_lines
        if kind in OUTPUT_FENCES or kind in SHELL_FENCES or kind == "prose" or not sized:
            continue
        if _is_shell(body):
            continue
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
    return ProgramQuestions(found, notes)


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


# ---- shell commands ---------------------------------------------------------------------------

SHELL_FENCES = frozenset(
    {"bash", "sh", "shell", "zsh", "console", "shell-session", "sh-session", "terminal"}
)
_PROMPT = re.compile(r"^\s*\$\s+(?P<command>\S.*)$")
_TRAILING_COMMENT = re.compile(r"^(?P<command>.*?\S)\s+#\s*(?P<comment>\S.*)$")
# Lines of a script that are its structure, not a command a learner could be asked about.
_NOT_A_COMMAND = re.compile(
    r"^(?:(?:if|then|else|elif|fi|for|do|done|while|until|case|esac|function|return|local)\b"
    r"|[{}()]|\w+\s*\(\)|#!|\w+=)",
)
# The verbs a comment explaining a command opens with ("# list all files, hidden ones too").
_JOB_VERBS = frozenset(
    [
        "add",
        "append",
        "build",
        "change",
        "check",
        "clone",
        "commit",
        "compare",
        "compile",
        "convert",
        "copy",
        "count",
        "create",
        "delete",
        "display",
        "download",
        "edit",
        "execute",
        "exit",
        "extract",
        "fetch",
        "filter",
        "find",
        "format",
        "give",
        "go",
        "install",
        "join",
        "keep",
        "kill",
        "list",
        "look",
        "make",
        "match",
        "merge",
        "move",
        "open",
        "print",
        "pull",
        "push",
        "read",
        "record",
        "redirect",
        "remove",
        "rename",
        "replace",
        "reset",
        "restore",
        "run",
        "save",
        "search",
        "select",
        "send",
        "set",
        "show",
        "sort",
        "split",
        "stage",
        "start",
        "stop",
        "store",
        "switch",
        "tell",
        "test",
        "undo",
        "update",
        "upload",
        "use",
        "view",
        "write",
    ]
)


@dataclass(frozen=True)
class ShellCommand:
    """A command of the text with the author's words that explain it."""

    command: str
    explanation: str  # a comment or sentence of the source ("" when nothing explains it)
    job: str  # what it does, as a verb phrase ("lists all files"); "" when not said so
    source: str  # the lines it comes from (an item's evidence)


def _is_shell(body: str) -> bool:
    """An unlabelled block that is a terminal session (`$ ls`), not a program."""
    lines = [line for line in body.splitlines() if line.strip()]
    return (
        bool(lines)
        and all(_PROMPT.match(line) or not line.startswith(" ") for line in lines)
        and bool(_PROMPT.match(lines[0]))
    )


def shell_commands(text: str) -> list[ShellCommand]:
    """The commands of the text's shell fences and `$ cmd` lines, each with its explanation:
    its `#` comment (on its line, or the comment lines right above it), else a sentence of the
    prose around the block that names it in a code span. In a fence that shows prompts
    (`$ `), only the prompted lines are commands (the rest is their output)."""
    found: list[ShellCommand] = []
    blocks = _blocks(text)
    for index, (kind, body) in enumerate(blocks):
        shell = kind in SHELL_FENCES or (kind in ("code", "text") and _is_shell(body))
        if kind == "prose":
            lines = [line for line in body.splitlines() if _PROMPT.match(line)]
            around = body
        elif shell:
            lines = body.splitlines()
            around = _prose_around(blocks, index)
        else:
            continue
        found += _commands_of(lines, around)
    seen: set[str] = set()
    unique = []
    for command in found:
        if command.command not in seen:
            seen.add(command.command)
            unique.append(command)
    return unique


def _prose_around(blocks: Sequence[tuple[str, str]], index: int) -> str:
    near = [i for i in (index - 1, index + 1) if 0 <= i < len(blocks)]
    return "\n\n".join(blocks[i][1] for i in near if blocks[i][0] == "prose")


def _commands_of(lines: Sequence[str], around: str) -> list[ShellCommand]:
    """The explained commands of a block's lines. A comment above a run of several commands
    explains the run, not its first command: it is no command's explanation."""
    prompted = any(_PROMPT.match(line) for line in lines)
    found = []
    comment_above: list[str] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("#") and not stripped.startswith("#!"):
            comment_above.append(stripped.lstrip("#").strip())
            continue
        prompt = _PROMPT.match(line)
        if prompted and prompt is None:
            comment_above = []
            continue  # output of the command before
        command = prompt.group("command") if prompt else stripped
        comment = ""
        trailing = _TRAILING_COMMENT.match(command)
        if trailing and not re.search(r"[\"'][^\"']*$", trailing.group("command")):
            command, comment = trailing.group("command"), trailing.group("comment")
        alone = not _command_follows(lines, index, prompted=prompted)
        explanation = comment or (" ".join(comment_above) if alone else "")
        comment_above = []  # said of this command, or of the run it opens: used up
        if not command or _NOT_A_COMMAND.match(command) or command.endswith("\\"):
            continue
        explanation = explanation or _sentence_naming(command, around)
        if len(explanation.split()) < constructor_parameters().programs.command_min_words:
            continue
        found.append(
            ShellCommand(command, _sentence(explanation), _job(explanation, command), line.strip())
        )
    return found


def _command_follows(lines: Sequence[str], index: int, *, prompted: bool) -> bool:
    """Whether the line after `index` is another command (not a comment, blank or output, nor
    a command with a comment of its own)."""
    if index + 1 >= len(lines):
        return False
    after = lines[index + 1].strip()
    if not after or after.startswith("#") or _TRAILING_COMMENT.match(after):
        return False  # (a command with its own comment is explained apart)
    return bool(_PROMPT.match(lines[index + 1])) if prompted else True


def _sentence(words: str) -> str:
    words = words.strip()
    words = words[:1].upper() + words[1:]
    return words if words.endswith((".", "!", "?")) else words + "."


def _sentence_naming(command: str, prose: str) -> str:
    """The first sentence of the prose that names the command in a code span."""
    for sentence in sentences(prose):
        if f"`{command}`" in sentence and stands_alone(sentence) and "?" not in sentence:
            return sentence
    return ""


def _job(explanation: str, command: str) -> str:
    """What the command does as a verb phrase: the explanation when it opens with a verb of
    `_JOB_VERBS` (made third person, and so are the verbs it lists: "stage one file and
    commit it" -> "stages one file and commits it"), or the rest of a sentence opening with
    the command in a code span ("`ls -a` lists ..."). "" otherwise, and when the verb's object
    is a pronoun ("read it back": what "it" is, the question would not say)."""
    text = explanation.strip().rstrip(".")
    opening = f"`{command}`"
    if text.startswith(opening):
        rest = text[len(opening) :].strip()
        job = rest if rest.split(" ", 1)[0].lower() in _JOBS_DONE else ""
    else:
        verb = text.split(" ", 1)[0].lower()
        job = text[:1].lower() + text[1:] if verb in _JOB_VERBS | _JOBS_DONE else ""
        job = re.sub(
            r"(?P<joint>^|, and |, | and | then )(?P<verb>\w+)\b",
            lambda m: (
                m["joint"] + _third_person(m["verb"].lower())
                if m["verb"].lower() in _JOB_VERBS
                else m.group(0)
            ),
            job,
        )
    if re.match(r"^\w+\s+(it|them|this|that|these|those)\b", job, re.I):
        return ""
    return job


def _third_person(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


_JOBS_DONE = frozenset(_third_person(verb) for verb in _JOB_VERBS)
