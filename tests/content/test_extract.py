"""The constructor's file extractors: every fixture is built here (fpdf2, python-docx, zipfile), so
no binary file is committed; the markdown is checked through the chunker that will read it."""

from __future__ import annotations

import base64
import io
import os
import random
import re
import time
import zipfile
from pathlib import Path

import docx
import pytest
from docx.oxml import parse_xml
from docx.shared import Pt
from fpdf import FPDF
from fpdf.enums import XPos, YPos
from PIL import Image

from tutorgraph import offload
from tutorgraph.content.chunking import split_sections
from tutorgraph.content.extract import (
    ExtractedDocument,
    ExtractionError,
    ExtractionLimits,
    Kind,
    extract,
    extract_isolated,
    sniff_kind,
)


def png(colour: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(buffer, "PNG")
    return buffer.getvalue()


def heading_paths(markdown: str) -> list[tuple[str, ...]]:
    return [section.heading_path for section in split_sections(markdown)]


def line(pdf: FPDF, text: str) -> None:
    pdf.cell(text=text, new_x=XPos.LMARGIN, new_y=YPos.NEXT)


def lesson_pdf(*, extra_pages: int = 0, encrypt_for: str | None = None) -> bytes:
    """Two pages: a 24 pt title, 16 pt sections, 11 pt body with a hyphenated break, a Courier
    code line, and a PNG with its "Figure 1" caption below."""
    pdf = FPDF()
    pdf.set_title("Metadata title")
    if encrypt_for is not None:
        pdf.set_encryption(owner_password="owner-secret", user_password=encrypt_for)
    pdf.add_page()
    pdf.set_font("helvetica", size=24)
    line(pdf, "Learning Graphs")
    pdf.set_font("helvetica", size=16)
    line(pdf, "Nodes and edges")
    pdf.set_font("helvetica", size=11)
    line(pdf, "A graph is a collection of nodes joined by edges. For exam-")
    line(pdf, "ple, a road map is a graph of towns.")
    pdf.ln(6)
    line(pdf, "Edges may have a direction.")
    pdf.set_font("courier", size=11)
    line(pdf, "graph = {'a': ['b']}")
    pdf.set_font("helvetica", size=11)
    pdf.image(io.BytesIO(png()), w=20)
    line(pdf, "Figure 1: A graph of two towns")
    pdf.add_page()
    pdf.set_font("helvetica", size=16)
    line(pdf, "Paths")
    pdf.set_font("helvetica", size=11)
    pdf.multi_cell(w=0, text="A path is a sequence of edges that join a sequence of nodes. " * 8)
    for n in range(extra_pages):
        pdf.add_page()
        pdf.multi_cell(w=0, text=f"Filler page {n}. " + "Walks and trails and cycles. " * 80)
    return bytes(pdf.output())


def lesson_docx(*, with_title: bool = True) -> bytes:
    document = docx.Document()
    document.core_properties.title = "Core properties title"
    if with_title:
        document.add_heading("Graph Basics", level=0)  # the Title style
    document.add_heading("Nodes", level=1)
    document.add_paragraph("A node is a point where edges meet.")
    document.add_heading("Degree", level=2)
    document.add_paragraph("count the edges", style="List Bullet")
    document.add_paragraph("loops count twice", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    for row, values in zip(table.rows, [("Node", "Degree"), ("a", "1")], strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    for code in ("def degree(graph, node):", "    return len(graph[node])"):
        run = document.add_paragraph().add_run(code)
        run.font.name = "Courier New"
        run.font.size = Pt(10)
    document.add_picture(io.BytesIO(png()))
    document.add_paragraph("Figure 1: Two nodes and an edge", style="Caption")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


# --- sniffing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "data", "kind"),
    [
        ("notes.md", b"# Graphs\n\nA graph has nodes.\n", "markdown"),
        ("notes.txt", b"Intro\n\nSee [the docs](https://example.org).\n", "markdown"),
        ("notes.txt", b"Just some plain words.\n\nAnother paragraph.\n", "text"),
        ("notes.md", b"Just some plain words.\n\nAnother paragraph.\n", "markdown"),
        ("notes.pdf", b"Just some plain words, not a PDF.\n", "text"),
        ("notes.pdf", b"# A markdown file named .pdf\n\nText.\n", "markdown"),
        ("page.txt", b"<!DOCTYPE html>\n<html><body><p>Hi</p></body></html>", "html"),
        ("page", b"<div>\n<h1>Title</h1>\n<p>Body</p>\n</div>", "html"),
        ("report.bin", b"\xef\xbb\xbf\n  %PDF-1.7\n...", "pdf"),
    ],
)
def test_the_kind_comes_from_the_content(filename: str, data: bytes, kind: Kind) -> None:
    assert sniff_kind(filename, data) == kind


def test_a_word_document_is_recognised_whatever_its_name() -> None:
    assert sniff_kind("upload.zip", lesson_docx()) == "docx"


@pytest.mark.parametrize(
    ("filename", "data", "message"),
    [
        ("empty.md", b"", "empty.md: is empty"),
        ("image.md", png(), "image.md: is not a supported file: upload Markdown, plain text"),
        ("latin1.txt", "Café".encode("latin-1"), "latin1.txt: is not a supported file: upload"),
        ("nul.txt", b"abc\x00def", "nul.txt: is not a supported file"),
    ],
)
def test_unreadable_uploads_are_refused_with_the_filename(
    filename: str, data: bytes, message: str
) -> None:
    with pytest.raises(ExtractionError) as caught:
        extract(filename, data)
    assert caught.value.message.startswith(message)


def test_a_zip_that_is_not_a_word_document_is_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "hello")
    with pytest.raises(ExtractionError, match=r"^notes\.docx: is a ZIP archive but not a Word"):
        extract("notes.docx", buffer.getvalue())


def test_an_upload_over_the_size_limit_is_refused_in_megabytes() -> None:
    data = b"word " * 300_000  # 1.4 MB
    with pytest.raises(ExtractionError) as caught:
        extract("big.txt", data, limits=ExtractionLimits(max_bytes=1024 * 1024))
    assert caught.value.message == "big.txt: is 1.4 MB; the limit is 1.0 MB"


def test_utf16_text_with_a_bom_is_read() -> None:
    data = "Café notes\n\nÜber graphs and nodes.\n".encode("utf-16")
    document = extract("notes.txt", data)
    assert document.kind == "text"
    assert "Über graphs and nodes." in document.markdown
    assert document.title == "notes"  # no heading, no metadata: the file stem


# --- markdown and text ------------------------------------------------------------------------


def test_markdown_is_kept_and_data_images_become_image_entries() -> None:
    uri = "data:image/png;base64," + base64.b64encode(png()).decode()
    source = (
        "\ufeff---\r\ntitle: Front matter title\r\nteaching: 5\r\n---\r\n"
        "Graph walks\r\n===========\r\n\r\nA *walk* visits nodes.\r\n\r\n"
        f"![A small graph]({uri})\r\n\r\n![Remote](https://example.org/g.png)\r\n\r\n"
        "```python\r\n# not a heading\r\nwalk(graph)\r\n```\r\n"
    )
    document = extract("walks.md", source.encode())
    assert document.kind == "markdown"
    assert document.title == "Graph walks"
    assert "title:" not in document.markdown and "\r" not in document.markdown
    assert heading_paths(document.markdown)[0] == ("Graph walks",)
    assert "```python\n# not a heading\nwalk(graph)\n```" in document.markdown
    [image] = document.images
    assert (image.caption, image.media_type, image.data) == ("A small graph", "image/png", png())
    assert f"![A small graph]({image.name})" in document.markdown
    assert "base64" not in document.markdown
    assert "![Remote](https://example.org/g.png)" in document.markdown
    assert document.words == len(document.markdown.split())
    assert document.pages == 1


def test_markdown_title_falls_back_to_front_matter() -> None:
    document = extract("l.md", b"---\ntitle: 'Graph theory'\n---\n## Only a section\n\nText.\n")
    assert document.title == "Graph theory"


def test_plain_text_gets_headings_and_code_fences() -> None:
    source = (
        "Shortest paths\n==============\n\n"
        "Dijkstra's algorithm finds shortest paths\nfrom one node.\n\n"
        "THE ALGORITHM\n\n"
        "Keep a queue of nodes:\n\n"
        "    queue = [start]\n\tvisit(queue)\n\n"
        "• pop the nearest node\n• relax its edges\n"
    )
    document = extract("paths.txt", source.encode())
    assert document.kind == "text"
    assert document.title == "Shortest paths"
    assert heading_paths(document.markdown) == [
        ("Shortest paths",),
        ("Shortest paths", "THE ALGORITHM"),
    ]
    assert "Dijkstra's algorithm finds shortest paths\nfrom one node." in document.markdown
    assert "```\nqueue = [start]\nvisit(queue)\n```" in document.markdown
    assert "- pop the nearest node\n- relax its edges" in document.markdown


def test_long_text_counts_pages_by_words() -> None:
    document = extract("long.txt", ("word " * 1200).encode())
    assert (document.words, document.pages) == (1200, 3)


# --- HTML ---------------------------------------------------------------------------------------


def test_html_keeps_content_and_drops_the_page_chrome() -> None:
    uri = "data:image/png;base64," + base64.b64encode(png()).decode()
    page = f"""<!DOCTYPE html>
<html><head><title>Site | Graphs</title><style>p {{ color: red }}</style>
<script>var tracking = "script text";</script></head>
<body>
<header><a href="/">Site name</a></header>
<nav><ul><li><a href="/menu">Menu item</a></li></ul></nav>
<main>
<h1>Graphs in HTML</h1>
<p>A graph has <strong>nodes</strong> and snake_case_names.</p>
<h2>Code</h2>
<pre><code class="language-python">def degree(node):
    return len(node)
</code></pre>
<figure><img src="{uri}" alt="alt text"><figcaption>Figure 2: A node</figcaption></figure>
<p><img src="https://example.org/remote.png" alt="A remote picture"></p>
</main>
<footer>Copyright footer</footer>
</body></html>"""
    document = extract("graphs.html", page.encode())
    assert document.kind == "html"
    assert document.title == "Graphs in HTML"
    for chrome in ("script text", "color: red", "Menu item", "Site name", "Copyright footer"):
        assert chrome not in document.markdown
    assert heading_paths(document.markdown)[:2] == [
        ("Graphs in HTML",),
        ("Graphs in HTML", "Code"),
    ]
    assert "snake_case_names" in document.markdown
    assert "```python\ndef degree(node):\n    return len(node)\n```" in document.markdown
    [image] = document.images
    assert (image.caption, image.data) == ("Figure 2: A node", png())
    assert f"]({image.name})" in document.markdown
    assert "![A remote picture](https://example.org/remote.png)" in document.markdown


# --- PDF ----------------------------------------------------------------------------------------


def test_pdf_headings_paragraphs_code_and_figures() -> None:
    document = extract("graphs.pdf", lesson_pdf())
    assert (document.kind, document.pages, document.title) == ("pdf", 2, "Learning Graphs")
    assert heading_paths(document.markdown) == [
        ("Learning Graphs", "Nodes and edges"),
        ("Learning Graphs", "Paths"),
    ]
    assert "# Learning Graphs\n\n## Nodes and edges\n" in document.markdown
    assert (
        "A graph is a collection of nodes joined by edges. For example, a road map is a graph "
        "of towns.\n\nEdges may have a direction." in document.markdown
    )
    assert "```\ngraph = {'a': ['b']}\n```" in document.markdown
    [image] = document.images
    assert image.name == "page1-img1.png" and image.media_type == "image/png"
    assert (image.caption, image.location) == ("Figure 1: A graph of two towns", "page 1")
    assert Image.open(io.BytesIO(image.data)).size == (8, 8)
    assert "![Figure 1: A graph of two towns](page1-img1.png)" in document.markdown
    assert document.warnings == []


def test_pdf_without_a_heading_takes_its_metadata_title() -> None:
    pdf = FPDF()
    pdf.set_title("Notes on trees")
    pdf.add_page()
    pdf.set_font("helvetica", size=11)
    line(pdf, "A tree is a connected graph without cycles.")
    document = extract("trees.pdf", bytes(pdf.output()))
    assert document.title == "Notes on trees"
    assert document.markdown == "A tree is a connected graph without cycles.\n"


def test_a_pdf_page_without_text_is_a_warning() -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.image(io.BytesIO(png()), w=50)
    pdf.add_page()
    pdf.set_font("helvetica", size=11)
    line(pdf, "Only the second page has text.")
    document = extract("scan.pdf", bytes(pdf.output()))
    assert document.warnings == ["page 1 has no extractable text (scanned?)"]
    assert [image.location for image in document.images] == ["page 1"]


LESSON_PDF = lesson_pdf()


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"%PDF-1.4\n garbage", "could not be read as a PDF: "),
        (LESSON_PDF[: len(LESSON_PDF) // 2], "could not be read as a PDF: "),
        (lesson_pdf(encrypt_for="user-secret"), "is password-protected"),
    ],
    ids=["malformed", "truncated", "encrypted"],
)
def test_unreadable_pdfs_are_an_extraction_error(data: bytes, reason: str) -> None:
    with pytest.raises(ExtractionError) as caught:
        extract("notes.pdf", data)
    assert caught.value.message.startswith(f"notes.pdf: {reason}")
    assert "Traceback" not in caught.value.message


