"""Issue 36: the offline quiz writer asks questions that test understanding, read from the
structure of a lesson (causes, conditions, contrasts, procedures, programs it runs, commands),
with multiple-choice forms whose wrong options come from the course itself; the item checks
catch a blank answered by its own stem, questions that do not stand alone, and evidence that is
only the question's own sentence."""

from __future__ import annotations

import re

import pytest

from tutorgraph.constructor.agents import ProposedQuestion, quiz_item
from tutorgraph.constructor.item_checks import (
    EvidenceIndex,
    check_items,
    choice_problems,
    leaks,
    wording_problems,
)
from tutorgraph.constructor.programs import printed_output
from tutorgraph.constructor.questions import (
    SiblingTerm,
    TopicMaterial,
    course_commands,
    sibling_terms,
    topic_vocabulary,
    write_quiz,
)
from tutorgraph.constructor.state import (
    UNDERSTANDING_ASKS,
    ItemAsks,
    QuizItem,
    SourceChunk,
    Topic,
)
from tutorgraph.knowledge.bloom import BloomLevel
from tutorgraph.sandbox import run_python, sandbox_available

# CI installs bubblewrap and sets TUTORGRAPH_REQUIRE_SANDBOX, where
# tests/interview/test_sandbox_required.py fails when it is missing: these never skip there.
needs_sandbox = pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")

SHELL = """A shell script is a text file that holds a list of commands for the shell to run.
The shell reads the script one line at a time and runs each command in turn.

To run a script from the current directory:

1. Save the commands in a file called `backup.sh`.
2. Make the file executable with `chmod +x backup.sh`.
3. Run it by typing `./backup.sh` at the prompt.

```bash
# make the script executable
chmod +x backup.sh
ls -a  # list all files, including hidden ones
# show the exit status of the last command
echo $?
```

A variable holds a value that later commands can read with a dollar sign. You should put double
quotes around a variable so that a value with spaces stays one argument. Unlike single quotes,
double quotes let the shell replace a variable by its value. If a command fails, the shell sets
its exit status to a number other than zero. Double quotes prevent word splitting of a variable's
value when the script runs. Use single quotes when you want the text kept exactly as written.
The exit status is a number that every command returns when it finishes.
"""

PYTHON = """A list is a collection that keeps its values in order. Lists are mutable, whereas tuples
cannot be changed once they are created.

```python
values = [3, 1, 2]
values.sort()
print(values)
print(len(values) * 10)
```

```output
[3, 1, 2]
```

The method `sort` changes `values` in place and returns nothing.
If you need a sorted copy, call `sorted` on the list and keep the original unchanged.
"""

SCRIPTS = Topic(
    topic_id="scripts",
    title="Shell scripts",
    unit_id="u1",
    section_ids=["s1"],
    key_terms=["script", "variable", "double quotes", "single quotes", "exit status"],
    words=len(SHELL.split()),
)
LISTS = Topic(
    topic_id="lists",
    title="Python lists",
    unit_id="u2",
    section_ids=["s2"],
    key_terms=["list", "tuple", "sort", "values"],
    words=len(PYTHON.split()),
)
PIPES = Topic(
    topic_id="pipes",
    title="Pipes and redirection",
    unit_id="u1",
    section_ids=["s3"],
    key_terms=["pipe", "redirection", "standard output"],
)
PIPES_TEXT = """A pipe is a connection that sends the output of one command to another command.
Redirection is a way to send the output of a command into a file instead of the screen.

```bash
cd ~  # go to your home directory
mkdir data  # create a directory called data
rm -r old  # remove a directory and everything in it
```
"""
_POINTING = re.compile(r"\b(this|these|the above|the following)\b", re.I)


def _material(topic: Topic, text: str, **kw: object) -> TopicMaterial:
    vocabularies = [(t, topic_vocabulary(t, x)) for t, x in _COURSE]
    return TopicMaterial(
        topic,
        text,
        siblings=sibling_terms(topic, vocabularies),
        commands=course_commands([x for _, x in _COURSE]),
        **kw,  # type: ignore[arg-type]
    )


