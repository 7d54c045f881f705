"""How the offline tutor writes a reply: only sentences and code taken from the retrieved course
material, each group cited to its lesson and heading, shaped by the teaching mode, and ending in a
check (an open question or a `<quiz>` card built from the lesson's quiz).

How much a reply quotes and when a quiz card closes it are parameters: `modes` and `replies` in
tutor/parameters.yaml."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tutorgraph.content.chunking import Section, split_sections
from tutorgraph.text.markdown import code_blocks, first_table, is_plain, sentences, shorten
from tutorgraph.text.query import stem_set
from tutorgraph.tutor._analogies import analogy_text, building_on, find_analogy, used_in
from tutorgraph.tutor._passages import (
    GENERIC_HEADINGS,
    Passage,
    headings,
    quotable,
    said_in,
    sentence_key,
)
from tutorgraph.tutor.blocks import QuizBlock, ResourceBlock, render_block
from tutorgraph.tutor.context import Mode, QuizCard, TutorContext, is_quiz
from tutorgraph.tutor.parameters import tutor_parameters

_ANALOGY = re.compile(r"\b(think of|imagine|like a|analog|similar to|as if|picture)\b", re.I)
FRAMED = re.compile(r"(think of|imagine|picture)\b", re.IGNORECASE)
_MATH_BLOCK = re.compile(r"\$\$.*?\$\$", re.DOTALL)
QUIZ_LEAD = "Quick check: pick one, and tell me why."  # the line above a quiz card


@dataclass(frozen=True)
class Style:
    passages: int
    sentences: int
    opener: str
    plain: bool = False


# A mode's opener says how the first answer is shaped; later answers start with what they say
# (no fixed opener: decision 0048), and the default mode has none.
OPENERS: dict[Mode, str] = {
    "default": "",
    "eli5": "Here's the simple version.",
    "analogy": "Let's find a picture for this.",
    "code": "Let's look at it in code.",
    "deep_dive": "Let's go deep. Here is exactly what the course material says.",
}


def style_of(mode: Mode) -> Style:
    """How a first answer in `mode` reads: how many passages and sentences, its opener, and
    whether only plain sentences will do (ELI5)."""
    q = tutor_parameters()
    m = q.modes
    sizes: dict[Mode, tuple[int, int]] = {
        "default": (m.default_passages, m.default_sentences),
        "eli5": (m.eli5_passages, m.eli5_sentences),
        "analogy": (m.analogy_passages, q.replies.mapped_sentences),
        "code": (m.code_passages, q.replies.code_explanation_sentences),
        "deep_dive": (m.deep_dive_passages, m.deep_dive_sentences),
    }
    passages, count = sizes[mode]
    return Style(passages, count, OPENERS[mode], plain=mode == "eli5")


CHECKS: dict[Mode, tuple[str, ...]] = {
    "default": (
        "Before we go on: in your own words, why does “{focus}” matter? What would break "
        "without it?",
        "Try this: how would you explain “{focus}” to a classmate in two sentences?",
    ),
    "eli5": (
        "Can you tell it back to me in one simple sentence, as if to a friend?",
        "What part of “{focus}” still feels fuzzy? Tell me and we'll make it simpler.",
    ),
    "analogy": (
        "What everyday thing does “{focus}” remind you of? Give me your analogy and we'll test "
        "where it holds and where it breaks.",
        "Where does that picture stop fitting “{focus}”? Find one place it breaks.",
    ),
    "code": (
        "Before you run it: which line does the key step, and what would change if you removed it?",
        "Predict one line of the output before running it, then check. Were you right?",
    ),
    "deep_dive": (
        "Now push on it: what happens at the edge cases of “{focus}”, and can you derive the key "
        "step yourself from the passages above?",
        "Which assumption behind “{focus}” would you test first, and how?",
    ),
}


def citation(passage: Passage) -> str:
    where = " › ".join(headings(passage))
    title = passage.lesson_title or passage.lesson
    if passage.source == "reference_kb":
        return (
            f"_(Source: {title}, reference notes › {where})_" if where else f"_(Source: {title})_"
        )
    return f"_(Source: {title} › {where})_" if where else f"_(Source: {title})_"


_CITATION = re.compile(
    r"_\(Source: (?P<title>.+?)(?P<notes>, reference notes)?(?: › (?P<path>.*?))?\)_"
)
_CODE_SOURCE = re.compile(r"^From (?P<title>.+?)(?: › (?P<path>.*?))?:$", re.MULTILINE)


@dataclass(frozen=True)
class Cited:
    """A passage a reply cites: its lesson's title and heading path (as `citation` writes it)."""

    lesson_title: str
    heading_path: tuple[str, ...]
    reference_notes: bool = False

    @property
    def heading(self) -> str:
        return self.heading_path[-1] if self.heading_path else ""


