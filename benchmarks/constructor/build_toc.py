#!/usr/bin/env python3
"""Regenerate toc.json for the Software Carpentry "Programming with Python"
(python-novice-inflammation) benchmark set.

Usage: python3 build_toc.py BOOK_DIR [--stats]   (default BOOK_DIR: the current folder)

Inputs (all in BOOK_DIR, copied byte-for-byte from upstream):
  upstream-index.yaml   the lesson's config.yaml; its `title:` and the
                        ordered `episodes:` list are the book's own index
  sources/NN-*.md       the episodes; each has YAML front matter with `title:`

Output:
  toc.json              {"title", "chapters": [{"file", "title", "sections",
                         "subsections", "callouts", "exercises",
                         "teaching_minutes", "exercise_minutes", "words",
                         "code_words", "prose_words", "exercise_words"}]}
  (exercise_words = words, code included, inside `challenge` divs, which
   contain their `solution` divs)

Rules (see SOURCE.md):
  * chapter title  = the episode's front-matter `title:`.
  * sections       = `## ` headings that sit in the main text, i.e. not inside
                     a `:::: <kind>` fenced div and not inside a ``` code block,
                     minus the boilerplate names in EXCLUDED_HEADINGS.
  * subsections    = `### ` headings in the main text (same rule; few).
  * callouts       = the `## ` headings of `callout` divs (side notes that
                     teach something; listed separately, not in `sections`).
  * exercises      = the `## ` titles of `challenge` divs (not topics).
  * Headings in objectives / questions / keypoints / solution / instructor /
    prereq divs are never listed.

Standard library only; deterministic output (sorted keys are not used, the
order is the book order). Run:  python3 build_toc.py [--stats]
"""

import json
import re
import sys
from pathlib import Path

HERE = (
    Path(sys.argv[1]).resolve()
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-")
    else Path.cwd()
)
BOOK_TITLE_FALLBACK = "Programming with Python"

# Heading names that are boilerplate in every episode, never topics.
EXCLUDED_HEADINGS = {
    "key points",
    "keypoints",
    "exercises",
    "exercise",
    "challenge",
    "challenges",
    "solution",
    "solutions",
    "hint",
    "overview",
    "questions",
    "objectives",
    "references",
    "summary",
    "discussion",
    "prerequisites",
    "episode prerequisites",
}
# Fenced-div kinds whose headings are never sections.
NON_TOPIC_DIVS = {
    "objectives",
    "questions",
    "keypoints",
    "challenge",
    "solution",
    "instructor",
    "prereq",
    "discussion",
    "checklist",
    "testimonial",
    "spoiler",
    "caution",
}

DIV_RE = re.compile(r"^(:{3,})\s*([A-Za-z][\w-]*)?\s*$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")
H2_RE = re.compile(r"^##\s+(.+?)\s*#*\s*$")
H3_RE = re.compile(r"^###\s+(.+?)\s*#*\s*$")


