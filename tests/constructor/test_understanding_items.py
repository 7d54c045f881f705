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
from tutorgraph.constructor.text import ideas
from tutorgraph.knowledge.bloom import BloomLevel
from tutorgraph.sandbox import run_python, sandbox_available
from tutorgraph.text.tokens import normalise

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


# ---- topics with little cause or contrast: what each thing does ---------------------------------

BROKERS = """A message broker passes messages from the programs that write them to the programs
that read them.

The broker stores every message on disk until each subscriber has acknowledged it.
The retry queue holds the messages whose delivery failed within the last hour.
The dead-letter queue keeps the messages that failed five times in a row.
The scheduler removes expired messages from every queue once a minute.
A consumer group splits the messages of one queue between its members in turn.
The delivery log records each attempt with its time and the consumer that made it.
The broker sorts waiting messages by their priority before it hands them out.
The monitor counts the messages that wait in each queue and shows the totals on a page.
A topic exchange copies each incoming message into every queue whose pattern matches its
routing key.
The archive produces a compressed file of the day's messages every night at midnight.
The admin console lists the queues with their sizes, their owners and their settings.
"""
BROKER_TOPIC = Topic(
    topic_id="brokers",
    title="Message brokers",
    unit_id="u3",
    section_ids=["s4"],
    key_terms=[
        "broker",
        "retry queue",
        "dead-letter queue",
        "scheduler",
        "consumer group",
        "topic exchange",
        "archive",
        "monitor",
    ],
    words=len(BROKERS.split()),
)


def test_a_topic_that_only_says_what_things_do_gets_three_items_over_two_levels() -> None:
    """No cause, condition, contrast, list, program or command: what each part does is still
    asked ("what does the scheduler remove?"), and two of them side by side are compared."""
    assert BROKER_TOPIC.words >= 150
    items = write_quiz(_material(BROKER_TOPIC, BROKERS)).items
    assert len(items) >= 3, [i.text for i in items]
    assert len({i.bloom_level for i in items}) >= 2
    assert sum(i.asks in UNDERSTANDING_ASKS for i in items) >= 2
    asked = [i.text for i in items]
    assert any(re.search(r"what does the \w+( \w+)? (store|hold|keep|remove)\?", q) for q in asked)
    for item in items:
        assert item.text.startswith("In Message brokers, ")
        assert not wording_problems(item) and not leaks(item)
        for point in item.key_points:
            assert point.lower() in item.reference_answer.lower(), (item.text, point)


def test_what_a_term_does_is_answered_by_the_sentence_that_says_it() -> None:
    items = write_quiz(_material(BROKER_TOPIC, BROKERS), wanted=20).items
    by_question = {i.text: i for i in items}
    item = by_question["In Message brokers, what does the scheduler remove?"]
    assert item.key_points == ["expired messages from every queue once a minute"]
    assert item.asks == "how" and item.bloom_level == BloomLevel.UNDERSTAND


def test_key_points_are_the_answers_separate_ideas() -> None:
    """A reference of several clauses gives one key point per clause, so that a partial
    answer earns partial credit; a series ("a, b, and c") is one idea; all are in the
    reference."""
    text = (
        "If the retry queue is full, the broker rejects new messages from the producers, and the "
        "producers wait a second before they send them again.\n"
    )
    items = write_quiz(_material(BROKER_TOPIC, BROKERS + "\n" + text), wanted=20).items
    what_if = next(i for i in items if i.asks == "what_if" and "retry queue is full" in i.text)
    assert what_if.key_points == [
        "The broker rejects new messages from the producers",
        "the producers wait a second before they send them again",
    ]
    for point in what_if.key_points:
        assert point.lower() in what_if.reference_answer.lower()
    series = "the broker copies the queues, the bindings, and the settings of every exchange"
    assert ideas(series) == [series]


