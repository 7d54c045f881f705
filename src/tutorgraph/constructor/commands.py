"""Shell commands and SQL queries a lesson shows, and the items that ask about them.

`shell_commands` reads the lines of ```bash / ```sh / ```console / ```shell fences and `$ cmd`
lines, each with the author's words that explain it: a `#` comment on its line or right above
it, or a prose sentence that names it in a code span. `command_items` asks "Which command <does
the job>?" (the command is the answer; the course's other commands, `course_commands`, are the
choices, their explanations the why_wrong) when the explanation says the job with a verb, else
"What does the command `cmd` do?" answered by those words. A command nothing explains is not
asked about.

Queries (`query_statements`): a ```sql fence (one statement) with the last sentence of the
paragraph right before it, when that sentence stands alone once its closing colon and a
pointing opener ("Here, ") are off, and leans on nothing around it ("this", "the query
above", "we could do:"). "If we want to <verb> <object>" / "we only want <the ...>" gives the
job ("selects a single column", "returns the data since 2000"): "Which query <job>?" with the
course's other queries as choices (a query is another query unless written the same:
`with_choices(verbatim=True)`); else "What does the query `...` do?" answered by that sentence.
Queries travel with the course's commands (`course_commands`), told apart by `language`.

What it cannot do: which comment opens with a verb is read from a small list of the verbs that
explain commands (`_JOB_VERBS`): no part-of-speech model is used, so "# the list of files" is
no job; it does not run commands (a shell session's output is the page's), nor queries (no
database: what a query returns is asked only as the author says it). A wrong query may return
part of what the right one does (a filter on one more column): the author's words say which
one the job names. Sizes are parameters: `programs` in constructor/parameters.yaml."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tutorgraph.constructor.choices import Wrong, new_item, topic_phrase, with_choices
from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import QuizItem, Topic
from tutorgraph.constructor.text import ideas, lesson_prose, sentences, stands_alone, text_blocks
from tutorgraph.knowledge.bloom import BloomLevel

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
        "get",
        "give",
        "group",
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
        "order",
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
    language: str = "shell"  # "shell", or "sql" for a query (`query_statements`)


def is_shell(body: str) -> bool:
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
    blocks = text_blocks(text)
    for index, (kind, body) in enumerate(blocks):
        shell = kind in SHELL_FENCES or (kind in ("code", "text") and is_shell(body))
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


# ---- commands -----------------------------------------------------------------------------------


def command_items(topic: Topic, text: str, course: Sequence[ShellCommand] = ()) -> list[QuizItem]:
    """Each explained shell command and query of the topic: "Which command (query) <does its
    job>?" with the course's other commands (queries) as choices, when its explanation says the
    job with a verb and there are enough of them; else "What does `cmd` do?" answered by its
    explanation."""
    prose = lesson_prose(text)
    own = [*shell_commands(prose), *query_statements(prose)]
    known = {c.command for c in own}
    others = [*own, *(c for c in course if c.command not in known)]
    items = []
    for command in own:
        noun = "query" if command.language == "sql" else "command"
        wrong = [
            Wrong(f"`{c.command}`", f"`{c.command}`: {c.explanation}")
            for c in others
            if c.command != command.command and _language(c) == command.language
        ]
        if command.job:
            question = f"In {topic_phrase(topic)}, which {noun} {command.job.rstrip('.')}?"
            item = new_item(
                topic,
                BloomLevel.APPLY,
                "scenario",
                question,
                f"`{command.command}`: {command.explanation}",
                [f"`{command.command}`"],
                command.source,
                "command",
            )
            chosen = with_choices(item, f"`{command.command}`", wrong, verbatim=True)
            if chosen.options:
                items.append(chosen)
                continue
        question = f"In {topic_phrase(topic)}, what does the {noun} `{command.command}` do?"
        items.append(
            new_item(
                topic,
                BloomLevel.UNDERSTAND,
                "conceptual",
                question,
                command.explanation,
                ideas(command.explanation),
                command.source,
                "command",
            )
        )
    return items


_SQL_OPENING = re.compile(r"^(?:SELECT|WITH|CREATE|INSERT|UPDATE|DELETE|ALTER|DROP)\s", re.I)


def _language(command: ShellCommand) -> str:
    """The command's language; a course command handed over without one (the quiz request
    carries the text and explanation only) is a query when it opens as SQL statements do."""
    if (
        command.language == "shell"
        and _SQL_OPENING.match(command.command)
        and ";" in command.command
    ):
        return "sql"
    return command.language


def course_commands(texts: Sequence[str]) -> list[ShellCommand]:
    """The explained shell commands and queries of the course's texts: the wrong choices of a
    "which command (query)" item."""
    seen: set[str] = set()
    found = []
    for text in texts:
        prose = lesson_prose(text)
        for command in [*shell_commands(prose), *query_statements(prose)]:
            if command.command not in seen:
                seen.add(command.command)
                found.append(command)
    return found


# ---- queries ------------------------------------------------------------------------------------

QUERY_FENCES = frozenset(
    {"sql", "sqlite", "sqlite3", "mysql", "postgresql", "postgres", "psql", "plsql", "tsql"}
)
# Lead-ins that point at the page, not at the query's job ("Here, we only want ...").
_POINTING = re.compile(r"^(?:here|for example|for instance|in that case|again|now|so),\s*", re.I)
# What the author says the query is for: "we want (to select) ...", "suppose we want ...".
_WANT = re.compile(
    r"\b(?:we|you)\s+(?:only\s+)?(?:want|wanted|need|needed|would like)\s+(?P<rest>.+)$", re.I
)
# Where the job a "want" sentence states ends ("..., so that", "... so we", "... we use").
_JOB_END = re.compile(
    r"\s*(?:[,;:(]|\bso that\b|\bso\b|\bbut\b|\bwe\b|\byou\b|\bthen\b|\bwhich\b)", re.I
)
# A sentence that leans on the page around it ("do this", "the query above", "something like")
# or trails off into the block ("we could do:", "change our query to:") explains nothing alone.
_LEANS_ON_PAGE = re.compile(
    r"\b(?:this|these|those|above|below|following|something like|hence|thus|our|what if"
    r"|the same way|as we saw)\b"
    r"|\b(?:to|as|like|do|be|with|using|by)\.$",
    re.I,
)
# "use `DESC` to get descending order": the job is what the keyword is used to do.
_USE_TO = re.compile(r"\buse\s+`[^`]+`\s+(?P<rest>to\s+.+)$", re.I)
_NOUN_OPENING = re.compile(r"^(?:only\s+)?(?:the|all|a|an|each|every|any)\b", re.I)


def query_statements(text: str) -> list[ShellCommand]:
    """The queries of the text's ```sql fences (one statement a fence, on one line), each with
    the sentence of the prose right before it that says what it is for ("If we want only the
    unique values, we use `DISTINCT`"); a query no sentence explains is left out."""
    found: list[ShellCommand] = []
    blocks = text_blocks(text)
    for index, (kind, body) in enumerate(blocks):
        statement = " ".join(body.split())
        if kind not in QUERY_FENCES or not statement or statement.count(";") > 1:
            continue
        if len(body.splitlines()) > constructor_parameters().programs.max_code_lines:
            continue
        explanation = _lead_in(blocks, index)
        if len(explanation.split()) < constructor_parameters().programs.command_min_words:
            continue
        found.append(
            ShellCommand(statement, explanation, _query_job(explanation), body, language="sql")
        )
    return found


def _lead_in(blocks: Sequence[tuple[str, str]], index: int) -> str:
    """The last sentence of the paragraph right before a block, when it stands alone once its
    closing colon and a pointing opener ("Here, ") are taken off; "" otherwise."""
    if index == 0 or blocks[index - 1][0] != "prose":
        return ""
    said = sentences(blocks[index - 1][1])
    if not said:
        return ""
    last = _POINTING.sub("", said[-1].strip().rstrip(":").strip())
    last = re.sub(r",?\s+(?:we|you)\s+(?:would|could|can)\s+use$", "", last)
    if "?" in last or not stands_alone(last) or _LEANS_ON_PAGE.search(_sentence(last)):
        return ""
    return _sentence(last)


def _query_job(explanation: str) -> str:
    """What the query does as a verb phrase, from the author's "we want ..." or "use `X` to
    ...": "we want to select a single column" -> "selects a single column", "we only want the
    data since 2000" -> "returns the data since 2000", "use `DESC` to get descending order" ->
    "gets descending order"; "" when the sentence says no such want, or its object is
    a pronoun or a single word."""
    match = _WANT.search(explanation.rstrip(".")) or _USE_TO.search(explanation.rstrip("."))
    if match is None:
        return ""
    rest = match.group("rest").strip()
    to_do = re.match(r"^to\s+(?P<verb>\w+)\s+(?P<obj>.+)$", rest, re.I)
    if to_do is not None:
        verb, obj = to_do.group("verb").lower(), to_do.group("obj")
        if verb not in _JOB_VERBS:
            return ""
        verb = _third_person(verb)
    elif _NOUN_OPENING.match(rest):
        verb, obj = "returns", rest
    else:
        return ""
    obj = _JOB_END.split(obj, maxsplit=1)[0].strip()
    least = constructor_parameters().programs.command_min_words
    if len(obj.split()) < least or re.match(r"^(?:it|them|this|that|these|those)\b", obj, re.I):
        return ""
    return f"{verb} {obj}"