def citations(reply: str) -> list[Cited]:
    """The passages a reply cites, in order: its `_(Source: ...)_` lines and code sources."""
    found: list[tuple[int, Cited]] = []
    for match in _CITATION.finditer(reply):
        path = tuple(p.strip() for p in (match.group("path") or "").split(" › ") if p.strip())
        cited = Cited(match.group("title").strip(), path, bool(match.group("notes")))
        found.append((match.start(), cited))
    for match in _CODE_SOURCE.finditer(reply):
        path = tuple(p.strip() for p in (match.group("path") or "").split(" › ") if p.strip())
        found.append((match.start(), Cited(match.group("title").strip(), path)))
    return [cited for _, cited in sorted(found, key=lambda item: item[0])]


def focus_of(passages: list[Passage], context: TutorContext) -> str:
    """What the check question is about: the most specific meaningful heading."""
    for passage in passages:
        for heading in reversed(headings(passage)):
            if not GENERIC_HEADINGS.match(heading):
                return heading.lower()
    title = passages[0].lesson_title if passages else context.lesson_title
    return title.lower() or "this idea"


def pick_sentences(
    passage: Passage,
    question: str,
    count: int,
    *,
    plain: bool,
    skip: set[str] | frozenset[str] = frozenset(),
) -> list[str]:
    """The `count` sentences of a passage that say most of the question, in the passage's order:
    whole sentences only (`quotable`), none whose key is in `skip` (said earlier)."""
    wanted = stem_set(question)
    candidates = [s for s in quotable(passage.text) if sentence_key(s) not in skip]
    if plain:
        words = tutor_parameters().replies.plain_sentence_words
        simple = [s for s in candidates if is_plain(s) and len(s.split()) <= words]
        candidates = simple or sorted(candidates, key=len)[:1]
    ranked = sorted(
        range(len(candidates)), key=lambda i: (-len(wanted & stem_set(candidates[i])), i)
    )
    chosen = sorted(ranked[:count])
    return [candidates[i] for i in chosen]


def table_rows(markdown: str, question: str, count: int | None = None) -> str:
    """The first markdown table of a passage cut to its header and the (at most `count`, by
    default `replies.table_rows`) rows that say most of the question, in the table's order, or
    its first rows when none does: how a section that is a table (a comparison, a cheat sheet)
    answers. Empty when the passage has no table."""
    table = first_table(markdown)
    if table is None:
        return ""
    if count is None:
        count = tutor_parameters().replies.table_rows
    wanted = stem_set(question)
    said = [len(wanted & stem_set(row)) for row in table.rows]
    ranked = sorted(range(len(table.rows)), key=lambda i: (-said[i], i))
    if said[ranked[0]]:
        ranked = [i for i in ranked if said[i]]  # the rows about the question, when some are
    kept = [table.rows[i] for i in sorted(ranked[:count])]
    quoted = "\n".join([table.header, table.rule, *kept])
    return f"{table.lead_in}\n\n{quoted}" if table.lead_in else quoted  # the lead-in says what