def test_a_question_is_asked_once_and_says_no_stray_adverb() -> None:
    text = (
        "`mailbox.Queue` contains the methods that put messages in and take them out.\n"
        "`mailbox.Queue` also contains the methods that count and clear the waiting messages.\n"
    )
    topic = BROKER_TOPIC.model_copy(update={"words": 0})
    items = write_quiz(_material(topic, text), wanted=20).items
    asked = [i.text for i in items]
    assert asked.count("In Message brokers, what does `mailbox.Queue` contain?") == 1
    assert not any(" also " in q for q in asked)


def test_x_is_like_y_but_asks_how_they_differ() -> None:
    text = (
        "The retry queue works exactly like the dead-letter queue, but it gives every message "
        "another delivery attempt after an hour.\n"
    )
    items = write_quiz(_material(BROKER_TOPIC, text), wanted=20).items
    compare = next(i for i in items if i.asks == "compare")
    assert compare.text == (
        "In Message brokers, how does the retry queue differ from the dead-letter queue?"
    )
    assert compare.key_points == ["it gives every message another delivery attempt after an hour"]


def test_a_use_rule_on_code_names_it_with_its_article() -> None:
    text = (
        "Operators of a large broker use the `ALIAS` keyword to name a long routing key in a "
        "binding.\n"
    )
    items = write_quiz(_material(BROKER_TOPIC, text), wanted=20).items
    asked = [i.text for i in items if i.asks == "apply"]
    assert asked and all("use the `ALIAS` keyword" in q for q in asked), asked


def test_a_means_or_a_goal_the_text_states_asks_how() -> None:
    """ "You can X by <doing>" asks how to X; "To <goal>, <do>" asks how to reach the goal;
    "by <a column>" is no means, and an act about "we" does not stand alone."""
    text = (
        "You can pause a queue by setting its limit to zero in the admin console.\n"
        "To move a message to another queue, use the `shovel` command with both queue names.\n"
        "We can order the waiting messages by their priority and their age.\n"
        "We can also tell the broker that we want the oldest messages first by adding a flag.\n"
    )
    items = write_quiz(_material(BROKER_TOPIC, text), wanted=20).items
    how = {i.text: i.key_points for i in items if i.asks == "how"}
    assert how["In Message brokers, how can you pause a queue?"] == [
        "setting its limit to zero in the admin console"
    ]
    assert how["In Message brokers, how do you move a message to another queue?"] == [
        "Use the `shovel` command with both queue names"
    ]
    assert not any("order the waiting messages" in q or " we " in q for q in how)


def test_a_noun_read_as_a_verb_or_a_series_read_as_a_condition_asks_nothing() -> None:
    """ "A complete lists of ..." has no verb "lists"; in "If a name ends in S, X, or Z, add
    ES" the first comma is inside the series; ", which" opens no clause of its own."""
    text = (
        "A complete lists of the broker's settings is printed by the admin console at startup.\n"
        "If a queue name ends in S, X, or Z, add a dash before the suffix.\n"
    )
    asked = [i.text for i in write_quiz(_material(BROKER_TOPIC, text), wanted=20).items]
    assert not any("complete" in q or "ends in S" in q for q in asked), asked
    which = "You will see the queue's settings, which in brokers are called its policy"
    assert ideas(which) == [which]


SESSION = """A queue in Python's standard library hands items out in the order they came in.

```python
>>> from collections import deque
>>> waiting = deque(['a', 'b'])    ①
>>> waiting.append('c')
>>> waiting.popleft()
'this is the page, not the run'
>>> len(waiting)
2
```

1. The page's own marker, not code.
"""


@needs_sandbox
def test_an_interactive_session_is_run_and_asked_to_predict() -> None:
    """A `>>>` session is run in the sandbox with each expression echoed as the interpreter
    does; the expected output is the run's, not the page's."""
    items = write_quiz(_material(BROKER_TOPIC, SESSION), wanted=20).items
    predict = next(i for i in items if i.asks == "predict")
    assert "what does the Python session show" in predict.text
    assert ">>> waiting.popleft()" in predict.text and "①" not in predict.text
    assert predict.key_points == ["It prints: 'a' / 2"]
    assert "the page" not in predict.reference_answer


