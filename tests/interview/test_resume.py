"""Resumes written by someone who never saw the parser (benchmarks/interview/resumes): every one
yields its projects, jobs, skills and education as anchors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tutorgraph.interview.resume import anchors, parse_resume

RESUMES = sorted((Path(__file__).parents[2] / "benchmarks" / "interview" / "resumes").iterdir())


@pytest.mark.parametrize("path", RESUMES, ids=[p.name for p in RESUMES])
def test_each_independent_resume_yields_anchors(path: Path) -> None:
    resume = parse_resume(path.read_text(encoding="utf-8"))
    found = anchors(resume)
    kinds = {a.type for a in found}
    assert resume["name"] and resume["skills"], resume
    assert {"skill", "education"} <= kinds
    assert kinds & {"project", "experience"}
    for anchor in found:
        assert 2 <= len(anchor.label) <= 120 and "\n" not in anchor.label


def test_three_projects_three_anchors_and_dates_left_out_of_names() -> None:
    text = (RESUMES[2]).read_text(encoding="utf-8")  # the ML engineer: three projects
    resume = parse_resume(text)
    assert len(resume["projects"]) == 3
    assert all(not any(ch.isdigit() for ch in j["title"][-4:]) for j in resume["experience"])


def test_plain_text_sections_with_caps_headings() -> None:
    resume = parse_resume(
        "SAM LEE\nsam@example.com\n\nEXPERIENCE\nData Analyst, Foo Ltd  2019-2022\n"
        "- Built dashboards in SQL and Tableau for 40 managers.\n\nSKILLS\nSQL; Python; Tableau\n\n"
        "EDUCATION\nBA Economics, 2018\n"
    )
    assert resume["name"] == "SAM LEE"
    assert [j["title"] for j in resume["experience"]] == ["Data Analyst, Foo Ltd"]
    assert resume["skills"] == ["SQL", "Python", "Tableau"]
    assert resume["education"] == ["BA Economics"]


def test_a_pdf_resume_keeps_its_lines() -> None:
    from fpdf import FPDF

    from tests.interview.resumes import RESUME
    from tutorgraph.content.extract import ExtractionLimits, extract

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)  # one size throughout: no headings to find by size
    for line in RESUME.replace("**", "").replace("#", "").splitlines():
        pdf.multi_cell(0, 5, line or " ", new_x="LMARGIN", new_y="NEXT")
    data = bytes(pdf.output())
    document = extract("cv.pdf", data, limits=ExtractionLimits(keep_lines=True))
    resume = parse_resume(document.markdown)
    assert [p["name"] for p in resume["projects"]] == ["Route planner", "Log search", "Churn model"]
    assert [j["title"] for j in resume["experience"]] == [
        "Senior Backend Engineer, Lumen Analytics",
        "Software Engineer, Northwind Retail",
    ]
    assert "FastAPI" in resume["skills"]


def test_headings_below_a_section_are_entries_and_setext_underlines_are_not() -> None:
    resume = parse_resume(
        "Marta Kowalski\n==============\n\nEXPERIENCE\n----------\n\n"
        "**Backend Engineer, TicketHive** — Sep 2018 – Mar 2021\n\n- Built REST APIs.\n\n"
        "## Projects\n\n### Sign Language Classifier\n*PyTorch, MediaPipe* · Fall 2024\n"
        "- 94% test accuracy.\n\n### Full-Stack Booking Tool\n- Django and React.\n\n"
        "## Skills\nPython, Django\n"
    )
    assert resume["name"] == "Marta Kowalski"
    assert [j["title"] for j in resume["experience"]] == ["Backend Engineer, TicketHive"]
    # "Language" and "Stack" would name sections; under "## Projects" they name projects.
    assert [p["name"] for p in resume["projects"]] == [
        "Sign Language Classifier",
        "Full-Stack Booking Tool",
    ]
    assert resume["projects"][0]["text"].startswith("PyTorch, MediaPipe")  # a detail, not the name
    assert resume["skills"] == ["Python", "Django"]