def answer(
    context: TutorContext,
    question: str,
    passages: list[Passage],
    *,
    lesson_content: str,
    history: list[str],
    earlier: Cited | None = None,
) -> str:
    """A grounded, cited, mode-shaped answer that ends in a check; `earlier` is the section the
    conversation was on, when this new question grows out of it (the answer says how).

    Nothing an earlier reply said is said again (decision 0048): when the best passage was
    already shown, the answer says so and goes on with the next best passage that has something
    new. Further passages come only from the answering section's part of the lesson (never a
    passage spliced in from an unrelated section), and one text is quoted once even when the
    lesson and its reference notes both hold it."""
    mode = context.mode
    style = style_of(mode)
    said = said_in(history)
    fresh = [p for p in passages if has_new(p, question, said, history)]
    if passages and not fresh:
        return covered_above(context, passages[0], history)
    best = passages[0] if passages else None
    shown_first = best is not None and fresh[0] is not best and bool(history)
    passages = fresh
    # More passages of the same section deepen the answer; another section's would change topic.
    chosen = [p for p in passages if same_part(p, passages[0])][: style.passages]
    opener = style.opener if not history else ""
    parts = [opener] if opener else []
    if shown_first and best is not None:
        covered = " › ".join(headings(best)) or best.lesson_title
        parts.append(f"We covered *{covered}* above; here is what the course adds.")
    elif earlier is not None and earlier.heading:
        parts.append(f"This builds on what we just saw in *{earlier.heading}*.")
    if chosen and chosen[0].lesson and chosen[0].lesson != context.lesson_slug:
        parts.append(_elsewhere(chosen[0], context))
    if mode == "analogy":
        parts.extend(_analogy_mode(context, chosen, passages, question, history))
        if chosen and (visual := also_show(chosen[0], history)):
            parts.append(visual)  # the anchor: the lesson's own diagram or code for the idea
    elif mode == "code":
        on_lesson = chosen[0].lesson == context.lesson_slug
        parts.extend(
            _code(
                chosen,
                question,
                lesson_content=(context.lesson_content or lesson_content) if on_lesson else "",
                lesson_title=context.lesson_title,
                history=history,
            )
        )
    elif style.plain:
        same_lesson = [p for p in passages if p.lesson == passages[0].lesson]
        parts.extend(_plain(same_lesson, question, style.sentences, said))
        analogy = find_analogy(context, f"{question} {focus_of(chosen, context)}")
        if analogy is not None and not used_in(analogy, history):
            parts.append(f"A picture for it: {analogy.picture}")
        simple_code = tutor_parameters().replies.plain_snippet_lines
        if chosen and (visual := also_show(chosen[0], history, code_lines=simple_code)):
            parts.append(visual)
    else:
        quoted = set(said)  # and, as the reply grows, its own sentences: one text once
        for passage in chosen:
            picked = pick_sentences(passage, question, style.sentences, plain=False, skip=quoted)
            if not picked and (rows := table_rows(passage.text, question)):
                if rows not in "\n".join(history):
                    parts.append(f"{rows}\n\n{citation(passage)}")  # a section that is a table
            elif picked:
                quoted |= {sentence_key(s) for s in picked}
                block = " ".join(picked)
                math = _MATH_BLOCK.search(passage.text) if mode == "deep_dive" else None
                if math is not None and math.group(0) not in "\n".join(history):
                    block += "\n\n" + math.group(0)
                parts.append(f"{block}\n{citation(passage)}")
        # The open lesson whole (a fetched lesson may come shortened), else the fetched one.
        on_lesson = bool(chosen) and chosen[0].lesson == context.lesson_slug
        lesson_text = (context.lesson_content if on_lesson else "") or lesson_content
        # The anchor: the diagram or code of a section the answer cites, the first that has one.
        sections = split_sections(lesson_text) if lesson_text else []
        visuals = (also_show(whole_section(p, sections), history) for p in chosen)
        if visual := next((v for v in visuals if v), None):
            parts.append(visual)
    parts.append(check(context, question, chosen, history))
    return "\n\n".join(parts)


def has_new(
    passage: Passage, question: str, said: set[str] | frozenset[str], history: Sequence[str]
) -> bool:
    """Whether a passage has something the conversation has not shown: a sentence, its table,
    or its code."""
    if pick_sentences(passage, question, 1, plain=False, skip=said):
        return True
    shown = "\n".join(history)
    table = first_table(passage.text)
    if table is not None and table.header not in shown:
        return True
    return any(b.code.strip() and not was_shown(b.code, history) for b in code_blocks(passage.text))


