"""How the offline tutor answers a follow-up on the conversation's topic (`dialogue.Move`): from
the same section of the course, shaped by what the learner asked for, without repeating what it
already said, citing the section (so the next turn still knows the topic) and ending in a check.

- confused / simpler: the section's plainest sentences not said yet, the topic's analogy from the
  knowledge base when there is one, and a question that finds the sticking point;
- why: the section's sentences that give reasons ("because", "so", "otherwise"...);
- example: its code or worked numbers; code: the lesson's code for it;
- analogy: a knowledge-base analogy for the idea, or the extension of the one already in play
  (compounding), with where the picture breaks;
- more: what the section says that was not said yet, then the next section;
- hint: the idea without the result (no number the learner's question does not already give:
  the leak guard of `tutor.leaks`), and a nudge to try;
- answer: the section's result, stated, with its reasoning;
- attempt: the learner's answer to the tutor's own question, checked against the section's result
  when both state a number (compared by value); otherwise graded by the project's grader
  (`grading.offline.OfflineGrader`, the one Practice falls back to) against the question's own
  reference: the knowledge-base question the check is (its reference answer and rubric, as
  Practice grades it), else the quiz card the last reply showed, else the section's sentences
  that say the question's words (the one that says most of them as the reference, the others
  as alternatives).
  It is right from the grader's "good answer" score (`feedback.good_answer_from` in
  grading/parameters.yaml); sharing words with the section is not enough ("I think it is the
  commit" is not "a snapshot of the tree of files"). Then a confirmation or a hint;
- summary: the lesson's key takeaways, or the first sentence of each section.

How many sentences each reply quotes, and how much of a check question a knowledge-base question
must say to be it, are parameters: `follow_ups` in tutor/parameters.yaml."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from tutorgraph.grading.offline import OfflineGrader
from tutorgraph.grading.parameters import grading_parameters
from tutorgraph.grading.types import GradingRequest
from tutorgraph.knowledge import find_topic
from tutorgraph.knowledge.grading_context import enrich_request
from tutorgraph.text.markdown import code_blocks, row_sentences
from tutorgraph.text.query import stem_set
from tutorgraph.tutor import _passages as passages_
from tutorgraph.tutor import compose
from tutorgraph.tutor._analogies import analogy_text, find_analogy, used_in
from tutorgraph.tutor._passages import Passage
from tutorgraph.tutor.blocks import block_bodies, strip_blocks
from tutorgraph.tutor.context import TutorContext
from tutorgraph.tutor.dialogue import Dialogue, Move, Topic, own_words
from tutorgraph.tutor.leaks import new_numbers, numbers
from tutorgraph.tutor.parameters import tutor_parameters

_REASON = re.compile(
    r"\b(because|so that|so the|so a|therefore|otherwise|without|which means|that is why|this is "
    r"why|prevents?|keeps?|since|as a result|the reason|in order to|ensures?|avoids?)\b",
    re.IGNORECASE,
)
_EXAMPLE = re.compile(r"\b(for example|for instance|e\.g\.|such as|consider|suppose|say)\b", re.I)


def on_topic(passages: Sequence[Passage], dialogue: Dialogue) -> list[Passage]:
    """The retrieved passages of the topic's section first (all its chunks), then the rest."""
    topic = dialogue.topic
    if topic is None:
        return list(passages)
    same = [
        p
        for p in passages
        if tuple(passages_.headings(p)) == topic.cited.heading_path[-len(passages_.headings(p)) :]
        and (p.lesson_title == topic.cited.lesson_title)
    ]
    return same + [p for p in passages if p not in same]


def _check(context: TutorContext, dialogue: Dialogue, main: Passage, ask: str) -> str:
    """A lesson quiz card about the topic the conversation has not shown yet, else `ask`."""
    if main.lesson != context.lesson_slug:
        return ask
    words = stem_set(" ".join(passages_.headings(main)))
    if dialogue.topic is not None:
        words |= stem_set(dialogue.topic.question)
    card = compose.pick_quiz(context, words, dialogue.replies, force=False)
    return compose.quiz_text(card) if card is not None else ask