_COURSE = [(SCRIPTS, SHELL), (PIPES, PIPES_TEXT), (LISTS, PYTHON)]


def test_a_lesson_of_150_words_gets_items_that_test_understanding() -> None:
    assert SCRIPTS.words >= 150
    items = write_quiz(_material(SCRIPTS, SHELL)).items
    assert len(items) >= 3
    assert len({i.bloom_level for i in items}) >= 2
    understanding = [i for i in items if i.asks in UNDERSTANDING_ASKS]
    assert len(understanding) * 3 >= len(items) * 2, [(i.asks, i.text) for i in items]
    assert sum(i.asks == "blank" for i in items) <= 1
    assert sum(i.asks == "define" for i in items) <= 1
    for item in items:
        assert item.text.startswith("In Shell scripts, ")  # names its subject
        assert item.text.splitlines()[0].rstrip().endswith(("?", "."))
        assert not _POINTING.search(item.text), item.text
        assert not wording_problems(item) and not leaks(item)


@pytest.mark.parametrize(
    ("topic", "text"), [(SCRIPTS, SHELL), (LISTS, PYTHON), (PIPES, PIPES_TEXT)]
)
def test_every_reference_answer_holds_all_its_key_points(topic: Topic, text: str) -> None:
    """The grader's key points are what the reference answer says: it is complete."""
    for item in write_quiz(_material(topic, text), wanted=20).items:
        for point in item.key_points:
            assert point.lower().rstrip(".") in item.reference_answer.lower(), (item.text, point)


def test_why_what_if_compare_and_how_questions_come_from_the_texts_structure() -> None:
    items = write_quiz(_material(SCRIPTS, SHELL), wanted=20).items
    by_asks = {i.asks: i for i in items}
    why = by_asks["why"]
    assert why.text == (
        "In Shell scripts, explain why you should put double quotes around a variable."
    )
    assert why.key_points == ["so that a value with spaces stays one argument"]
    what_if = by_asks["what_if"]
    assert what_if.text == "In Shell scripts, what happens if a command fails?"
    assert what_if.key_points == ["The shell sets its exit status to a number other than zero"]
    how = by_asks["how"]
    assert how.text == (
        "In Shell scripts, how do you run a script from the current directory? "
        "List the steps in order."
    )
    assert len(how.key_points) == 3 and how.key_points[0].startswith("Save the commands")
    compare = next(
        i for i in write_quiz(_material(LISTS, PYTHON), wanted=20).items if i.asks == "compare"
    )
    assert compare.text == "In Python lists, how do lists and tuples differ?"
    assert compare.bloom_level is BloomLevel.ANALYZE


def test_a_choice_item_takes_its_wrong_options_from_the_course() -> None:
    items = write_quiz(_material(SCRIPTS, SHELL), wanted=20).items
    choice = next(i for i in items if i.options and i.asks == "apply")
    assert choice.correct_index is not None
    right = choice.options[choice.correct_index]
    assert right == "Double quotes"
    wrong = [o for n, o in enumerate(choice.options) if n != choice.correct_index]
    course_terms = {"pipe", "redirection", "standard output", "single quotes", "exit status"}
    assert {o.lower() for o in wrong} <= course_terms, wrong
    # the text names the confusion with single quotes: it comes first, with its sentence
    assert "single quotes" in {o.lower() for o in wrong}
    for option, why in zip(choice.options, choice.why_wrong, strict=True):
        if option == "single quotes":
            assert why.startswith("Unlike single quotes, double quotes let the shell")
        if option == "pipe":
            assert why == PIPES_TEXT.splitlines()[0]  # the sibling's definition
    assert len(right) <= 1.5 * max(len(o) for o in wrong)  # not the longest by far
    assert not choice_problems(choice)
    # "What is X?" is asked with the other terms' definitions as its wrong options
    lists = write_quiz(_material(LISTS, PYTHON), wanted=20).items
    define = next(i for i in lists if i.asks == "define")
    assert define.options and define.correct_index is not None
    assert define.options[define.correct_index] == "A collection that keeps its values in order"