def same_part(passage: Passage, main: Passage) -> bool:
    """Whether a passage belongs with the answer's main one: the same lesson, and the same
    top-level section of it or a heading about the same thing (the reference notes' "Why scale by
    the square root of d_k" beside the lesson's "Why divide by the square root of d_k"), so an
    answer about the scaling never splices in a paragraph of "Cost and common pitfalls"."""
    if passage is main:
        return True
    if passage.lesson != main.lesson:
        return False
    if passage.source == main.source and headings(passage)[:1] == headings(main)[:1]:
        return True
    title = stem_set(main.lesson_title)
    about = stem_set(headings(main)[-1] if main.heading_path else "") - title
    return bool(about & (stem_set(headings(passage)[-1] if passage.heading_path else "") - title))


def covered_above(context: TutorContext, passage: Passage, history: Sequence[str]) -> str:
    """The plain answer when everything the course says on a question was said earlier in the
    conversation: where, and an offer to explain it another way (never the same text again)."""
    return _covered(" › ".join(headings(passage)) or passage.lesson_title, history)


def covered_above_reply(history: Sequence[str]) -> str:
    """`covered_above` for a reply that, once what earlier replies said is taken out, has
    nothing left: named by the section the conversation cited last."""
    cited = [c for reply in history for c in citations(reply)]
    return _covered(" › ".join(cited[-1].heading_path) if cited else "", history)


_COVERED = (
    "I've already given you what the course says on that above{where}, and I won't paste it "
    "again. If a part of it didn't click, tell me which one and I'll explain it another way; or "
    'say "repeat that" and I\'ll show it again.',
    "That's the part we went through above{where}. Shall we look at it from another side (an "
    "example, the code, a picture), or move on to something new?",
)


def _covered(where: str, history: Sequence[str]) -> str:
    place = f" (from *{where}*)" if where else ""
    said = "\n".join(history)
    options = [template.format(where=place) for template in _COVERED]
    return next((o for o in options if o not in said), options[0])


def whole_section(passage: Passage, sections: Sequence[Section]) -> Passage:
    """The passage with the text of its whole lesson section (a search result is one chunk of
    it, which may stop short of the section's diagram or code), when `sections` (the lesson's,
    from `split_sections`) have it."""
    if passage.source != "lesson":
        return passage
    for section in sections:
        if list(section.heading_path) == passage.heading_path:
            return passage.model_copy(update={"text": "\n\n".join(section.blocks)})
    return passage


def was_shown(code: str, history: Sequence[str]) -> bool:
    """Whether the conversation showed this code or diagram (its opening characters) already."""
    return any(code.strip()[:80] in reply for reply in history)


def also_show(
    passage: Passage, history: Sequence[str], *, code_lines: int | None = None
) -> str | None:
    """The passage's diagram, or else a short piece of its code (with `code_lines`, only a block
    of at most that many lines), when the conversation has not shown it yet: the lesson's own
    anchor for the idea (never anything the course lacks)."""
    for block in code_blocks(passage.text):
        body = block.code.strip()
        if not body or was_shown(body, history):
            continue
        if block.language == "mermaid":
            return f"As a diagram:\n\n```mermaid\n{body}\n```"
    shown_lines = tutor_parameters().replies.snippet_lines
    for block in code_blocks(passage.text):
        body = block.code.strip()
        if block.language == "mermaid" or not body or was_shown(body, history):
            continue
        lines = body.splitlines()
        if code_lines is not None and len(lines) > code_lines:
            continue
        if len(lines) > shown_lines:
            body = "\n".join(lines[:shown_lines]) + "\n# … (the rest is in the lesson)"
        return f"In the lesson's code:\n\n```{block.language or 'python'}\n{body}\n```"
    return None


def _plain(
    passages: list[Passage],
    question: str,
    count: int,
    said: set[str] | frozenset[str] = frozenset(),
) -> list[str]:
    """The simplest on-topic sentences of the best few passages not said earlier, each group
    cited, each text once."""
    wanted = stem_set(question)
    words = tutor_parameters().replies.plain_sentence_words
    seen = set(said)
    on_topic = []
    for rank, passage in enumerate(passages):
        for position, sentence in enumerate(quotable(passage.text)):
            if wanted & stem_set(sentence) and sentence_key(sentence) not in seen:
                seen.add(sentence_key(sentence))
                on_topic.append((rank, position, sentence))
    plain = [
        (-len(wanted & stem_set(s)), rank, position, s)
        for rank, position, s in on_topic
        if is_plain(s) and len(s.split()) <= words
    ]
    # With nothing plain on topic, the least technical on-topic sentence.
    best = (
        sorted(plain)[:count]
        or sorted((_technicality(s), rank, position, s) for rank, position, s in on_topic)[:1]
    )
    if not best:
        return []
    parts = []
    for rank in sorted({item[1] for item in best}):
        picked = [item[3] for item in sorted(best, key=lambda i: i[2]) if item[1] == rank]
        parts.append(f"{' '.join(picked)}\n{citation(passages[rank])}")
    return parts