def _by_words(found: list[str], own: set[str]) -> list[str]:
    """Sentences that say the learner's own words first (stable otherwise)."""
    if not own:
        return found
    return sorted(found, key=lambda s: -len(own & stem_set(s)))


def _said(dialogue: Dialogue) -> set[str]:
    return passages_.said_in(dialogue.replies)


def _key(sentence: str) -> str:
    return passages_.sentence_key(sentence)


def _fresh(candidates: Sequence[str], said: set[str]) -> list[str]:
    return [s for s in candidates if _key(s) not in said]


def _beyond(
    ordered: Sequence[Passage], main: Passage, said: set[str]
) -> tuple[list[str], Passage | None]:
    """When the topic's section has nothing left that the conversation has not said: the fresh
    sentences of the next passage on the topic in the same lesson (its reference notes tell the
    same idea in other words), and that passage to cite."""
    for passage in ordered:
        if passage is main or passage.lesson != main.lesson:
            continue
        fresh = _fresh(passages_.quotable(passage.text), said)
        if fresh:
            return fresh, passage
    return [], None


def _section_sentences(passages: Sequence[Passage]) -> list[str]:
    main = passages[0]
    same = [p for p in passages if p.heading_path == main.heading_path and p.lesson == main.lesson]
    found: list[str] = []
    for passage in same:
        found += [s for s in passages_.quotable(passage.text) if s not in found]
    # A section that is only a table says what its rows say.
    return found or [s for passage in same[:1] for s in row_sentences(passage.text)]