def test_a_pdf_with_only_an_owner_password_opens() -> None:
    document = extract("notes.pdf", lesson_pdf(encrypt_for=""))
    assert document.title == "Learning Graphs"


def test_pdf_page_and_image_limits() -> None:
    with pytest.raises(ExtractionError, match=r"^notes\.pdf: has 2 pages; the limit is 1$"):
        extract("notes.pdf", lesson_pdf(), limits=ExtractionLimits(max_pages=1))
    document = extract("notes.pdf", lesson_pdf(), limits=ExtractionLimits(max_image_bytes=10))
    assert document.images == []
    [warning] = document.warnings
    assert re.fullmatch(
        r"image page1-img1\.png skipped: too large \(\d+ bytes > 10 bytes\)", warning
    )
    assert "](page1-img1.png)" not in document.markdown


# --- DOCX ---------------------------------------------------------------------------------------


def test_docx_structure_becomes_markdown() -> None:
    document = extract("graphs.docx", lesson_docx())
    assert (document.kind, document.title) == ("docx", "Graph Basics")
    assert heading_paths(document.markdown) == [
        ("Graph Basics", "Nodes"),
        ("Graph Basics", "Nodes", "Degree"),
    ]
    assert "- count the edges\n- loops count twice" in document.markdown
    assert "| Node | Degree |\n| --- | --- |\n| a | 1 |" in document.markdown
    assert "```\ndef degree(graph, node):\n    return len(graph[node])\n```" in document.markdown
    [image] = document.images
    assert (image.name, image.media_type, image.data) == ("image1.png", "image/png", png())
    assert image.caption == "Figure 1: Two nodes and an edge"
    assert "![Figure 1: Two nodes and an edge](image1.png)" in document.markdown