def test_a_bash_fence_gives_command_items() -> None:
    items = write_quiz(_material(SCRIPTS, SHELL), wanted=20).items
    commands = [i for i in items if i.asks == "command"]
    which = next(i for i in commands if i.text.startswith("In Shell scripts, which command"))
    assert which.text == "In Shell scripts, which command lists all files, including hidden ones?"
    assert which.correct_index is not None and which.options[which.correct_index] == "`ls -a`"
    assert {"`cd ~`", "`mkdir data`", "`rm -r old`", "`echo $?`"} & set(which.options)
    assert all(w == "" or w.startswith("`") for w in which.why_wrong)
    what = next(i for i in commands if i.text.startswith("In Shell scripts, what does the command"))
    assert what.text == "In Shell scripts, what does the command `chmod +x backup.sh` do?"
    assert what.reference_answer == "Make the script executable."


@needs_sandbox
def test_a_predict_item_expects_what_the_sandbox_printed_not_what_the_page_shows() -> None:
    items = write_quiz(_material(LISTS, PYTHON), wanted=20).items
    predict = next(i for i in items if i.asks == "predict")
    program = "values = [3, 1, 2]\nvalues.sort()\nprint(values)\nprint(len(values) * 10)"
    assert f"```python\n{program}\n```" in predict.text
    printed = run_python(program).stdout.rstrip()
    assert printed == "[1, 2, 3]\n30"  # the page shows a stale "[3, 1, 2]"
    assert predict.key_points == ["It prints: [1, 2, 3] / 30"]
    assert predict.reference_answer == "It prints: [1, 2, 3] / 30"
    assert predict.checks is not None and predict.checks.numbers[0].values == [1, 2, 3, 30]
    # output that changes from run to run is never expected
    assert printed_output("import os\nprint(os.urandom(8).hex())") == (
        "",
        "its output changes from run to run",
    )
    assert printed_output("print(1 / 0)")[0] == ""  # a failing run
    assert printed_output("x = 1")[1] == "it prints nothing"


def test_without_a_run_nothing_is_asked_to_predict_and_the_writer_says_why() -> None:
    written = write_quiz(_material(LISTS, PYTHON, run_programs=False), wanted=20)
    assert not any(i.asks == "predict" for i in written.items)
    assert not any("[3, 1, 2]" in " ".join(i.key_points) for i in written.items)
    assert any("not asked to predict `values = [3, 1, 2]`" in note for note in written.notes)


def _item(text: str, points: list[str], evidence: str, asks: ItemAsks = "why") -> QuizItem:
    return QuizItem(
        item_id="q1",
        topic_id="t",
        bloom_level=BloomLevel.REMEMBER,
        type="conceptual",
        difficulty=1,
        text=text,
        reference_answer=evidence,
        key_points=points,
        evidence=evidence,
        asks=asks,
    )


NOTES = """Files are stored on disk whether in text or binary form, and programs read binaries
with special tools. A text editor shows text files as characters.

Git stores every version of a file as a blob, so that an old version can be brought back."""


def test_a_blank_answered_by_its_own_stem_leaks() -> None:
    binary = _item(
        "Fill in the blank: files are stored whether in text or binary _____",
        ["binaries"],
        NOTES.splitlines()[0],
        asks="blank",
    )
    assert leaks(binary)  # "binary" in the stem gives away "binaries"
    clause = _item(
        "In Git, why does Git store every version of a file as a blob, so that an old version "
        "can be brought back?",
        ["so that an old version can be brought back"],
        NOTES.splitlines()[-1],
    )
    assert leaks(clause)
    fair = _item(
        "In Git, explain why Git stores every version of a file as a blob.",
        ["so that an old version can be brought back"],
        NOTES.splitlines()[-1],
    )
    assert not leaks(fair)