def test_a_session_that_reads_the_machine_is_not_asked_to_predict() -> None:
    text = "```python\n>>> import os\n>>> os.path.expanduser('~')\n'/home/ann'\n```\n"
    items = write_quiz(_material(BROKER_TOPIC, text), wanted=20).items
    assert not [i for i in items if i.asks == "predict"]


# ---- queries, IPython cells, what terms do (issue 36, third pass) -------------------------------

BIRDS = """A table of sightings keeps one row for each bird a volunteer saw.

If we want to count the sightings of each species, we group the rows by species:

```sql
SELECT species, COUNT(*)
FROM sightings
GROUP BY species;
```

We only want the sightings made after the first of May:

```sql
SELECT *
FROM sightings
WHERE seen > '2024-05-01';
```

To see the tallest birds first, we can sort on the height column in descending order.

```sql
SELECT name, height
FROM birds
ORDER BY height DESC;
```
"""
BIRD_TOPIC = Topic(
    topic_id="birds",
    title="Querying sightings",
    unit_id="u3",
    section_ids=["s9"],
    key_terms=["sightings", "species"],
)


def test_a_sql_section_asks_what_its_queries_do_and_which_query_does_a_job() -> None:
    """Each query the prose explains gives an item: "which query <does the job>?" with the
    course's other queries as the wrong options, or "what does the query `...` do?" answered
    by the sentence that introduces it."""
    items = write_quiz(_material(BIRD_TOPIC, BIRDS), wanted=20).items
    queries = [i for i in items if i.asks == "command"]
    assert len(queries) == 3
    which = next(i for i in queries if "which query returns the sightings made after" in i.text)
    assert (
        which.options[which.correct_index or 0]
        == "`SELECT * FROM sightings WHERE seen > '2024-05-01';`"
    )
    assert "`SELECT species, COUNT(*) FROM sightings GROUP BY species;`" in which.options
    counts = next(
        i for i in queries if "which query counts the sightings of each species" in i.text
    )
    assert counts.options[counts.correct_index or 0].startswith("`SELECT species, COUNT(*)")
    sort = next(i for i in queries if "what does the query `SELECT name, height" in i.text)
    assert "sort on the height column in descending order" in sort.reference_answer
    assert {i.bloom_level for i in queries} == {BloomLevel.APPLY, BloomLevel.UNDERSTAND}
    assert not [i for i in queries if wording_problems(i) or leaks(i)]


NOTEBOOK = """A list keeps its values in the order they were added, and indexing counts from zero.

```
In [1]: letters = ['x', 'y', 'z']
In [2]: len(letters) * 10
Out[2]: 99
```

In [3]: # the last letter

```
        word = letters[-1]
        word.upper()
Out[3]: 'the page, not the run'
```
"""


@needs_sandbox
def test_an_ipython_cell_is_run_with_its_earlier_cells_and_asked_to_predict() -> None:
    """Cells as a PDF of a notebook shows them (`In [n]:` / `Out[n]:`, a prompt left in the
    prose above an indented block) are run in the sandbox with the earlier cells they need; the
    expected output is what the run showed, never the page's `Out`."""
    items = write_quiz(_material(LISTS, NOTEBOOK), wanted=20).items
    predict = [i for i in items if i.asks == "predict"]
    assert {tuple(i.key_points) for i in predict} == {("It prints: 30",), ("It prints: 'Z'",)}
    last = next(i for i in predict if "'Z'" in i.reference_answer)
    assert "letters = ['x', 'y', 'z']" in last.text and "word.upper()" in last.text
    assert "In [" not in last.text and "the page" not in last.reference_answer