def reply(
    move: Move,
    context: TutorContext,
    question: str,
    passages: Sequence[Passage],
    dialogue: Dialogue,
) -> str:
    """The reply to a follow-up (see the module doc); `passages` are relevant, topic first."""
    q = tutor_parameters().follow_ups
    if move == "summary" or (move == "simpler" and dialogue.last_reply.startswith(SUMMARY_LEAD)):
        # "shorter, like 3 lines" after a summary: the same summary, cut down
        wanted = re.search(r"\b(\d{1,3})\b", question) if move == "simpler" else None
        points = int(wanted.group(1)) if wanted else (q.short_points if move == "simpler" else None)
        limit = min(points or q.max_points, q.max_points)
        return summary(context, passages, points=limit, history=dialogue.replies)
    if move == "diagram":
        return diagram(context, question, passages, dialogue)
    ordered = on_topic(passages, dialogue)
    own = own_words(question)
    new = own - dialogue.topic.words if dialogue.topic is not None else set()
    if len(new) >= q.specific_words:
        # "why np.tril and not np.triu?": the lesson's passage that says those new words, if one
        # says at least two of them; the topic's section otherwise
        lesson = ordered[0].lesson
        said_new = [
            len(new & passages_.vocabulary(p)) if p.lesson == lesson else 0 for p in ordered
        ]
        if max(said_new) >= q.specific_words:
            ordered = [
                p for _, p in sorted(zip(said_new, ordered, strict=True), key=lambda x: -x[0])
            ]
    main = ordered[0]
    said = _said(dialogue)
    section = _section_sentences(ordered)
    cite = compose.citation(main)
    focus = compose.focus_of([main], context)
    topic_question = dialogue.topic.question if dialogue.topic else question
    if move in ("confused", "simpler"):
        return _simpler(context, ordered, section, said, focus, dialogue, question)
    if move == "why":
        # What says the learner's own words ("why does it drop as k grows?") first, then what
        # gives a reason ("because", "so that"...).
        fresh = _fresh(section, said)
        lead = "Good question. Going back to the same section, here's the reason."
        if not fresh:
            fresh, other = _beyond(ordered, main, said)
            if other is None:
                return compose.covered_above(context, main, dialogue.replies)
            cite = compose.citation(other)
            lead = "The section gave its reason above; here it is from another angle."
        reasons = sorted(fresh, key=lambda s: (-len(own & stem_set(s)), not _REASON.search(s)))
        body = " ".join(reasons[: q.why_sentences])
        ask = (
            "Does that answer your “why”? Try saying in one sentence what would go wrong "
            "without it."
        )
        return f"{lead}\n\n{body}\n{cite}\n\n{_check(context, dialogue, main, ask)}"
    if move == "code":
        parts = compose.code_parts(
            ordered[:1], question + " " + topic_question, context, dialogue.replies
        )
        return "\n\n".join(
            [
                "Here's what we just saw, in code.",
                *parts,
                compose.check_for(context, focus, 0, dialogue.replies),
            ]
        )
    if move == "example":
        return _example(context, ordered, section, dialogue, focus, question, topic_question)
    if move == "analogy":
        return _analogy_reply(context, main, question, dialogue, focus)
    if move == "more":
        fresh = _by_words(_fresh(section, said), own)
        lead = f"Building on what we just covered, going further into {focus}:"
        if not fresh:
            # The section is said: the topic's next passage (its reference notes, or the
            # section that goes on from it), never the same sentences again.
            found, other = _beyond(ordered, main, said)
            if other is None:
                return compose.covered_above(context, main, dialogue.replies)
            fresh, cite = _by_words(found, own), compose.citation(other)
            lead = "That's all that section says; here is what the course adds."
        return f"{lead}\n\n{' '.join(fresh[: q.more_sentences])}\n{cite}\n\n" + _check(
            context, dialogue, main, "What would you like to dig into next?"
        )
    if move == "hint":
        return _hint(section, said, topic_question, cite, focus)
    if move == "answer":
        fresh_section = _fresh(section, said)
        result = _fresh(_result_sentences(section, topic_question), said) or fresh_section
        if not result:
            return compose.covered_above(context, main, dialogue.replies)
        return (
            "Fair enough: here's the answer to your question.\n\n"
            f"{' '.join(result[: q.answer_sentences])}\n{cite}\n\n"
            "Now that you have it: can you retrace the steps that lead there?"
        )
    if move == "attempt":
        reference = attempt_reference(context, dialogue, section, topic_question)
        return _attempt(question, section, topic_question, cite, focus, said, reference)
    return compose.answer(
        context, question, list(ordered), lesson_content="", history=dialogue.replies
    )


def _simpler(
    context: TutorContext,
    passages: Sequence[Passage],
    section: list[str],
    said: set[str],
    focus: str,
    dialogue: Dialogue,
    question: str,
) -> str:
    main = passages[0]
    q = tutor_parameters().follow_ups
    # Sentences said before stay out whole: their clauses in plainer words are the same text.
    clauses = [c for s in _fresh(section, said) for c in _clauses(plain_words(s))]
    short = [c for c in clauses if len(c.split()) <= q.simple_words] or clauses
    chosen = _fresh(short, said)
    if not chosen:
        # Everything the section says was said: the same idea in other words, from the topic's
        # other passages (its reference notes), never the same text again.
        others, other = _beyond(on_topic(passages, dialogue), main, said)
        found = [c for s in others for c in _clauses(plain_words(s))]
        chosen = _fresh([c for c in found if len(c.split()) <= q.simple_words] or found, said)
        main = other or main
    wanted = stem_set(question)
    about = stem_set(dialogue.topic.question) if dialogue.topic else set()

    def fit(clause: str) -> float:
        words = stem_set(clause)
        return (
            q.question_word_weight * len(wanted & words)
            + len(about & words)
            - q.difficulty_weight * difficulty_of(clause)
        )

    best = sorted(chosen, key=fit, reverse=True)[: q.simpler_clauses]
    in_order = [c for c in chosen if c in best]
    analogy = find_analogy(context, f"{focus} {dialogue.topic.question if dialogue.topic else ''}")
    fresh_picture = analogy is not None and not used_in(analogy, dialogue.replies)
    if not in_order and not fresh_picture:
        return compose.covered_above(context, main, dialogue.replies)
    lead = "Let's take that again, more simply, in other words."
    if dialogue.last_reply.startswith(lead):
        lead = "Here's one more way to see it."
    parts = [lead]
    if in_order:
        parts.append(f"{' '.join(in_order)}\n{compose.citation(main)}")
    if analogy is not None and fresh_picture:
        parts.append(f"A picture that may help: {analogy.picture}")
    parts.append(
        "Which part is still unclear? Tell me in your own words what you have so far, and "
        "we'll take it from there."
    )
    return "\n\n".join(parts)


