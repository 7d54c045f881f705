"""A resume, read into sections and normalised into the anchors the interview explores.

Files (PDF, DOCX, Markdown, text) go through the same extraction as course uploads
(`content.extract`: type sniffed from the bytes, sizes bounded, parsed in a killable child
process); pasted text is used as is. The text is then split into sections by its headings —
Markdown `#` headings, ALL-CAPS lines, or short lines ending in a colon — recognised by their
words ("Experience", "Work history", "Selected projects", "Skills & Tools", "Education"...).
Within a section, a line that is not a bullet starts an entry (a job, a project) and the bullets
below it are its text.

What it cannot do: read a two-column PDF whose columns interleave, or find sections that have no
heading at all; the learner sees the anchors it found before the interview starts."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from tutorgraph.interview.state import AnchorType, ResumeExploration, ResumeStructured

MAX_RESUME_CHARS = 50_000
MAX_PROJECTS = 4
MAX_JOBS = 4
MAX_SKILL_ANCHORS = 3

SECTION_WORDS: dict[str, tuple[str, ...]] = {
    "experience": ("experience", "employment", "work history", "career", "positions"),
    "projects": ("project", "publication", "research", "portfolio"),
    "skills": ("skill", "tools", "technolog", "stack", "competenc", "proficienc"),
    "education": ("education", "academic", "degree", "qualification", "studies"),
    "summary": ("summary", "profile", "about", "objective"),
}
_OTHER = ("certification", "language", "interest", "hobbies", "award", "reference", "volunteer")
_BULLET = re.compile(r"^\s*(?:[-*•▪◦‣+]|\d+[.)])\s+")
_HEADING_MD = re.compile(r"^\s*#{1,6}\s+(.+?)\s*#*\s*$")
_DATES = re.compile(
    r"\s*[(|,–—-]*\s*(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+)?"
    r"(?:19|20)\d\d\b.*$",
    re.IGNORECASE,
)
_INLINE_SECTION = re.compile(r"^\s*[*_]*([A-Za-z &/]{3,30}?)[*_]*\s*:[*_]*\s+(\S.*)$")
_RULE = re.compile(r"^\s*(?:[=_*]{3,}|-{3,})\s*$")
_NAMED_ITEM = re.compile(r"^(.{2,60}?)(?:\s+[-–—|]\s+|:\s+)(.+)$")
_SKILL_SPLIT = re.compile(r"\s*(?:[,;|·•/]|\band\b)\s*")

# Skills the knowledge base has domains for: the interview can ask them technical questions.
KB_SKILLS: dict[str, str] = {
    "python": "python",
    "machine learning": "machine-learning",
    "scikit-learn": "machine-learning",
    "sklearn": "machine-learning",
    "pytorch": "machine-learning",
    "tensorflow": "machine-learning",
    "deep learning": "machine-learning",
    "ml": "machine-learning",
}


@dataclass(frozen=True)
class Anchor:
    id: str
    type: AnchorType
    label: str


def parse_resume(text: str) -> ResumeStructured:
    """The resume's name, summary, projects, jobs, skills and education."""
    lines = _unwrap([line.rstrip() for line in text.replace("\r", "").split("\n")])
    name = ""
    sections: dict[str, list[str]] = {key: [] for key in (*SECTION_WORDS, "other", "top")}
    current = "top"
    section_level: int | None = None  # the Markdown level of section headings ("## Projects")
    for line in lines:
        if not line.strip() or _RULE.match(line):  # a setext underline or a rule
            sections[current].append("")
            continue
        inline = _INLINE_SECTION.match(line)
        if inline and _section_kind(inline.group(1)) not in (None, "other"):
            current = str(_section_kind(inline.group(1)))
            sections[current].append(inline.group(2))  # "**Skills:** Python, SQL"
            continue
        if not name and current == "top" and re.match(r"^\s*#\s", line):
            name = re.split(r"\s+[—–|-]\s+|,", _clean(line.lstrip("# ")))[0]
            continue
        heading = _heading(line)
        marks = re.match(r"^\s*(#{1,6})\s", line)
        level = len(marks.group(1)) if marks else None
        # Below a section's level, a heading names an entry ("### Loop & Thread — Full-Stack
        # Developer" under "## Work Experience"), whatever words it holds.
        deeper = level is not None and section_level is not None and level > section_level
        if heading is not None and not deeper:
            kind = _section_kind(heading)
            if kind is not None:
                current = kind
                if level is not None and section_level is None:
                    section_level = level
                continue
            if not name and current == "top":
                name = heading
                continue
        if not name and current == "top" and not _BULLET.match(line):
            name = line.strip().strip("*_")
            continue
        sections[current].append(line)
    summary = " ".join(
        _clean(x) for x in sections["summary"] or _prose(sections["top"]) if x.strip()
    )
    projects = [{"name": t, "text": body} for t, body in _entries(sections["projects"])]
    jobs = [{"title": t, "text": body} for t, body in _entries(sections["experience"])]
    return {
        "name": name[:120],
        "summary": summary[:1500],
        "projects": projects[:12],  # type: ignore[typeddict-item]
        "experience": jobs[:12],  # type: ignore[typeddict-item]
        "skills": _skills(sections["skills"]),
        "education": _education(sections["education"]),
    }