def test_docx_without_a_title_style_uses_heading_levels_and_core_properties() -> None:
    document = extract("graphs.docx", lesson_docx(with_title=False))
    assert "# Nodes\n" in document.markdown and "## Degree\n" in document.markdown
    assert document.title == "Nodes"
    bare = docx.Document()
    bare.core_properties.title = "Core properties title"
    bare.add_heading("A section", level=2)
    bare.add_paragraph("Text.")
    buffer = io.BytesIO()
    bare.save(buffer)
    assert extract("bare.docx", buffer.getvalue()).title == "Core properties title"


def test_docx_image_limit_and_dropped_equations_are_warnings() -> None:
    document = docx.Document()
    for n in range(3):
        document.add_picture(io.BytesIO(png((60 * n, 20, 30))))
        document.add_paragraph(f"Figure {n + 1}: colour {n}", style="Caption")
    equation = document.add_paragraph("Euler: ")
    equation._p.append(
        parse_xml(
            '<m:oMath xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math">'
            "<m:r><m:t>V - E + F = 2</m:t></m:r></m:oMath>"
        )
    )
    buffer = io.BytesIO()
    document.save(buffer)
    extracted = extract("figures.docx", buffer.getvalue(), limits=ExtractionLimits(max_images=2))
    assert [image.caption for image in extracted.images] == [
        "Figure 1: colour 0",
        "Figure 2: colour 1",
    ]
    assert "V - E" not in extracted.markdown
    assert extracted.warnings == [
        "more than 2 images: the rest were skipped",
        "equations dropped (not converted to text): 1",
    ]


