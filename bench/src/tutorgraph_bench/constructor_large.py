"""`tutorgraph bench constructor --large`: build time and peak memory for a long PDF.

The PDF is generated with fpdf2 from the benchmark sources' own text (their Markdown and HTML,
reused in turn until the page count is reached): every section heading is a bookmark (chapter
level 0, section level 1) set in a larger bold font, body text in 11 pt, code blocks in
Courier. It is generated, not a real book: it measures speed and memory, not quality.

The build runs in a child process (`python -m tutorgraph_bench.constructor_large PDF`), which
prints its build seconds as JSON; peak memory is the largest resident set of the child and its
own children (the PDF reader's isolated workers), read with
`resource.getrusage(RUSAGE_CHILDREN).ru_maxrss` after the child exits: the largest single
process, not their sum. Targets: under 2 minutes and under 1 GB on this machine.
"""

from __future__ import annotations

import asyncio
import json
import re
import resource
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

TARGET_SECONDS = 120.0
TARGET_MB = 1024.0
PAGES = 300
_FRONT_MATTER = re.compile(r"\A---\s*\n.*?\n---\s*\n", re.DOTALL)


@dataclass(frozen=True)
class Block:
    kind: str  # "h1", "h2", "text", "code"
    text: str


def markdown_blocks(text: str) -> Iterator[Block]:
    """Headings, paragraphs and fenced code of a Markdown file (divs' fence lines dropped)."""
    body = _FRONT_MATTER.sub("", text)
    code: list[str] | None = None
    paragraph: list[str] = []
    for line in body.splitlines():
        if code is not None:
            if line.startswith("```"):
                yield Block("code", "\n".join(code))
                code = None
            else:
                code.append(line)
            continue
        if line.startswith("```"):
            code = []
        elif line.startswith(":::"):
            continue
        elif match := re.match(r"(#{1,3})\s+(.*)", line):
            if paragraph:
                yield Block("text", " ".join(paragraph))
                paragraph = []
            yield Block("h1" if len(match.group(1)) == 1 else "h2", match.group(2))
        elif line.strip():
            paragraph.append(line.strip())
        elif paragraph:
            yield Block("text", " ".join(paragraph))
            paragraph = []
    if paragraph:
        yield Block("text", " ".join(paragraph))


