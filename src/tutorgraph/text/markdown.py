"""Small text helpers for the tutor: content-word stems, sentences and code blocks of markdown."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import Stemmer

from tutorgraph.content.notation import with_notation

_STEMMER = Stemmer.Stemmer("english")
_WORD = re.compile(r"[a-z0-9]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z$`*(\"'])")
_FENCE = re.compile(r"```[^\n]*\n.*?```", re.DOTALL)
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.DOTALL)

_STOPWORDS = """
    a about above after again all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers him his how i if in into is it its itself just me more
    most my no nor not of off on once only or other our out over own same she should so some such
    than that the their them then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours explain
    tell show give please want know understand mean means meaning work works does did thing
    things lot really just like get got make makes made use used using ok okay hi hello hey thanks
    thank let us let's something anything can't cannot don't doesn't actually basically exactly
    literally kind sort stuff way someone somewhere saw seen im i'm dont cant isnt doesnt whats
    why's how's pls plz gonna wanna kinda sorta hmm um uh yeah yes okay right wait sure
    lesson lessons course courses section sections chapter part parts cover covers covered
    talk talks mention mentions discuss discusses picture
"""
STOPWORDS = frozenset(_STOPWORDS.split())


# How learners write what the course spells out: expanded in search queries and matching.
_EXPANSIONS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), words)
    for pattern, words in (
        (r"==", " equality equal "),
        (r"!=", " not equal "),
        (r":=", " walrus assignment expression "),
        (r"\+=", " augmented assignment in-place "),
        (r"->", " return annotation "),
        (r"(?<![\w@])@(?=[a-z_])", " decorator "),
        (r"//", " floor division "),
        (r"\binit\b", " initialisation initialization init "),
        (r"\bparams?\b", " parameters "),
        (r"\bargs?\b", " arguments "),
        (r"\bkwargs\b", " keyword arguments "),
        (r"\bfuncs?\b", " function "),
        (r"\bvars?\b", " variable "),
        (r"\blr\b", " learning rate "),
        (r"\bnn\b", " neural network "),
        (r"\bml\b", " machine learning ml "),
        (
            r"\b(get|gets|getting|got) (\w+ )?wrong\b|\bmistakes?\b|\bgotchas?\b|\btrip(s)? up\b",
            " \\g<0> pitfalls misconceptions mistakes ",
        ),
        (r"\battn\b", " attention "),
        (r"\bbc\b", " because "),
        (r"\bw/", " with "),
        (r"\bsqrt\b", " square root sqrt "),
        (
            r"\bwith (open|statement|block|blocks|body)\b|\bwith with\b|\bworks with with\b",
            " with statement context manager \\g<0> ",
        ),
        (r"\byield\b", " yield generator "),
    )
)


def expand(text: str) -> str:
    """A learner's text with its symbols and abbreviations spelled out (`is vs ==` -> `is
    versus equality equal`) and identifiers also split (`lora_alpha` -> `lora_alpha lora
    alpha`): what search and matching read."""
    for pattern, words in _EXPANSIONS:
        text = pattern.sub(words, text)
    identifiers = re.findall(r"\b[a-z]+(?:_[a-z0-9]+)+\b", text, flags=re.IGNORECASE)
    return text + "".join(f" {i.replace('_', ' ')}" for i in identifiers)


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return str(_STEMMER.stemWord(word))


def stems(text: str) -> list[str]:
    """Stems of the content words of `text` (stopwords and one-letter tokens dropped)."""
    words = _WORD.findall(with_notation(text).lower())
    return [_stem(w) for w in words if w not in STOPWORDS and len(w) > 1]


def stem_set(text: str) -> set[str]:
    return set(stems(text))


@dataclass(frozen=True)
class CodeBlock:
    language: str
    code: str


def code_blocks(markdown: str) -> list[CodeBlock]:
    blocks = []
    for match in _FENCE.finditer(markdown):
        head, _, rest = match.group(0).partition("\n")
        blocks.append(CodeBlock(head.strip("`").strip(), rest.rsplit("```", 1)[0].rstrip()))
    return blocks


def sentences(markdown: str) -> list[str]:
    """Prose sentences of a markdown passage: no code, headings, tables, display maths or
    overlap markers."""
    text = _DISPLAY_MATH.sub(" ", _FENCE.sub(" ", markdown))
    kept: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        lines = [
            line.strip()
            for line in paragraph.splitlines()
            if line.strip() and not line.lstrip().startswith(("#", "|", "<", "```"))
        ]
        if not lines:
            continue
        prose = " ".join(re.sub(r"^([-*+]|\d+\.)\s+", "", line) for line in lines)
        fragments = _SENTENCE_END.split(prose.strip())
        if prose.startswith("… "):
            fragments = fragments[1:]  # the overlap carried from the previous chunk
        for sentence in fragments:
            sentence = sentence.strip()
            if sentence[:1].islower():
                continue
            lead_in = sentence.endswith(":")
            if len(sentence.split()) >= 4 and not sentence.startswith("…") and not lead_in:
                kept.append(sentence)
    return kept


_TABLE_RULE = re.compile(r"^\s*\|[\s:|-]+\|\s*$")


@dataclass(frozen=True)
class Table:
    """The first markdown table of a text: the line that introduces it (ending in ":", or ""),
    its header and rule lines, and its rows (lines)."""

    lead_in: str
    header: str
    rule: str
    rows: tuple[str, ...]


def first_table(markdown: str) -> Table | None:
    lines = markdown.splitlines()
    for i in range(len(lines) - 1):
        if lines[i].lstrip().startswith("|") and _TABLE_RULE.match(lines[i + 1]):
            rows = []
            for line in lines[i + 2 :]:
                if not line.lstrip().startswith("|"):
                    break
                rows.append(line)
            before = [line.strip() for line in lines[:i] if line.strip()]
            lead = before[-1] if before else ""
            lead_in = lead if lead.endswith(":") and not lead.startswith(("#", "|", "…")) else ""
            return Table(lead_in, lines[i], lines[i + 1], tuple(rows)) if rows else None
    return None


def row_sentences(markdown: str) -> list[str]:
    """A text's first table told as sentences, one per row ("`islice(it, stop)`: slicing for
    any iterator."): what a section that is only a table says, for replies built of sentences."""
    table = first_table(markdown)
    if table is None:
        return []
    told = []
    for row in table.rows:
        cells = [c.strip() for c in row.strip().strip("|").split("|") if c.strip()]
        if cells:
            told.append(f"{cells[0]}: {'; '.join(cells[1:])}." if len(cells) > 1 else cells[0])
    return told


_KEYWORD = re.compile(r"`[A-Za-z]+`")  # `yield`, `with`: a word in code font, not code


def is_plain(sentence: str) -> bool:
    """No maths, code or symbols (a keyword in code font is a word): suitable for a
    plain-language explanation."""
    return not re.search(r"[$\\`^_{}=×√]", _KEYWORD.sub("w", sentence))


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"