_MATH = re.compile(r"\$([^$]+)\$")
_SQRT = re.compile(r"\\sqrt\{([^}]*)\}")
_TEXT = re.compile(r"\\(text|mathrm|mathbf|operatorname)\{([^}]*)\}")


def plain_words(sentence: str) -> str:
    """A sentence with its inline maths read out in words: "$\\sqrt{d_k}$" -> "the square root of
    d_k", "$q \\cdot k$" -> "q · k"."""

    def spoken(match: re.Match[str]) -> str:
        text = _TEXT.sub(r"\2", _SQRT.sub(r"the square root of \1", match.group(1)))
        text = text.replace("\\cdot", "·").replace("\\top", "ᵀ").replace("\\times", "×")
        return re.sub(r"\\([a-zA-Z]+)", r"\1", text).replace("{", "").replace("}", "")

    return _MATH.sub(spoken, sentence)


def _clauses(sentence: str) -> list[str]:
    """A long sentence cut at its colons and semicolons, each part a sentence of its own."""
    q = tutor_parameters().follow_ups
    if len(sentence.split()) <= q.simple_words:
        return [sentence]
    parts = [
        p.strip() for p in re.split(r"[:;]\s+", sentence) if len(p.split()) >= q.clause_min_words
    ]
    return [_capitalised(p.rstrip(".")) + "." for p in parts] or [sentence]


def _capitalised(text: str) -> str:
    """The text with its first letter in upper case (after any leading markup)."""
    return re.sub(r"^(?P<mark>[^A-Za-z]*)(?P<letter>[a-z])", _upper, text)


def _upper(match: re.Match[str]) -> str:
    return match.group("mark") + match.group("letter").upper()


def difficulty_of(sentence: str) -> float:
    """A sentence's words, each maths symbol counted as `follow_ups.symbol_words` of them."""
    symbol = tutor_parameters().follow_ups.symbol_words
    return len(sentence.split()) + symbol * len(re.findall(r"[$\\^_{}=×√]", sentence))


def _example(
    context: TutorContext,
    ordered: Sequence[Passage],
    section: list[str],
    dialogue: Dialogue,
    focus: str,
    question: str,
    topic_question: str,
) -> str:
    said = _said(dialogue)
    worked = _fresh([s for s in section if _EXAMPLE.search(s) or numbers(s)], said)
    if worked:
        shown = worked[: tutor_parameters().follow_ups.example_sentences]
        return (
            f"Here's a concrete case of what we just saw.\n\n{' '.join(shown)}\n"
            f"{compose.citation(ordered[0])}\n\nCan you make up a second example of your own?"
        )
    parts = compose.code_parts(
        list(ordered[:1]), f"{question} {topic_question}", context, dialogue.replies
    )
    return "\n\n".join(
        [
            "Here's an example of what we just saw, from the course.",
            *parts,
            compose.check_for(context, focus, 1, dialogue.replies),
        ]
    )


