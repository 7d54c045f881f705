"""Reading the material as its author wrote it (issue 36): front matter gives the titles and
description, a `#` comment in code is never a heading, exercises and reading lists are the
unit's and never a topic, units follow the author's order, an introduction belongs to its unit,
PDF bookmarks and Word heading styles give the same outline as Markdown, and a generic word
makes no prerequisite."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import docx
from fpdf import FPDF

from tutorgraph.constructor import analysis, subgraphs
from tutorgraph.constructor.build import collect_files, uploads_from
from tutorgraph.constructor.context import ConstructorContext, Upload
from tutorgraph.constructor.outline import read_outline
from tutorgraph.constructor.state import CourseStructure, SourceFile, SourceSection, Topic, Unit
from tutorgraph.content.extract import ExtractionLimits, extract
from tutorgraph.engines import offline_engine

NOTES = Path(__file__).parent / "lecture_notes"
LECTURES = [
    NOTES / "shell-scripting.md",
    NOTES / "data-wrangling.md",
    NOTES / "version-control.md",
]


async def read(
    uploads: list[Upload], title: str = ""
) -> tuple[list[SourceFile], dict[str, object]]:
    """The ingestion and structure pipelines on `uploads`, offline."""
    by_id = {u.upload_id: u for u in uploads}

    async def no_publish(_state: object) -> str:
        raise AssertionError("not published here")

    context = ConstructorContext(
        model=offline_engine(),
        read_uploads=lambda ids: [by_id[i] for i in ids if i in by_id],
        store_image=lambda *_args: None,
        mark_upload=lambda *_args: None,
        publish=no_publish,
    )
    ingested = await subgraphs.INGESTION.ainvoke({"upload_ids": list(by_id)}, context=context)
    files: list[SourceFile] = ingested["files"]
    built = await subgraphs.STRUCTURE.ainvoke(
        {"files": files, "course_title": title}, context=context
    )
    return files, built


def structure_of(built: dict[str, object]) -> CourseStructure:
    structure = built["structure"]
    assert isinstance(structure, CourseStructure)
    return structure


def sections_of(built: dict[str, object]) -> dict[str, SourceSection]:
    sections = built["sections"]
    assert isinstance(sections, list)
    return {s.section_id: s for s in sections}


def lesson_text(built: dict[str, object], topic: Topic) -> str:
    by_id = sections_of(built)
    return "\n\n".join(by_id[s].text for s in topic.section_ids)


def lectures() -> list[Upload]:
    return uploads_from(LECTURES, ExtractionLimits())


async def test_front_matter_gives_the_title_and_description_not_a_body_sentence() -> None:
    files, built = await read(uploads_from(LECTURES[:1], ExtractionLimits()))
    structure = structure_of(built)
    assert structure.title == "Shell Scripting"
    assert structure.description.startswith("Writing small Bash programs: variables, quoting")
    assert files[0].front_matter["nav_order"] == "1"
    # Three lectures: the course is named by the field their front matter shares.
    _, built = await read(lectures())
    structure = structure_of(built)
    assert structure.title == "Command-Line Craft"
    assert [u.title for u in structure.units] == [
        "Shell Scripting",
        "Data Wrangling",
        "Version Control with Git",
    ]


async def test_nothing_names_the_course_so_the_title_stays_empty_for_the_author() -> None:
    plain = [Upload(f"u{n}", f"notes-{n}.md", body.encode()) for n, body in enumerate(["a", "b"])]
    plain = [
        Upload(u.upload_id, u.filename, f"# Part {u.upload_id}\n\n{TEXT}\n".encode()) for u in plain
    ]
    _, built = await read(plain)
    assert structure_of(built).title == ""  # the coordinator asks; never "Untitled course"


TEXT = (
    "A graph is a set of nodes joined by edges, and a path is a sequence of edges that "
    "connects two nodes. Graphs model road maps, networks and the links between web pages, "
    "so the same algorithms answer questions about all of them."
)


def test_a_comment_in_code_is_never_a_heading() -> None:
    outline = read_outline((NOTES / "shell-scripting.md").read_text())
    headings = [s.heading_path[-1] for s in outline.sections if s.level]
    assert headings == [
        "Variables and quoting",
        "Command substitution",
        "Exit codes and conditions",
        "Globbing and loops",
        "Exercises",
        "Stretch goal",
    ]
    globbing = next(s for s in outline.sections if s.heading_path == ["Globbing and loops"])
    # The Jekyll highlight block is code, kept verbatim; the attribute line is gone.
    assert "# one line per file name, read by the loop" in globbing.text
    assert "{: .note }" not in globbing.text and "{% highlight" not in globbing.text
    variables = next(s for s in outline.sections if s.heading_path == ["Variables and quoting"])
    assert "```bash\n# assign a variable (no spaces around =)\ngreeting=hello" in variables.text
    # The constructor's sections are the outline's (the extractor keeps the code as written).
    document = extract("shell-scripting.md", (NOTES / "shell-scripting.md").read_bytes())
    file = SourceFile(
        file_id="f",
        filename="shell-scripting.md",
        kind="markdown",
        title=document.title,
        markdown=document.markdown,
        pages=1,
        words=document.words,
    )
    paths = [s.heading_path for s in analysis.file_sections(file) if s.level]
    assert [p[-1] for p in paths] == headings
    # Front matter never becomes a setext heading, and ~~~ fences hide ``` lines.
    tricky = "---\ntitle: T\n---\nText\n\n~~~markdown\n```\n# not a heading\n~~~\n\n## Real\n\nx\n"
    assert [s.heading_path for s in read_outline(tricky).sections if s.level] == [["Real"]]


async def test_exercises_and_reading_lists_are_the_units_never_a_topic() -> None:
    _, built = await read(lectures())
    structure = structure_of(built)
    by_id = sections_of(built)
    titles = [t.title for t in structure.topics]
    assert not {"Exercises", "Further reading", "References", "Stretch goal"} & set(titles)
    for topic in structure.topics:
        text = lesson_text(built, topic)
        assert "Write a script that prints the number of lines" not in text
        assert "The Pro Git book" not in text
        assert all(by_id[s].role == "lesson" for s in topic.section_ids)
        assert all("Write a script" not in point for point in topic.key_points)
    shell, wrangling, git = structure.units
    assert [by_id[s].heading_path for s in shell.exercise_section_ids] == [
        ["Exercises"],
        ["Exercises", "Stretch goal"],
    ]
    assert [by_id[s].heading_path for s in wrangling.reading_section_ids] == [["Further reading"]]
    assert [by_id[s].heading_path for s in git.reading_section_ids] == [["References"]]
    # "References and branches" is a topic: only a heading that is a reading list is one.
    assert "References and branches" in titles


async def test_an_introduction_belongs_to_its_unit_and_each_lesson_is_its_section() -> None:
    _, built = await read(lectures())
    structure = structure_of(built)
    by_id = sections_of(built)
    shell = structure.units[0]
    intro = "\n".join(by_id[s].text for s in shell.intro_section_ids)
    assert "the shell is quietly asking you to write" in intro
    first = structure.topic(shell.topic_ids[0])
    assert first.title == "Variables and quoting"
    text = lesson_text(built, first)
    assert "quietly asking" not in text
    # The topic is its heading's text and its subsection, up to the next heading of its level.
    assert "Command substitution runs a command" in text and "Every command finishes" not in text
    assert [structure.topic(t).title for t in shell.topic_ids] == [
        "Variables and quoting",
        "Exit codes and conditions",
        "Globbing and loops",
    ]


async def test_units_follow_the_order_the_files_were_given_in(tmp_path: Path) -> None:
    z = tmp_path / "z.md"
    a = tmp_path / "a.md"
    z.write_text(f"# Zebra graphs\n\n{TEXT}\n")
    a.write_text(f"# Aardvark paths\n\n{TEXT} Paths are walks without repeated nodes.\n")
    named = collect_files([z, a])
    assert named == [z, a]
    _, built = await read(uploads_from(named, ExtractionLimits()))
    assert [u.title for u in structure_of(built).units] == ["Zebra graphs", "Aardvark paths"]
    # A folder: the front matter's order key, not the names.
    folder = tmp_path / "course"
    folder.mkdir()
    for path in LECTURES:
        (folder / path.name).write_text(path.read_text())
    assert [p.name for p in collect_files([folder])] == [p.name for p in LECTURES]


async def test_one_file_with_several_top_level_parts_gives_a_unit_per_part() -> None:
    body = (
        f"# Graphs\n\n## Nodes\n\n{TEXT}\n\n## Edges\n\n{TEXT}\n\n"
        f"# Trees\n\n## Roots\n\n{TEXT}\n\n## Leaves\n\n{TEXT}\n"
    )
    _, built = await read([Upload("book", "book.md", body.encode())])
    structure = structure_of(built)
    assert [u.title for u in structure.units] == ["Graphs", "Trees"]
    assert [len(u.topic_ids) for u in structure.units] == [2, 2]
    assert all(u.file_ids == ["book"] for u in structure.units)


def bookmarked_pdf() -> bytes:
    """Headings set in the body's own size (font sizes cannot find them), with bookmarks."""
    pdf = FPDF()
    pdf.set_title("Version Control Notes")
    pdf.set_subject("How Git stores history")
    pdf.add_page()
    parts = [
        (0, "Git's data model", "Git stores the history of a folder as snapshots. " * 12),
        (1, "Objects", "Every object is stored under the hash of its content. " * 12),
        (0, "Branches", "A branch is a reference that moves forward with each commit. " * 12),
    ]
    for level, title, body in parts:
        pdf.start_section(title, level=level)
        pdf.set_font("Helvetica", "B", 11)
        pdf.multi_cell(0, 6, title, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 11)
        pdf.multi_cell(0, 6, body, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


async def test_a_pdf_with_bookmarks_yields_the_bookmark_outline() -> None:
    document = extract("notes.pdf", bookmarked_pdf())
    outline = read_outline(document.markdown)
    assert [s.heading_path for s in outline.sections if s.level] == [
        ["Git's data model"],
        ["Git's data model", "Objects"],
        ["Branches"],
    ]
    files, built = await read([Upload("pdf", "notes.pdf", bookmarked_pdf())])
    assert files[0].title == "Version Control Notes"  # the PDF's /Title
    assert files[0].description == "How Git stores history"
    assert structure_of(built).title == "Version Control Notes"


LISTS_MD = f"""# Lists

{TEXT}

## Creating lists

A list is an ordered collection of values. {TEXT}

## Indexing

An index is the position of an element. {TEXT}

## Exercises

Make a list of three numbers.
"""


def lists_docx() -> bytes:
    document = docx.Document()
    document.core_properties.subject = "Ordered collections"
    paragraphs = [
        ("Title", "Lists"),
        ("Normal", TEXT),
        ("Heading 1", "Creating lists"),
        ("Normal", f"A list is an ordered collection of values. {TEXT}"),
        ("Heading 1", "Indexing"),
        ("Normal", f"An index is the position of an element. {TEXT}"),
        ("Heading 1", "Exercises"),
        ("Normal", "Make a list of three numbers."),
    ]
    for style, text in paragraphs:
        document.add_paragraph(text, style=style)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


LISTS_HTML = f"""<html><head><title>Lists</title></head><body><nav>Home</nav><main>
<h1>Lists</h1><p>{TEXT}</p>
<h2>Creating lists</h2><p>A list is an ordered collection of values. {TEXT}</p>
<h2>Indexing</h2><p>An index is the position of an element. {TEXT}</p>
<h2>Exercises</h2><p>Make a list of three numbers.</p></main></body></html>"""


async def test_a_word_file_with_heading_styles_reads_like_its_markdown_version() -> None:
    files, built = await read(
        [
            Upload("md", "lists.md", LISTS_MD.encode()),
            Upload("doc", "lists.docx", lists_docx()),
            Upload("web", "lists.html", LISTS_HTML.encode()),
        ]
    )
    by_file: dict[str, list[tuple[int, list[str], str]]] = {"md": [], "doc": [], "web": []}
    for section in sections_of(built).values():
        by_file[section.file_id].append((section.level, section.heading_path, section.role))
    assert by_file["md"] == by_file["doc"] == by_file["web"]
    assert [s[2] for s in by_file["doc"]] == ["lesson", "lesson", "lesson", "exercises"]
    md_unit, doc_unit, _web_unit = structure_of(built).units
    assert md_unit.title == doc_unit.title == "Lists"
    assert len(md_unit.topic_ids) == len(doc_unit.topic_ids) == 2
    assert files[1].description == "Ordered collections"  # the Word file's subject


def topic(topic_id: str, title: str, terms: list[str]) -> Topic:
    return Topic(topic_id=topic_id, title=title, unit_id="", section_ids=[], key_terms=terms)


def test_a_generic_word_makes_no_prerequisite_but_a_defined_term_does() -> None:
    topics = [
        topic("finding-code", "Finding code", ["code", "grep", "ripgrep"]),
        topic("staging", "The staging area", ["staging area", "index"]),
        topic("data-model", "Git's data model", ["snapshot", "tree", "blob"]),
    ]
    for index, unit in enumerate(["u1", "u2", "u2"]):
        topics[index] = topics[index].model_copy(update={"unit_id": unit})
    texts = [
        "To find code in a project, grep searches files for a pattern; ripgrep is faster.",
        "The staging area is the snapshot Git will record next. You add files to the staging "
        "area with git add.",
        "Git stores your code as a snapshot: a tree of blobs. To find what changed, compare "
        "the snapshot with the staging area before you commit.",
    ]
    found = dict(
        zip([t.topic_id for t in topics], analysis.prerequisites(topics, texts), strict=True)
    )
    assert "finding-code" not in found["data-model"]  # "find" and "code" are generic words
    assert found["data-model"] == ["staging"]  # it uses the term "staging area" defined there


async def test_prerequisites_point_back_unless_the_text_sends_the_reader_forward() -> None:
    _, built = await read(lectures())
    structure = structure_of(built)
    order = [t.topic_id for t in structure.ordered_topics()]
    for each in structure.topics:
        assert all(order.index(p) < order.index(each.topic_id) for p in each.prerequisites)
    awk = next(t for t in structure.topics if t.title == "Columns with awk")
    # "As we saw in the lecture on shell scripting": that unit's first topic.
    assert structure.units[0].topic_ids[0] in awk.prerequisites
    units = [
        Unit(unit_id="u1", title="Basics", topic_ids=["a"]),
        Unit(unit_id="u2", title="Later", topic_ids=["b"]),
    ]
    topics = [topic("a", "Pipes", []), topic("b", "Regular expressions", [])]
    references = analysis.explicit_references(
        topics,
        ["Filters read lines; see Lecture 2 for the patterns grep takes.", "Patterns."],
        units,
    )
    assert references == {"a": ["b"], "b": []}
    assert analysis.with_references(topics, {"a": [], "b": ["a"]}, references) == {
        "a": [],  # a forward reference that would close a cycle is left out
        "b": ["a"],
    }
    assert analysis.with_references(topics, {"a": [], "b": []}, references)["a"] == ["b"]


EPISODE = """---
title: Joining Tables
---

:::::::::::::::::::::::::::::::::::::: questions

- How do I bring data together from separate tables?

::::::::::::::::::::::::::::::::::::::::::::::::

## Joins

A join combines rows of two tables on a column they share, so every survey row can carry
the name of its species. The ON clause names the columns that must be equal, and rows that
find no partner are left out of an inner join, which is why counts can shrink after a join.

:::::::::::::::::::::::::::::::::::::: challenge

## Counting the joined rows

Write a query that counts the surveys of each genus after joining the species table.

::::::::::::::: solution

### Answer with GROUP BY

Grouping the joined rows by genus lets COUNT tally the surveys of each one.

:::::::::::::::

::::::::::::::::::::::::::::::::::::::::::::::::

A left join keeps every row of the first table even when the second has no match, filling
the missing columns with NULL, so no survey disappears from the result.

::: callout

## Aliases

Tables can be given short aliases in the FROM clause, which keeps long joins readable.

:::

## Null values

A NULL marks a missing value: it is neither zero nor an empty string, and any comparison
with it is unknown, so a WHERE clause has to test for it with IS NULL instead of equals.
"""


async def test_a_challenge_div_is_the_units_exercise_and_a_callout_stays_in_its_topic() -> None:
    _, built = await read([Upload("ep", "joins.md", EPISODE.encode())])
    structure = structure_of(built)
    by_id = sections_of(built)
    assert [t.title for t in structure.topics] == ["Joins", "Null values"]
    for topic in structure.topics:
        text = lesson_text(built, topic)
        assert "counts the surveys of each genus" not in text
        assert "lets COUNT tally" not in text
        assert "bring data together" not in text  # the questions box is the unit's
        assert all("genus" not in point for point in topic.key_points)
    joins = structure.topics[0]
    # The text after the challenge and the callout's words are the topic's, in place.
    assert "A left join keeps every row" in lesson_text(built, joins)
    assert "short aliases in the FROM clause" in lesson_text(built, joins)
    (unit,) = structure.units
    exercises = "\n".join(by_id[s].text for s in unit.exercise_section_ids)
    assert "counts the surveys of each genus" in exercises
    assert "lets COUNT tally" in exercises
    assert all(by_id[s].role == "exercises" for s in unit.exercise_section_ids)
    intro = "\n".join(by_id[s].text for s in unit.intro_section_ids)
    assert "bring data together from separate tables" in intro
    # A heading inside a div is never a section heading of the lesson.
    headings = {p for s in by_id.values() for p in s.heading_path}
    assert not {"Counting the joined rows", "Answer with GROUP BY", "Aliases"} & headings


def numbered_pdf() -> bytes:
    """A chapter whose heading lines carry their numbers ("2.1 Reading files") while the
    bookmarks name the sections without them, as pdfTeX writes them."""
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 11)
    pdf.multi_cell(0, 6, "Files", new_x="LMARGIN", new_y="NEXT")
    pdf.start_section("Files", level=0)
    pdf.set_font("Helvetica", "", 11)
    pdf.multi_cell(
        0, 6, "Programs keep their data in files between runs. " * 6, new_x="LMARGIN", new_y="NEXT"
    )
    parts = [
        ("2.1", "Reading files", "The open function returns a file object to read from. " * 8),
        ("2.2", "Writing files", "Opening a file in write mode replaces its content. " * 8),
    ]
    for number, title, body in parts:
        pdf.start_section(title, level=1)
        pdf.set_font("Helvetica", "B", 11)
        pdf.multi_cell(0, 6, f"{number} {title}", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 11)
        pdf.multi_cell(0, 6, body, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def test_numbered_pdf_headings_are_found_where_their_bookmarks_are() -> None:
    outline = read_outline(extract("files.pdf", numbered_pdf()).markdown)
    by_title = {s.heading_path[-1]: s for s in outline.sections if s.level}
    assert list(by_title) == ["Files", "Reading files", "Writing files"]
    assert by_title["Files"].text.startswith("Programs keep their data")
    assert "returns a file object" in by_title["Reading files"].text
    assert "write mode" not in by_title["Reading files"].text
    assert "replaces its content" in by_title["Writing files"].text
    assert "2.1" not in by_title["Writing files"].text  # the number went with its heading


def test_the_pdf_reader_child_does_not_import_the_callers_main_script(tmp_path: Path) -> None:
    """A spawned reader that re-imported the caller's script would pay for all its imports
    (for the `tutorgraph` command, the whole CLI) on every file."""
    marker = tmp_path / "imports.txt"
    script = tmp_path / "caller.py"
    script.write_text(
        "from pathlib import Path\n"
        f"with Path({str(marker)!r}).open('a') as out:\n"
        "    out.write('imported\\n')\n"
        "from tutorgraph.content.extract import extract_isolated\n"
        "if __name__ == '__main__':\n"
        f"    data = Path({str(tmp_path / 'files.pdf')!r}).read_bytes()\n"
        "    print(extract_isolated('files.pdf', data).pages)\n"
    )
    (tmp_path / "files.pdf").write_bytes(numbered_pdf())
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "1"
    assert marker.read_text().splitlines() == ["imported"]  # the caller's run only


async def test_a_lesson_section_with_subheadings_is_one_topic_among_its_siblings() -> None:
    """A Carpentries episode's `##` sections are its topics; their `###` parts stay inside."""
    episode = f"""---
title: Queries
---

## Writing queries

{TEXT}

### Limiting results

A LIMIT clause returns only the first rows of the result. {TEXT}

### Unique values

DISTINCT removes repeated rows from the result. {TEXT}

## Sorting

ORDER BY sorts the rows of the result by one or more columns. {TEXT}
"""
    _, built = await read([Upload("q", "queries.md", episode.encode())])
    topics = structure_of(built).topics
    assert [t.title for t in topics] == ["Writing queries", "Sorting"]
    assert "DISTINCT removes repeated rows" in lesson_text(built, topics[0])
