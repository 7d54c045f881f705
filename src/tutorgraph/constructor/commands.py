"""Shell commands a lesson shows, and the items that ask about them.

`shell_commands` reads the lines of ```bash / ```sh / ```console / ```shell fences and `$ cmd`
lines, each with the author's words that explain it: a `#` comment on its line or right above
it, or a prose sentence that names it in a code span. `command_items` asks "Which command <does
the job>?" (the command is the answer; the course's other commands, `course_commands`, are the
choices, their explanations the why_wrong) when the explanation says the job with a verb, else
"What does the command `cmd` do?" answered by those words. A command nothing explains is not
asked about.

What it cannot do: which comment opens with a verb is read from a small list of the verbs that
explain commands (`_JOB_VERBS`): no part-of-speech model is used, so "# the list of files" is
no job; it does not run commands (a shell session's output is the page's). Sizes are
parameters: `programs` in constructor/parameters.yaml."""

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
    """Each explained shell command of the topic: "Which command <does its job>?" with the
    course's other commands as choices, when its explanation says the job with a verb and
    there are enough of them; else "What does `cmd` do?" answered by its explanation."""
    own = shell_commands(lesson_prose(text))
    known = {c.command for c in own}
    others = [*own, *(c for c in course if c.command not in known)]
    items = []
    for command in own:
        wrong = [
            Wrong(f"`{c.command}`", f"`{c.command}`: {c.explanation}")
            for c in others
            if c.command != command.command
        ]
        if command.job:
            question = f"In {topic_phrase(topic)}, which command {command.job.rstrip('.')}?"
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
            chosen = with_choices(item, f"`{command.command}`", wrong)
            if chosen.options:
                items.append(chosen)
                continue
        question = f"In {topic_phrase(topic)}, what does the command `{command.command}` do?"
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


def course_commands(texts: Sequence[str]) -> list[ShellCommand]:
    """The explained shell commands of the course's texts: the wrong choices of a "which
    command" item."""
    seen: set[str] = set()
    found = []
    for text in texts:
        for command in shell_commands(lesson_prose(text)):
            if command.command not in seen:
                seen.add(command.command)
                found.append(command)
    return found