def anchors(resume: ResumeStructured) -> list[Anchor]:
    """The resume normalised into anchors: project_N, experience_N, the most telling skills
    (skill_<name>: the ones the knowledge base can test first, then those the projects and jobs
    mention most) and education."""
    found = [
        Anchor(f"project_{i}", "project", p["name"])
        for i, p in enumerate(resume["projects"][:MAX_PROJECTS], start=1)
    ]
    found += [
        Anchor(f"experience_{i}", "experience", j["title"])
        for i, j in enumerate(resume["experience"][:MAX_JOBS], start=1)
    ]
    for skill in ranked_skills(resume)[:MAX_SKILL_ANCHORS]:
        found.append(Anchor(f"skill_{_slug(skill)}", "skill", skill))
    if resume["education"]:
        found.append(Anchor("education", "education", resume["education"][0]))
    return found


def ranked_skills(resume: ResumeStructured) -> list[str]:
    body = " ".join(
        [p["text"] for p in resume["projects"]] + [j["text"] for j in resume["experience"]]
    ).lower()
    mentions = Counter(
        {s: len(re.findall(rf"\b{re.escape(s.lower())}\b", body)) for s in resume["skills"]}
    )
    order = {s: i for i, s in enumerate(resume["skills"])}
    return sorted(
        resume["skills"],
        key=lambda s: (kb_domain(s) is None, -mentions[s], order[s]),
    )


def kb_domain(skill: str) -> str | None:
    """The knowledge-base domain that can test a skill, if any."""
    return KB_SKILLS.get(skill.lower().strip())


def exploration(found: list[Anchor]) -> dict[str, ResumeExploration]:
    return {
        a.id: {
            "anchor_id": a.id,
            "anchor_type": a.type,
            "label": a.label,
            "aspects_covered": [],
            "depth_score": 0,
            "last_explored_turn": None,
        }
        for a in found
    }


def anchor_text(resume: ResumeStructured, anchor_id: str) -> str:
    """What the resume says about an anchor: the entry's bullets."""
    kind, _, number = anchor_id.partition("_")
    if kind == "project" and number.isdigit():
        return resume["projects"][int(number) - 1]["text"]
    if kind == "experience" and number.isdigit():
        return resume["experience"][int(number) - 1]["text"]
    return ""


def _unwrap(lines: list[str]) -> list[str]:
    """Lines that continue the one above (a wrapped bullet: the next line starts in lower case)
    joined to it, as a PDF's text comes out line by line. Only after a line of six words or more:
    a name or a heading is not wrapped."""
    out: list[str] = []
    for line in lines:
        bare = line.strip()
        wrapped = out and len(out[-1].split()) >= 6 and "@" not in bare  # a full line above
        if wrapped and bare[:1].islower() and not _BULLET.match(line):
            out[-1] = f"{out[-1].rstrip()} {bare}"
        else:
            out.append(line)
    return out


def _heading(line: str) -> str | None:
    match = _HEADING_MD.match(line)
    if match:
        return _clean(match.group(1))
    bare = line.strip().strip("*_").strip()
    if not bare or _BULLET.match(line) or len(bare.split()) > 5:
        return None
    if bare.endswith(":") and len(bare) < 40:
        return bare[:-1]
    letters = [c for c in bare if c.isalpha()]
    if len(letters) >= 4 and all(c.isupper() for c in letters):
        return bare
    if re.fullmatch(r"[A-Za-z &/]+", bare) and _section_kind(bare) is not None:
        return bare  # "Work history" on a line of its own
    return None