KITCHEN = """A restaurant kitchen works as a line of stations, each with one job during service.

The expediter calls each order to the stations as soon as the ticket arrives from the dining room.
The grill station cooks the steaks, the chops and the burgers to the temperature the ticket names.
The sauté station prepares the sauces and the pan dishes in small batches for each table.
The pastry station bakes the bread every morning and plates the desserts during service.
The dish pit cleans the pans, the plates and the cutlery between the courses of every table.
The walk-in cooler chills the meat, the fish and the dairy at four degrees or below.
The pass connects the kitchen with the dining room through a heated shelf for finished plates.
The sous chef tastes each plate at the pass before a server carries it to the dining room.
The prep cook trims and portions the vegetables before the first orders of the day arrive.
The head chef plans the menu of the week from the produce the farmers deliver on Monday.
A ticket rail displays the open orders in the sequence the dining room sent them to the line.
The salamander browns the tops of gratins and melts cheese on the dishes just before service.
"""
KITCHEN_TOPIC = Topic(
    topic_id="kitchen",
    title="Kitchen stations",
    unit_id="u4",
    section_ids=["s7"],
    key_terms=[
        "expediter",
        "grill station",
        "pastry station",
        "dish pit",
        "walk-in cooler",
        "sous chef",
        "prep cook",
        "head chef",
        "ticket rail",
        "salamander",
    ],
    words=len(KITCHEN.split()),
)


def test_plain_x_does_y_prose_gets_three_items_over_two_levels() -> None:
    """A topic that only says what each thing does, with verbs no template knows ("calls",
    "cooks", "bakes", "cleans"), still gets three items over two Bloom levels: "what cooks
    the steaks ...?" with the station among the course's other terms (choosing the thing
    for a job: apply), and each answer is the sentence's own subject."""
    assert KITCHEN_TOPIC.words >= 150
    items = write_quiz(_material(KITCHEN_TOPIC, KITCHEN)).items
    assert len(items) >= 3, [i.text for i in items]
    assert len({i.bloom_level for i in items}) >= 2, [(i.bloom_level, i.text) for i in items]
    jobs = [
        i
        for i in write_quiz(_material(KITCHEN_TOPIC, KITCHEN), wanted=20).items
        if i.asks == "apply" and i.options
    ]
    grill = next(i for i in jobs if i.text.startswith("In Kitchen stations, what cooks the steaks"))
    assert grill.options[grill.correct_index or 0] == "grill station"
    assert grill.bloom_level == BloomLevel.APPLY
    for item in items:
        assert not wording_problems(item) and not leaks(item)


SHAPES = """When errors occur exceptions can be raised, which interrupts the flow of the program.
When you're just getting started with Python, you will spend a lot of time in the shell.
When a file is closed, every buffered write it holds is flushed to the disk first.
Esperanto is a constructed language that borrows most of its words from Romance languages.
"""


def test_conditions_without_a_consequence_and_proper_names_are_asked_well_formed() -> None:
    """No "what happens when errors occur exceptions can be raised?" (the condition runs into
    a clause of its own), no "what happens when you're just getting started?" (the reader's
    situation, no consequence), no "what is an Esperanto?" (a proper name takes no article)."""
    topic = BROKER_TOPIC.model_copy(update={"key_terms": ["Esperanto", "file"], "words": 200})
    asked = [i.text for i in write_quiz(_material(topic, SHAPES), wanted=20).items]
    assert not [q for q in asked if "exceptions can be raised" in q], asked
    assert not [q for q in asked if "getting started" in q], asked
    assert "In Message brokers, what happens when a file is closed?" in asked
    assert "In Message brokers, what is Esperanto?" in asked