class _HtmlBlocks(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[Block] = []
        self._tag = ""
        self._text: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in {"script", "style", "title"}:
            self._skip += 1
        elif tag in {"h1", "h2", "h3", "p", "pre"}:
            self._flush()
            self._tag = tag

    def handle_endtag(self, tag: str) -> None:
        if tag in {"script", "style", "title"}:
            self._skip = max(0, self._skip - 1)
        elif tag == self._tag:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self._skip and self._tag:
            self._text.append(data)

    def _flush(self) -> None:
        text = "".join(self._text)
        if text.strip() and self._tag:
            kind = {"h1": "h1", "h2": "h2", "h3": "h2", "pre": "code"}.get(self._tag, "text")
            self.blocks.append(Block(kind, text if kind == "code" else " ".join(text.split())))
        self._text, self._tag = [], ""


def html_blocks(text: str) -> list[Block]:
    parser = _HtmlBlocks()
    parser.feed(text)
    parser.close()
    return parser.blocks


def source_blocks(files: Sequence[Path]) -> list[list[Block]]:
    """Each text file's blocks, a chapter each (PDF sources are skipped)."""
    chapters = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix == ".md":
            blocks = list(markdown_blocks(text))
        elif path.suffix in {".html", ".htm"}:
            blocks = html_blocks(text)
        else:
            continue
        if blocks:
            chapters.append(blocks)
    return chapters


def _latin1(text: str) -> str:
    """fpdf2's core fonts are Latin-1: replace what they cannot show."""
    replaced = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"')
    replaced = replaced.replace("\u201d", '"').replace("\u2013", "-").replace("\u2014", "-")
    return replaced.encode("latin-1", "replace").decode("latin-1")


def write_pdf(path: Path, chapters: Sequence[Sequence[Block]], pages: int) -> int:
    """Write a PDF of at least `pages` pages from the chapters (repeated, renumbered); returns
    the page count."""
    from fpdf import FPDF

    if not chapters:
        raise ValueError("no text to write")
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(True, margin=15)
    pdf.set_title("Benchmark book: generated from the constructor benchmark's sources")
    round_number = 0
    while pdf.page_no() < pages:
        round_number += 1
        for number, blocks in enumerate(chapters, start=1):
            if pdf.page_no() >= pages:
                break
            _write_chapter(pdf, f"Part {round_number}.{number}", blocks)
    pdf.output(str(path))
    return int(pdf.page_no())


def _write_chapter(pdf: object, label: str, blocks: Sequence[Block]) -> None:
    from fpdf import FPDF

    assert isinstance(pdf, FPDF)
    pdf.add_page()
    chapter_title = next((b.text for b in blocks if b.kind == "h1"), label)
    pdf.start_section(_latin1(f"{label} {chapter_title}"), level=0)
    pdf.set_font("Helvetica", "B", 20)
    pdf.multi_cell(0, 10, _latin1(f"{label} {chapter_title}"), new_x="LMARGIN", new_y="NEXT")
    for block in blocks:
        if block.kind == "h1":
            continue
        if block.kind == "h2":
            pdf.start_section(_latin1(block.text)[:120], level=1)
            pdf.set_font("Helvetica", "B", 15)
            pdf.multi_cell(0, 8, _latin1(block.text), new_x="LMARGIN", new_y="NEXT")
        elif block.kind == "code":
            pdf.set_font("Courier", "", 9)
            for line in block.text.splitlines() or [""]:
                pdf.multi_cell(0, 4.5, _latin1(line[:110]) or " ", new_x="LMARGIN", new_y="NEXT")
        else:
            pdf.set_font("Helvetica", "", 11)
            pdf.multi_cell(0, 5.5, _latin1(block.text), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)


@dataclass(frozen=True)
class LargeRun:
    pages: int
    megabytes_file: float
    build_seconds: float
    wall_seconds: float
    peak_mb: float
    topics: int
    items: int
    error: str = ""

    @property
    def meets(self) -> bool:
        return not self.error and self.build_seconds < TARGET_SECONDS and self.peak_mb < TARGET_MB


def run_large(pdf: Path) -> LargeRun:
    """Build from the PDF in a child process; its seconds and the peak resident memory."""
    from pypdf import PdfReader

    pages = len(PdfReader(pdf).pages)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "tutorgraph_bench.constructor_large", str(pdf)],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    try:
        result = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return LargeRun(pages, pdf.stat().st_size / 1e6, 0.0, wall, peak_mb, 0, 0, tail[:300])
    return LargeRun(
        pages,
        pdf.stat().st_size / 1e6,
        float(result["seconds"]),
        wall,
        peak_mb,
        int(result["topics"]),
        int(result["items"]),
        str(result.get("error", "")),
    )


def markdown(run: LargeRun, command: str) -> str:
    verdict = "meets" if run.meets else "misses"
    return "\n".join(
        [
            f"`{command}`: a {run.pages}-page PDF ({run.megabytes_file:.1f} MB) generated with "
            "fpdf2 from the sources' text, bookmarks on every heading.",
            "",
            "| measure | value | target |",
            "|---|---|---|",
            f"| build time (read, structure, quiz bank, validation) | {run.build_seconds:.1f} s | "
            f"< {TARGET_SECONDS:.0f} s |",
            f"| wall time with process start | {run.wall_seconds:.1f} s | |",
            f"| peak memory (largest process, ru_maxrss) | {run.peak_mb:.0f} MB | "
            f"< {TARGET_MB:.0f} MB |",
            f"| topics / items | {run.topics} / {run.items} | |",
            "",
            f"It {verdict} the targets" + (f" (error: {run.error})" if run.error else "") + ".",
        ]
    )


async def _child_build(pdf: Path) -> dict[str, object]:
    from tutorgraph.constructor.build import build_course, uploads_from
    from tutorgraph.content.extract import ExtractionLimits
    from tutorgraph.engines import offline_engine

    uploads = uploads_from([pdf], ExtractionLimits())
    started = time.perf_counter()
    state = await build_course(uploads, model=offline_engine())
    seconds = time.perf_counter() - started
    structure, bank = state.get("structure"), state.get("quiz_bank")
    return {
        "seconds": seconds,
        "topics": len(structure.topics) if structure else 0,
        "items": len(bank.kept()) if bank else 0,
    }


def main(argv: Sequence[str]) -> None:
    result = asyncio.run(_child_build(Path(argv[0])))
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