def _section_kind(heading: str) -> str | None:
    words = heading.lower()
    if any(w in words for w in _OTHER):
        return "other"
    for kind, cues in SECTION_WORDS.items():
        if any(cue in words for cue in cues):
            return kind
    return None


def _entries(lines: list[str]) -> list[tuple[str, str]]:
    """(title, text) per entry. A Markdown heading, or a short line that is not a bullet, names
    an entry; right below a short-line name, a second short line (the employer, the dates) joins
    it, while below a heading it is the entry's first detail. Bullets and sentences are the text.
    In a list with no titles, a bullet or a paragraph shaped "Name - what it is" (or "Name: ...")
    is an entry of its own; indented lines continue the line above."""
    entries: list[tuple[str, list[str], str]] = []  # title, text, opened by: heading/line/bullet
    for line in lines:
        if not line.strip():
            continue
        sub = _HEADING_MD.match(line)
        bullet = bool(_BULLET.match(line))
        text = _clean(_BULLET.sub("", sub.group(1) if sub else line))
        if entries and not sub and not bullet and line[:1].isspace() and entries[-1][1]:
            entries[-1][1][-1] += " " + text  # a wrapped line
            continue
        if sub:
            entries.append((_title(text) or text, [], "heading"))
            continue
        if not bullet and entries and not entries[-1][1]:
            title, body, opened = entries[-1]
            if opened == "line":
                extra = _title(text)  # empty for a line of dates
                entries[-1] = (f"{title}, {extra}" if extra else title, body, opened)
            else:
                body.append(text)  # "*React Native, FastAPI* · Jan 2024" under its heading
            continue
        if not bullet and _titleish(line):
            entries.append((_title(text) or text, [], "line"))
            continue
        named = _NAMED_ITEM.match(text)  # also "**pg-migrate-check** — a linter for ..."
        if (
            named
            and len(named.group(1).split()) <= 8
            and (not entries or entries[-1][2] == "bullet")
        ):
            entries.append((_title(named.group(1)) or named.group(1), [named.group(2)], "bullet"))
        elif entries:
            entries[-1][1].append(text)
        else:
            entries.append((_title(text[:80]) or text[:80], [text], "bullet"))
    return [(t[:120], " ".join(_sentence(part) for part in body)) for t, body, _ in entries if t]


def _sentence(part: str) -> str:
    """A line of an entry as a sentence of its text: a detail line without a full stop ("React
    Native, FastAPI · Jan 2024") must not run into the next bullet."""
    return part if part[-1:] in ".!?;:" else f"{part}."


def _education(lines: list[str]) -> list[str]:
    """One entry per line (a degree, a school), without dates; a line of dates alone is none."""
    found = [_title(_clean(_BULLET.sub("", line))) for line in lines if line.strip()]
    return [entry for entry in found if len(entry) > 2][:4]


def _titleish(line: str) -> bool:
    """A line that names an entry: short, not a sentence."""
    bare = _clean(line)
    return len(bare.split()) <= 14 and not bare.endswith(".")


def _title(text: str) -> str:
    """An entry's name without its dates: 'Data Engineer, Acme (2019 - 2022)' -> 'Data
    Engineer, Acme'."""
    return _DATES.sub("", text).strip(" ,|–—-(·•")[:120]


def _skills(lines: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for line in lines:
        body = re.sub(r"[()\[\]]", ",", _clean(_BULLET.sub("", line)))  # "Python (pandas)"
        if ":" in body:
            body = body.split(":", 1)[1]
        for part in _SKILL_SPLIT.split(body):
            skill = part.strip(" .()")
            if 1 <= len(skill) <= 40 and len(skill.split()) <= 4:
                seen.setdefault(skill.lower(), skill)
    return list(seen.values())[:40]


def _prose(lines: list[str]) -> list[str]:
    """The top of a resume without its contact line: sentences, not emails and phone numbers."""
    return [x for x in lines if len(x.split()) > 6 and "@" not in x]


def _clean(text: str) -> str:
    return re.sub(r"[*_`]+", "", text).strip()


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "skill"