def zip_with_document(extra: dict[str, int]) -> bytes:
    """A minimal Word-shaped zip plus members of `size` zero bytes, written in 1 MB chunks."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", "<w:document/>")
        for name, size in extra.items():
            with archive.open(name, "w", force_zip64=True) as member:
                chunk = bytes(1024 * 1024)
                for _ in range(size // len(chunk)):
                    member.write(chunk)
    return buffer.getvalue()


def test_a_zip_bomb_is_refused_before_it_is_opened() -> None:
    started = time.monotonic()
    bomb = zip_with_document({"word/media/zeros.bin": 200 * 1024 * 1024})
    assert len(bomb) < 1024 * 1024  # 200 MB of zeros compress to a few hundred KB
    with pytest.raises(ExtractionError, match=r"^bomb\.docx: looks like a ZIP bomb"):
        extract("bomb.docx", bomb)
    assert time.monotonic() - started < 30  # nothing was decompressed


def test_one_member_compressed_too_well_is_a_zip_bomb() -> None:
    bomb = zip_with_document({"word/media/zeros.bin": 2 * 1024 * 1024})
    with pytest.raises(ExtractionError, match=r"zeros\.bin expands \d+ times"):
        extract("small-bomb.docx", bomb)


def test_damaged_word_documents_are_an_extraction_error() -> None:
    garbage = b"PK\x03\x04" + random.Random(7).randbytes(4000)
    with pytest.raises(ExtractionError, match=r"^broken\.docx: is a damaged ZIP archive"):
        extract("broken.docx", garbage)
    with pytest.raises(ExtractionError, match=r"^odd\.docx: could not be read as a Word document"):
        extract("odd.docx", zip_with_document({}))


# --- in a separate process ----------------------------------------------------------------------


def test_extract_isolated_returns_what_extract_returns() -> None:
    data = b"# Trees\n\nA tree has no cycles.\n"
    isolated = extract_isolated("trees.md", data)
    assert isinstance(isolated, ExtractedDocument)
    assert isolated == extract("trees.md", data)


def test_extract_isolated_reports_the_childs_extraction_error() -> None:
    with pytest.raises(ExtractionError) as isolated:
        extract_isolated("notes.pdf", b"%PDF-1.4\n garbage")
    with pytest.raises(ExtractionError) as direct:
        extract("notes.pdf", b"%PDF-1.4\n garbage")
    assert isolated.value.message == direct.value.message


def our_children() -> dict[int, str]:
    """This process's children and their states from /proc ("Z" is a zombie), without the
    resource tracker that the spawn context keeps running."""
    children: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, parent = stat.read_text().rsplit(")", 1)[1].split()[:2]
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue  # the process ended while we looked
        if int(parent) == os.getpid() and b"resource_tracker" not in command:
            children[int(stat.parent.name)] = state
    return children


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_extract_isolated_kills_a_reader_that_outlives_its_deadline() -> None:
    """The deadline covers the whole read, start-up included: 50 ms is far less than a spawned
    interpreter needs to import pypdf and read 32 pages (about 0.6 s), so the child is still
    working when the parent gives up; it must be killed and reaped, not left behind."""
    data = lesson_pdf(extra_pages=30)
    before = our_children()
    started = time.monotonic()
    with pytest.raises(ExtractionError) as caught:
        extract_isolated("slow.pdf", data, limits=ExtractionLimits(timeout_seconds=0.05))
    assert time.monotonic() - started < 10
    assert caught.value.message == (
        "slow.pdf: took longer than 0.05 s to read; it may be damaged or too complex"
    )
    assert our_children() == before  # none left running, none left a zombie


def test_extract_isolated_refuses_a_file_that_needs_more_memory_than_allowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reader process has an address-space limit (`limits.extraction_memory_mb`): a file
    that needs more is refused with the reason, while a small one still reads under it."""
    monkeypatch.setattr(offload, "_config", offload.ProcessLimits(extraction_memory_mb=100))
    small = extract_isolated("trees.md", b"# Trees\n\nA tree has no cycles.\n")
    assert small.title == "Trees"
    with pytest.raises(ExtractionError) as caught:
        extract_isolated("big.md", b"# Big\n\n" + b"many words in a line\n" * 750_000)
    assert caught.value.message == "big.md: needs more than 100 MB of memory to read"