def _technicality(sentence: str) -> int:
    symbol = tutor_parameters().replies.technical_symbol_words
    return symbol * len(re.findall(r"[$\\`^_{}=]", sentence)) + len(sentence.split())


def _elsewhere(passage: Passage, context: TutorContext) -> str:
    if context.exploration_mode:
        return (
            f"This is covered in the lesson **{passage.lesson_title}** "
            f"(open it at /learn/{passage.course}/{passage.lesson} to study it with its tutor)."
        )
    return f"This lesson doesn't cover it, but **{passage.lesson_title}** does:"


def _analogy_mode(
    context: TutorContext,
    chosen: list[Passage],
    passages: list[Passage],
    question: str,
    history: Sequence[str],
) -> list[str]:
    """Analogy mode: the knowledge base's analogy for the idea asked about, mapped back onto the
    course's words; a picture already in play is built on, not repeated (compounding); else the
    course's own picture, or an invitation to build one."""
    focus = focus_of(chosen, context)
    analogy = find_analogy(context, f"{question} {focus}")
    if analogy is None:
        return analogy_parts(chosen, passages, question)
    mapped = tutor_parameters().replies.mapped_sentences
    core = " ".join(pick_sentences(chosen[0], question, mapped, plain=False))
    if used_in(analogy, history):
        return [
            building_on(analogy, history, question),
            f"Now map it onto the real thing: {core}\n{citation(chosen[0])}",
        ]
    return [
        analogy_text(analogy)
        if FRAMED.match(analogy.picture)
        else f"Think of it this way. {analogy_text(analogy)}",
        f"Now map it onto the real thing: {core}\n{citation(chosen[0])}",
    ]


def analogy_parts(chosen: list[Passage], passages: list[Passage], question: str) -> list[str]:
    """The course's own picture for the idea when it has one; otherwise an invitation to build
    one (the offline tutor does not invent analogies)."""
    core = chosen[0]
    q = tutor_parameters().replies
    for passage in passages:
        pictures = [s for s in quotable(passage.text) if _ANALOGY.search(s)]
        if pictures:
            parts = [f"The course offers this picture: {pictures[0]}\n{citation(passage)}"]
            rest = pick_sentences(core, question, q.mapped_with_picture, plain=False)
            picked = " ".join(s for s in rest if s != pictures[0])
            if picked:
                parts.append(f"Now map it onto the real thing: {picked}\n{citation(core)}")
            return parts
    parts = ["The course material has no ready-made analogy for this, so let's build one together."]
    picked = " ".join(pick_sentences(core, question, q.mapped_sentences, plain=False))
    if picked:
        parts.append(f"Here's the idea we need a picture for: {picked}\n{citation(core)}")
    return parts


def code_parts(
    chosen: list[Passage], question: str, context: TutorContext, history: Sequence[str] = ()
) -> list[str]:
    """The code for `question` from the passages, or the whole current lesson when they are
    from it (see `_code`), none shown earlier in the conversation."""
    on_lesson = bool(chosen) and chosen[0].lesson == context.lesson_slug
    return _code(
        chosen,
        question,
        lesson_content=context.lesson_content if on_lesson else "",
        lesson_title=context.lesson_title,
        history=history,
    )