def test_a_passage_that_only_copies_the_question_supports_nothing() -> None:
    index = EvidenceIndex([SourceChunk(chunk_id="c", file_id="f", heading_path=["x"], text=NOTES)])
    fair = _item(
        "In Git, explain why Git stores every version of a file as a blob.",
        ["so that an old version can be brought back"],
        NOTES.splitlines()[-1],
    )
    assert index.supporting_passage(fair) is not None
    copy = _item(
        "Fill in the blank: files are stored on disk whether in text or binary _____",
        ["binary"],
        NOTES.splitlines()[0],
        asks="blank",
    )
    assert index.supporting_passage(copy) is None  # found, but it only repeats the question
    elsewhere = _item(
        "In Git, explain why Git stores every version of a file as a blob.",
        ["because blobs are compressed with zlib"],  # not what the text says
        NOTES.splitlines()[-1],
    )
    assert index.supporting_passage(elsewhere) is None
    checked = check_items([fair, copy.model_copy(update={"item_id": "q2"})], index)
    assert [bool(i.problems) for i in checked] == [False, True]


@pytest.mark.parametrize(
    "question",
    [
        "What does this code print?",
        "In Git, what do the above commands do?",
        "In Git, which of the following is a blob?",
        "In Git: Git stores every version of a file as a blob. Why?",
        "why does git store blobs",
    ],
)
def test_a_question_that_does_not_stand_alone_is_dropped(question: str) -> None:
    item = _item(question, ["so that an old version can be brought back"], NOTES)
    assert wording_problems(item)
    index = EvidenceIndex([SourceChunk(chunk_id="c", file_id="f", heading_path=["x"], text=NOTES)])
    [checked] = check_items([item], index)
    assert not checked.kept


def test_a_choice_form_whose_right_option_is_longest_by_far_is_unfair() -> None:
    item = _item("In Git, what does Git store each version of a file as?", ["a blob"], NOTES)
    fair = item.model_copy(
        update={
            "options": ["A blob", "A tree", "A tag", "A ref"],
            "correct_index": 0,
            "why_wrong": ["", "", "", ""],
        }
    )
    assert choice_problems(fair) == []
    giveaway = fair.model_copy(
        update={
            "options": [
                "A compressed blob of the file's whole content",
                "A tree",
                "A tag",
                "All of the above",
            ]
        }
    )
    problems = choice_problems(giveaway)
    assert any("longest" in p for p in problems) and any("above" in p for p in problems)


def test_the_model_path_carries_the_choice_form_and_asks() -> None:
    proposed = ProposedQuestion(
        bloom_level=BloomLevel.APPLY,
        type="scenario",
        text="In Shell scripts, which command lists all files, including hidden ones?",
        reference_answer="`ls -a` lists all files, including hidden ones.",
        key_points=["ls -a"],
        evidence="ls -a  # list all files, including hidden ones",
        asks="command",
        options=["`ls -a`", "`cd ~`", "`mkdir data`", "`echo $?`"],
        correct_index=0,
        why_wrong=["", "`cd ~`: Go to your home directory.", "", ""],
    )
    item = quiz_item(SCRIPTS, 0, proposed)
    assert item.asks == "command" and item.options[0] == "`ls -a`" and item.correct_index == 0
    with pytest.raises(ValueError, match="correct_index"):
        ProposedQuestion(**{**proposed.model_dump(), "correct_index": 7})


def test_sibling_terms_come_from_the_other_topics_same_unit_first() -> None:
    vocabularies = [(t, topic_vocabulary(t, x)) for t, x in _COURSE]
    siblings = sibling_terms(SCRIPTS, vocabularies)
    names = [s.term for s in siblings]
    assert names[:2] == ["pipe", "redirection"]  # defined, in the same unit
    assert "list" in names  # another unit's, after the unit's own
    assert not {"shell script", "exit status"} & set(names)  # never a term it defines itself
    assert isinstance(siblings[0], SiblingTerm) and siblings[0].definition.startswith("A pipe")