def _analogy_reply(
    context: TutorContext, main: Passage, question: str, dialogue: Dialogue, focus: str
) -> str:
    topic_question = dialogue.topic.question if dialogue.topic else ""
    analogy = find_analogy(context, f"{focus} {topic_question} {question}")
    if analogy is not None and used_in(analogy, dialogue.replies):
        extension = analogy.extension or analogy.breaks
        return (
            f"Let's stretch that picture further. {extension}\n\n"
            f"In the course's terms: {_one(main, topic_question, _said(dialogue))}\n"
            f"{compose.citation(main)}\n\nWhere does our picture stop fitting {analogy.idea}?"
        )
    if analogy is not None:
        return (
            f"Here's a picture for {analogy.idea}.\n\n{analogy_text(analogy)}\n\n"
            f"Now map it back: {_one(main, topic_question, _said(dialogue))}\n"
            f"{compose.citation(main)}\n\nWhich part of the picture matches which part of the idea?"
        )
    return "\n\n".join(
        [
            *compose.analogy_parts([main], [main], topic_question or question),
            "What would your picture be?",
        ]
    )


def _one(passage: Passage, question: str, said: set[str] | frozenset[str] = frozenset()) -> str:
    return " ".join(compose.pick_sentences(passage, question, 1, plain=False, skip=said))


def _hint(section: list[str], said: set[str], question: str, cite: str, focus: str) -> str:
    safe = [s for s in section if not new_numbers(s, question)]
    idea = _fresh(safe, said)[:1]
    body = " ".join(idea) if idea else f"Think about what {focus} changes."
    return (
        "Here's a hint for your question, not the answer.\n\n"
        f"{body}\n{cite}\n\n"
        "Use that to work it out: what do you get, and why?"
    )


def _result_sentences(section: list[str], question: str) -> list[str]:
    """The section's sentences that state a number the question did not give, the one that
    says most of the question's words (the one that answers it) first."""
    wanted = stem_set(question)
    results = [s for s in section if new_numbers(s, question)]
    return sorted(results, key=lambda s: -len(wanted & stem_set(s)))


def _result_numbers(section: list[str], question: str) -> set[float]:
    """The numbers the section gives as the result asked for (see `_result_sentences`)."""
    results = _result_sentences(section, question)
    return new_numbers(results[0], question) if results else set()


@dataclass(frozen=True)
class AttemptReference:
    """What an attempt is graded against: the grading request (its answer left empty) and other
    references the grader may match instead (the section's other sentences, a card's option)."""

    request: GradingRequest
    alternatives: tuple[str, ...] = ()

    def closest(self, attempt: str) -> list[str]:
        """The reference that says most of the attempt's words (the first on a tie)."""
        references = [self.request.reference_answer, *self.alternatives]
        words = stem_set(attempt)
        return sorted(references, key=lambda r: -len(words & stem_set(r)))[:1]


@cache
def _grader() -> OfflineGrader:
    return OfflineGrader()


NOT_YET = "Not quite, but your answer is a start."  # how `_attempt` answers a wrong attempt


def shown_card(reply: str) -> tuple[str, str] | None:
    """The (id, question) of the last quiz card a reply showed: the chat keeps a card's public
    form (no answer), so only those two are read."""
    for body in reversed(block_bodies(reply, "quiz")):
        try:
            card = json.loads(body)
        except ValueError:
            continue
        if isinstance(card, dict) and isinstance(card.get("question"), str):
            return str(card.get("id", "")), card["question"]
    return None


def check_question(reply: str) -> str:
    """The question a tutor reply ended on: its quiz card's, else its prose's last question."""
    card = shown_card(reply)
    if card is not None:
        return card[1]
    lines = [line.strip() for line in strip_blocks(reply).splitlines()]
    asked = [line for line in lines if line.endswith("?")]
    return re.split(r"(?<=[.!?])\s+", asked[-1])[-1] if asked else ""


def _checked_reply(dialogue: Dialogue) -> str:
    """The tutor's reply that asked what the learner is answering: the last one, or, after
    "not quite" (another try), the one that asked before it."""
    for reply in reversed(dialogue.replies):
        if not reply.startswith(NOT_YET):
            return reply
    return dialogue.last_reply