def _code(
    chosen: list[Passage],
    question: str,
    *,
    lesson_content: str,
    lesson_title: str,
    history: Sequence[str] = (),
) -> list[str]:
    """The lesson's code that best fits the question (the retrieved passages first, then the
    whole current lesson), cited to its section; never code the course does not contain."""
    wanted = stem_set(question) | {w for p in chosen for w in stem_set(" ".join(headings(p)))}
    best: tuple[int, str, str, str, list[str]] | None = None
    sources = [(p.text, p.lesson_title, p.heading_path) for p in chosen]
    sources += [
        ("\n\n".join(section.blocks), lesson_title, list(section.heading_path))
        for section in split_sections(lesson_content)
    ]
    for text, title, path in sources:
        for block in code_blocks(text):
            for piece in _code_pieces(block.code):
                if any(piece.strip() in reply for reply in history):
                    continue  # shown earlier in the conversation
                score = len(wanted & stem_set(piece))
                if best is None or score > best[0]:
                    best = (score, block.language, piece, title, path)
    core = chosen[0]
    q = tutor_parameters().replies
    parts = []
    if best is None:
        parts.append("The course material has no code for this, and I won't invent any.")
    else:
        _, language, code, title, path = best
        where = " › ".join(path[1:] if len(path) > 1 else path)
        lines = code.splitlines()
        shown = "\n".join(lines[: q.code_lines]) + (
            "\n# … (the rest is in the lesson)" if len(lines) > q.code_lines else ""
        )
        source = f"{title or 'the lesson'} › {where}" if where else title or "the lesson"
        parts.append(f"From {source}:\n\n```{language or 'python'}\n{shown}\n```")
    said = said_in(history)
    picked = pick_sentences(core, question, q.code_explanation_sentences, plain=False, skip=said)
    if picked:
        parts.append(f"{' '.join(picked)}\n{citation(core)}")
    return parts


def _code_pieces(code: str) -> list[str]:
    """A code block cut at blank lines: a function or a few statements each."""
    pieces = [piece.strip("\n") for piece in re.split(r"\n\s*\n", code) if piece.strip()]
    return pieces or [code]


def check_for(context: TutorContext, focus: str, turn: int, history: Sequence[str] = ()) -> str:
    """An open check question in the teaching mode's voice, about `focus`: the turn's template,
    or the next one when the conversation already asked that very question."""
    templates = CHECKS[context.mode]
    asked = [
        templates[(turn + i) % len(templates)].format(focus=focus) for i in range(len(templates))
    ]
    return next((q for q in asked if not any(q in reply for reply in history)), asked[0])


def lesson_diagram(markdown: str, wanted: set[str]) -> tuple[tuple[str, ...], str] | None:
    """The lesson's Mermaid diagram that best fits `wanted` (its section's words), if it has one:
    (heading path, diagram source)."""
    best: tuple[int, tuple[str, ...], str] | None = None
    for section in split_sections(markdown):
        text = "\n\n".join(section.blocks)
        for block in code_blocks(text):
            if block.language != "mermaid":
                continue
            score = len(wanted & stem_set(" ".join(section.heading_path) + " " + text))
            if best is None or score > best[0]:
                best = (score, tuple(section.heading_path), block.code.strip())
    return (best[1], best[2]) if best else None


def lesson_sections(markdown: str) -> list[tuple[tuple[str, ...], list[str]]]:
    """(heading path, prose sentences) of each section of a lesson, in order."""
    return [
        (tuple(section.heading_path), quotable("\n\n".join(section.blocks)))
        for section in split_sections(markdown)
    ]


def check(context: TutorContext, question: str, chosen: list[Passage], history: list[str]) -> str:
    """A `<quiz>` card when a fresh lesson quiz question fits, otherwise an open question."""
    on_lesson = bool(chosen) and chosen[0].lesson == context.lesson_slug
    focus_words = stem_set(question) | {w for p in chosen for w in stem_set(" ".join(headings(p)))}
    # The rhythm's "check": after a couple of replies without a quiz, a loosely fitting card will
    # do; otherwise only one that is clearly about what was asked.
    q = tutor_parameters().replies
    fit = q.quiz_loose_fit if quiz_due(history) else q.quiz_fit
    card = pick_quiz(context, focus_words, history, force=False, fit=fit) if on_lesson else None
    if card is not None:
        return quiz_text(card)
    return check_for(context, focus_of(chosen, context), len(history), history)


def quiz_due(history: Sequence[str]) -> bool:
    """Whether the conversation's last `replies.quiz_due_after` replies went without a quiz
    card."""
    due_after = tutor_parameters().replies.quiz_due_after
    recent = history[-due_after:]
    return len(recent) == due_after and not any("<quiz>" in reply for reply in recent)