def read_index(path):
    """Minimal reader for the two keys we need from config.yaml."""
    title, episodes, in_eps = None, [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^title:\s*(.+?)\s*$", line)
        if m and title is None:
            title = m.group(1).strip("'\"")
        if re.match(r"^episodes:\s*$", line):
            in_eps = True
            continue
        if in_eps:
            m = re.match(r"^\s*-\s*(\S+)\s*$", line)
            if m:
                episodes.append(m.group(1).strip("'\""))
            elif line.strip() and not line.startswith("#"):
                in_eps = False
    return title or BOOK_TITLE_FALLBACK, episodes


def split_front_matter(text):
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end != -1:
            return text[4:end], text[end + 5 :]
    return "", text


def front_matter_title(fm):
    for line in fm.splitlines():
        m = re.match(r"^title:\s*(.+?)\s*$", line)
        if m:
            return m.group(1).strip("'\"")
    return None


def front_matter_int(fm, key):
    for line in fm.splitlines():
        m = re.match(rf"^{re.escape(key)}:\s*(\d+)\s*$", line)
        if m:
            return int(m.group(1))
    return None


def parse_episode(text):
    fm, body = split_front_matter(text)
    sections, subsections, callouts, exercises = [], [], [], []
    stack = []  # open fenced-div kinds
    in_code = False
    code_words = prose_words = exercise_words = 0
    div_has_heading = []  # whether current div already produced its title
    for line in body.splitlines():
        if FENCE_RE.match(line):
            in_code = not in_code
            continue
        if in_code:
            code_words += len(line.split())
            if "challenge" in stack:
                exercise_words += len(line.split())
            continue
        m = DIV_RE.match(line)
        if m:
            if m.group(2):
                stack.append(m.group(2).lower())
                div_has_heading.append(False)
            elif stack:
                stack.pop()
                div_has_heading.pop()
            continue
        prose_words += len(line.split())
        if "challenge" in stack:
            exercise_words += len(line.split())
        h3 = H3_RE.match(line)
        if h3 and not stack:
            subsections.append(h3.group(1).strip())
            continue
        h = H2_RE.match(line)
        if not h:
            continue
        name = h.group(1).strip()
        if not stack:
            if name.lower() not in EXCLUDED_HEADINGS:
                sections.append(name)
            continue
        kind = stack[-1]
        if div_has_heading[-1]:
            continue
        div_has_heading[-1] = True
        if kind == "callout":
            callouts.append(name)
        elif kind == "challenge":
            exercises.append(name)
    return {
        "title": front_matter_title(fm),
        "teaching_minutes": front_matter_int(fm, "teaching"),
        "exercise_minutes": front_matter_int(fm, "exercises"),
        "sections": sections,
        "subsections": subsections,
        "callouts": callouts,
        "exercises": exercises,
        "words": len(text.split()),
        "code_words": code_words,
        "prose_words": prose_words,
        "exercise_words": exercise_words,
    }


def main():
    book_title, episodes = read_index(HERE / "upstream-index.yaml")
    chapters = []
    for ep in episodes:
        src = HERE / "sources" / ep
        info = parse_episode(src.read_text(encoding="utf-8"))
        chapters.append({"file": f"sources/{ep}", **info})
    # sanity: every source file is in the index and vice versa
    on_disk = sorted(p.name for p in (HERE / "sources").glob("*.md"))
    assert on_disk == sorted(episodes) == episodes, (on_disk, episodes)
    toc = {
        "title": book_title,
        "source": "https://github.com/swcarpentry/python-novice-inflammation",
        "commit": "2b3613a57d9704c71a959ed9978aab84e0282ea6",
        "license": "CC-BY-4.0",
        "section_rule": "'## ' headings outside fenced divs and code blocks; "
        "callout/challenge titles listed separately",
        "excluded_headings": sorted(EXCLUDED_HEADINGS),
        "chapters": chapters,
    }
    (HERE / "toc.json").write_text(
        json.dumps(toc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    if "--stats" in sys.argv:
        tot = {"words": 0, "code_words": 0, "prose_words": 0, "exercise_words": 0}
        print(
            f"{'file':28} {'words':>6} {'prose':>6} {'code':>6} code% exer% "
            f"{'sec':>3} {'call':>4} {'exer':>4}"
        )
        for c in chapters:
            for k in tot:
                tot[k] += c[k]
            print(
                f"{c['file']:28} {c['words']:6} {c['prose_words']:6} "
                f"{c['code_words']:6} {100 * c['code_words'] / c['words']:4.0f}% "
                f"{100 * c['exercise_words'] / c['words']:4.0f}% "
                f"{len(c['sections']):3} {len(c['callouts']):4} "
                f"{len(c['exercises']):4}"
            )
        print(
            f"{'TOTAL':28} {tot['words']:6} {tot['prose_words']:6} "
            f"{tot['code_words']:6} "
            f"{100 * tot['code_words'] / tot['words']:4.0f}% "
            f"{100 * tot['exercise_words'] / tot['words']:4.0f}% "
            f"{sum(len(c['sections']) for c in chapters):3} "
            f"{sum(len(c['callouts']) for c in chapters):4} "
            f"{sum(len(c['exercises']) for c in chapters):4}"
        )


if __name__ == "__main__":
    main()