def attempt_reference(
    context: TutorContext, dialogue: Dialogue, section: list[str], topic_question: str
) -> AttemptReference:
    """What an attempt at the tutor's last question is graded against (see the module doc)."""
    checked = _checked_reply(dialogue)
    asked = check_question(checked)
    for concept in context.concepts:
        found = _bank_question(concept, asked)
        if found is not None:
            return AttemptReference(found)
    shown = shown_card(checked)
    own = {c.id: c for c in context.quiz}
    if shown is not None and shown[0] in own:
        card = own[shown[0]]
        reference = card.reference_answer or card.explanation
        right = card.options[card.correct_index]
        request = GradingRequest(
            question=card.question,
            reference_answer=reference or right,
            answer="",
            concept=card.concept or None,
        )
        return AttemptReference(request, (right,))
    # The sentences about what was asked, not any sentence of the section: "a list of changes"
    # copied from "git does not store a list of changes" answers nothing about commits.
    wanted = stem_set(f"{topic_question} {asked}")
    about = [s for s in section if wanted & stem_set(s)] or section
    ranked = sorted(about, key=lambda s: -len(wanted & stem_set(s)))
    request = GradingRequest(
        question=f"{topic_question} {asked}".strip(),
        reference_answer=ranked[0] if ranked else "",
        answer="",
    )
    return AttemptReference(request, tuple(ranked[1:]))


def _bank_question(concept: str, asked: str) -> GradingRequest | None:
    """The knowledge-base question of `concept` the check question `asked` is: the one that says
    at least `follow_ups.attempt_match` of its words (and most of them), as Practice asks it."""
    found = find_topic(concept) if asked else None
    if found is None:
        return None
    kb, topic_id = found
    words = stem_set(asked)
    share = tutor_parameters().follow_ups.attempt_match
    best, best_share = None, share
    for question in kb.topic(topic_id).questions:
        said = stem_set(question.text)
        overlap = min(len(words & said) / max(1, len(words)), len(words & said) / max(1, len(said)))
        if overlap >= best_share:
            best, best_share = question, overlap
    if best is None:
        return None
    return enrich_request(
        GradingRequest(
            question=best.text,
            reference_answer=best.reference_answer,
            answer="",
            rubric=list(best.rubric),
            concept=topic_id,
        )
    )


def _graded_right(attempt: str, reference: AttemptReference) -> bool:
    """Whether the grader calls the attempt a good answer to the reference's question."""
    if not reference.request.reference_answer.strip():
        return False
    request = reference.request.model_copy(update={"answer": attempt})
    verdict = _grader().grade_with_alternatives(request, alternatives=reference.alternatives)
    return verdict.score >= grading_parameters().feedback.good_answer_from


def _attempt(
    attempt: str,
    section: list[str],
    question: str,
    cite: str,
    focus: str,
    said: set[str],
    reference: AttemptReference,
) -> str:
    expected = _result_numbers(section, question)
    offered = numbers(attempt) - numbers(question)
    by_value = bool(expected and offered)
    right = bool(offered & expected) if by_value else _graded_right(attempt, reference)
    if right:
        # What the answer was checked against: the section's result, or the reference it fits.
        graded = reference.closest(attempt)
        checked = [s for s in section if new_numbers(s, question) & offered] if by_value else graded
        confirm = _fresh(checked or section[:1], said)
        stated = f"{' '.join(confirm[:1])}\n{cite}" if confirm else cite
        return (
            f"Yes, your answer is right.\n\n{stated}\n\n"
            f"Can you say why that follows, in your own words?"
        )
    safe = [s for s in section if not new_numbers(s, question)]
    hint = _fresh(safe, said)[:1]
    against = " ".join(hint) or f"Look again at what the section says about {focus}."
    return (
        f"{NOT_YET} Check it against this:\n\n"
        f"{against}\n{cite}\n\n"
        f"Want to try again, or shall I walk you through {focus}?"
    )