def pick_quiz(
    context: TutorContext,
    focus: set[str],
    history: list[str],
    *,
    force: bool,
    fit: int | None = None,
) -> QuizCard | None:
    """The lesson quiz question closest to `focus` that this conversation has not shown yet
    (sharing at least `fit` of its words, by default `replies.quiz_fit`, unless `force`)."""
    if fit is None:
        fit = tutor_parameters().replies.quiz_fit
    shown = "\n".join(history)
    fresh = [card for card in context.quiz if card.id not in shown]
    if not fresh:
        return context.quiz[0] if force and context.quiz else None
    scored = [
        (len(focus & stem_set(f"{card.question} {' '.join(card.options)}")), -i, card)
        for i, card in enumerate(fresh)
    ]
    score, _, card = max(scored, key=lambda item: item[:2])
    if force or score >= fit:
        return card
    return None


def quiz_reply(context: TutorContext, card: QuizCard) -> str:
    """A quiz card asked for on its own, with the lesson section it checks (so the learner can
    look it up, and a follow-up knows what the card was about)."""
    wanted = stem_set(f"{card.question} {card.explanation} {' '.join(card.options)}")
    heading_weight = tutor_parameters().replies.quiz_heading_weight
    best: tuple[int, tuple[str, ...]] | None = None
    for path, body in lesson_sections(context.lesson_content):
        if len(path) < 2:
            continue
        score = len(wanted & stem_set(" ".join(path) + " " + " ".join(body)))
        score += heading_weight * len(wanted & stem_set(path[-1]))
        if best is None or score > best[0]:
            best = (score, path)
    where = f"\n_(Source: {context.lesson_title} › {' › '.join(best[1][1:])})_" if best else ""
    return quiz_text(card) + where


def with_lesson_check(reply: str, lesson: dict[str, Any], question: str, history: list[str]) -> str:
    """An Explore reply whose closing question becomes one of the answering lesson's own quiz
    cards, when one fits what was asked (or the section that answers it) and this conversation
    has not shown it."""
    cards = [QuizCard.model_validate(item) for item in lesson.get("quiz", []) if is_quiz(item)]
    shown = "\n".join(history)
    cited = citations(reply)
    wanted = stem_set(question) | stem_set(cited[0].heading if cited else "")
    scored = [
        (len(wanted & stem_set(f"{c.question} {' '.join(c.options)}")), -i, c)
        for i, c in enumerate(cards)
        if c.id not in shown
    ]
    if not scored:
        return reply
    score, _, card = max(scored, key=lambda item: item[:2])
    fit = tutor_parameters().replies.explore_quiz_fit
    if score < (0 if quiz_due(history) else fit):  # when one is due, any card of the lesson
        return reply
    body, _, _ = reply.rpartition("\n\n")
    return f"{body}\n\n{quiz_text(card)}" if body else reply


def quiz_text(card: QuizCard) -> str:
    block = QuizBlock(
        id=card.id,
        question=card.question,
        options=card.options,
        correct_index=card.correct_index,
        explanation=card.explanation,
        concept=card.concept,
    )
    return f"{QUIZ_LEAD}\n\n{render_block('quiz', block)}"


def lesson_headings(context: TutorContext, limit: int | None = None) -> list[str]:
    """The lesson's first main headings (`replies.opening_headings` of them by default)."""
    if limit is None:
        limit = tutor_parameters().replies.opening_headings
    found = re.findall(r"^##\s+(.+?)\s*$", context.lesson_content, flags=re.MULTILINE)
    return [re.sub(r"[`*_]", "", h) for h in found[:limit]]


def first_sentence(text: str) -> str:
    found = sentences(text)
    return found[0] if found else shorten(text, tutor_parameters().replies.greeting_summary_chars)


def resources_text(resources: list[dict[str, Any]]) -> str:
    cards = []
    for item in resources[: tutor_parameters().replies.resources_shown]:
        block = ResourceBlock(
            title=str(item.get("title", "")) or "Resource",
            url=str(item.get("url", "")),
            type=str(item.get("type", "article")),
            description=str(item.get("description", "")),
        )
        if block.url:
            cards.append(render_block("resource", block))
    return "\n\n".join(cards)