# A topic of 150+ words whose prose says what things do in plain statements and nothing else:
# no cause, contrast, condition, procedure, definition or program (issue 36, fourth pass).
BAKERY = """The village bakery opens at six in the morning and closes at two in the afternoon.
Every loaf starts as a mix of flour, water, salt and a little yeast.
The head baker weighs the flour on a brass scale before dawn.
The apprentice kneads the dough on a long oak table for ten minutes.
The proofing cabinet warms the shaped loaves for about an hour.
The stone oven bakes twelve loaves at a time on its lower shelf.
A linen cloth covers the rye loaves on the counter.
The apprentice sweeps the floor and washes the trays at the end of the shift.
Customers buy most of the rye bread before nine o'clock.
The sourdough starter lives in a clay jar on the top shelf of the pantry.
The delivery van carries fresh rolls to three cafes in the old town every morning.
Flour dust settles on every surface of the kitchen by midday.
The baker's daughter paints the prices on a small chalkboard near the door.
The bakery sells seeded rolls, plain rolls, rye loaves and a large white loaf.
A copper bell above the door rings for every customer who comes in.
The head baker tastes a slice of each batch before the loaves go on sale.
The night porter lights the oven fire at four o'clock with dry beech wood.
A brass lamp brightens the counter on dark winter mornings.
"""
BAKERY_TOPIC = Topic(
    topic_id="bakery",
    title="The village bakery",
    unit_id="u1",
    section_ids=["s9"],
    key_terms=["rye bread", "sourdough"],
    words=len(BAKERY.split()),
)
_PRONOUN_SUBJECT = re.compile(r", what (?:does|do|can) (?:it|they|we|you|this|these)\b", re.I)


def test_plain_statements_give_three_items_over_two_levels() -> None:
    assert BAKERY_TOPIC.words >= 150
    items = write_quiz(_material(BAKERY_TOPIC, BAKERY)).items
    assert len(items) >= 3
    assert len({i.bloom_level for i in items}) >= 2
    index = EvidenceIndex(
        [SourceChunk(chunk_id="b", file_id="f", heading_path=["bakery"], text=BAKERY)]
    )
    for item in items:
        assert item.text.startswith("In The village bakery, ")
        assert item.text.endswith("?")
        assert not _PRONOUN_SUBJECT.search(item.text)
        assert not leaks(item) and not wording_problems(item), item.text
        assert index.supporting_passage(item) is not None, item.text
    recall = [i for i in items if i.asks not in UNDERSTANDING_ASKS]
    assert recall, "a recall item gives the second level"
    for item in recall:  # "what sweeps the floor ...?" answered by its subject, or the reverse
        assert item.reference_answer and item.reference_answer.lower() not in item.text.lower()


def test_recall_padding_keeps_understanding_share_on_two_topics() -> None:
    bank = [
        *write_quiz(_material(BAKERY_TOPIC, BAKERY)).items,
        *write_quiz(_material(SCRIPTS, SHELL)).items,
    ]
    understanding = [i for i in bank if i.asks in UNDERSTANDING_ASKS]
    assert len(understanding) * 3 >= len(bank) * 2


def test_no_recall_padding_for_a_topic_already_covered() -> None:
    items = write_quiz(_material(SCRIPTS, SHELL)).items
    recall = [i for i in items if i.asks not in UNDERSTANDING_ASKS]
    assert len(recall) <= 1
    short = Topic(
        topic_id="short", title="Bakery hours", unit_id="u1", section_ids=["s8"], words=40
    )
    text = "The head baker weighs the flour on a brass scale before dawn.\n"
    assert len(write_quiz(_material(short, text)).items) <= 1


def test_sibling_terms_are_terms_of_the_course_not_frequent_words() -> None:
    text = """## Pipes

A **pipe** is a connection that sends the output of one command to another command.
English is a language that borrows words from many others.
A file name is required, and the required name must be quoted; required again.
The `tee` command copies its input to a file and to the screen.
"""
    topic = Topic(
        topic_id="p",
        title="Pipes",
        unit_id="u1",
        section_ids=["s1"],
        key_terms=["required", "pipe", "tee", "english"],
    )
    lent = {normalise(t.term) for t in topic_vocabulary(topic, text)}
    assert {"pipe", "tee"} <= lent
    assert not lent & {"required", "english"}