def diagram(
    context: TutorContext, question: str, passages: Sequence[Passage], dialogue: Dialogue
) -> str:
    """The lesson's diagram for what is asked (or the topic), with its section, then a question
    about it; when the course has no diagram for it, say so and describe the steps instead."""
    about = f"{question} {dialogue.topic.question if dialogue.topic else ''}"
    wanted = stem_set(about)
    for passage in on_topic(passages, dialogue):
        for block in code_blocks(passage.text):
            if block.language == "mermaid":
                return _diagram_reply(block.code.strip(), compose.citation(passage))
    found = compose.lesson_diagram(context.lesson_content, wanted)
    if found is not None:
        path, source = found
        where = " › ".join(path[1:]) or context.lesson_title
        return _diagram_reply(source, f"_(Source: {context.lesson_title} › {where})_")
    shown = tutor_parameters().follow_ups.diagram_steps
    steps = _section_sentences(list(passages))[:shown] if passages else []
    listed = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, start=1))
    cite = compose.citation(passages[0]) if passages else ""
    return (
        "The course has no diagram for this, and I won't draw one it doesn't contain. Here are "
        f"the steps in order instead:\n\n{listed}\n{cite}\n\nCan you sketch them as boxes and "
        "arrows yourself?"
    )


def _diagram_reply(source: str, cite: str) -> str:
    return (
        f"Here's the lesson's diagram of it:\n\n```mermaid\n{source}\n```\n{cite}\n\n"
        "Follow one arrow at a time: which step would you explain first, and why?"
    )


def where(context: TutorContext, topic: Topic) -> str:
    """Where the conversation's topic is taught: its lesson and section (and, from Explore,
    the lesson's address)."""
    cited = topic.cited
    section = " › ".join(cited.heading_path) or cited.lesson_title
    notes = ", in its reference notes" if cited.reference_notes else ""
    about = cited.heading.lower() or "it"
    if not context.exploration_mode and cited.lesson_title == context.lesson_title:
        place = f"It's in this lesson, **{cited.lesson_title}**{notes}: the section *{section}*."
        return f"{place}\n\nShall we keep going on {about}, or is there a part you'd like again?"
    link = topic.lesson_link
    opened = f" Open it at {link} to study it with its tutor." if link else ""
    place = f"That's from the lesson **{cited.lesson_title}**{notes}, section *{section}*.{opened}"
    return f"{place}\n\nWant to keep going on {about} here, or go there?"


SUMMARY_LEAD = "Here are the key points of"


def summary(
    context: TutorContext,
    passages: Sequence[Passage],
    *,
    points: int | None = None,
    history: Sequence[str] = (),
) -> str:
    """The lesson's key takeaways (its "Key takeaways" section), or the first point of each of
    its main sections; at most `points` of them (`follow_ups.max_points` by default)."""
    q = tutor_parameters()
    if points is None:
        points = q.follow_ups.max_points
    sections = compose.lesson_sections(context.lesson_content)
    title = context.lesson_title or (passages[0].lesson_title if passages else "the lesson")
    takeaways = [
        (path, body)
        for path, body in sections
        if path and re.match(r"key takeaways|summary", path[-1], re.I)
    ]
    if takeaways:
        path, found = takeaways[0]
        source = f"_(Source: {title} › {path[-1]})_"
    else:
        found = [body[0] for path, body in sections if len(path) == 2 and body]
        source = f"_(Source: {title})_"
    listed = "\n".join(f"- {p}" for p in found[:points])
    # The rhythm's check after a recap: one of the lesson's own quiz cards not shown yet.
    fit = q.replies.quiz_loose_fit
    card = compose.pick_quiz(context, stem_set(listed), list(history), force=False, fit=fit)
    check = (
        compose.quiz_text(card)
        if card is not None
        else "Which of these would you like to test yourself on?"
    )
    return f"{SUMMARY_LEAD} **{title}**:\n\n{listed}\n{source}\n\n{check}"
