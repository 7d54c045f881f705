"""What `tutorgraph kb lexicon` checks in a paraphrase lexicon beyond its format: that reading it
changes only what it should. An entry in two groups makes the reading depend on the order of the
file; an everyday word ("lock", "unit", "process") read as a Python or machine-learning idea
everywhere turns "pin exact versions in a lock file" into `pin pin pin` and "a unit of work" into
a neuron; and a group whose example is not read as its idea, or whose counterexample is, does not
do what its author meant. Every problem is reported, each with its group."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tutorgraph.text.lexicon import LexiconFormatError, LexiconGroup, read_groups
from tutorgraph.text.meaning import LEXICON_PATH, Analysis, Lexicon, find, stemmed
from tutorgraph.text.stemming import idea_stem
from tutorgraph.text.stopwords import ANSWER_STOPWORDS

EVERYDAY_WORDS_PATH = Path(__file__).with_name("everyday_words.txt")


@dataclass(frozen=True)
class LexiconCheck:
    path: Path
    groups: int
    entries: int
    in_context: int  # entries read in their group's sense only near a context word
    problems: tuple[str, ...]
    examples_checked: bool = True  # not while an entry sits in two groups


def check_lexicon(
    path: Path = LEXICON_PATH, *, everyday: frozenset[str] | None = None
) -> LexiconCheck:
    """Every problem of the lexicon file at `path` (none: it may ship)."""
    try:
        groups = read_groups(path)
    except LexiconFormatError as exc:
        return LexiconCheck(path, 0, 0, 0, tuple(str(exc).splitlines()), examples_checked=False)
    words = everyday_forms() if everyday is None else everyday
    stems = frozenset(idea_stem(word) for word in words)
    problems = [
        f"{path}: {_name(index, group)}: {problem}"
        for index, group in enumerate(groups)
        for problem in _group_problems(group, words, stems)
    ]
    collisions = [f"{path}: {problem}" for problem in _collisions(groups)]
    if not collisions:  # examples are read with the file's own lexicon, which needs no collision
        lexicon = Lexicon.from_groups(groups)
        problems += [
            f"{path}: {_name(index, group)}: {problem}"
            for index, group in enumerate(groups)
            for problem in _example_problems(group, lexicon)
        ]
    return LexiconCheck(
        path=path,
        groups=len(groups),
        entries=sum(len(g.entries) for g in groups),
        in_context=sum(len(g.when.entries) for g in groups if g.when),
        problems=tuple(collisions + problems),
        examples_checked=not collisions,
    )


def _name(index: int, group: LexiconGroup) -> str:
    return f"group {index + 1} ({group.canonical})"


def _group_problems(
    group: LexiconGroup, everyday: frozenset[str], everyday_stems: frozenset[str]
) -> Iterable[str]:
    first = stemmed(group.canonical)
    if all(stemmed(entry) == first for entry in group.entries):
        yield "every entry stems like the first: the group changes nothing, leave it out"
    for entry in group.entries:
        key = stemmed(entry)
        if not key:
            yield f"entry {entry!r} has no words"
            continue
        conditional = group.conditional(entry)
        if conditional and key == ("_".join(first),):
            yield (
                f"{entry!r} reads as {group.canonical!r} with or without context, so `when` "
                "changes nothing: name the group by an entry that is not an everyday word"
            )
        if group.domain == "general" or conditional:
            continue
        # Besides the word itself, an entry the stemmer makes an everyday word's stem
        # ("regularization" -> "regular"); one that stems like the first adds no reading.
        if _one_word(entry) in everyday or (
            key != first and len(key) == 1 and key[0] in everyday_stems
        ):
            yield (
                f"{entry!r} is (or stems like) an everyday word: a {group.domain} group reads "
                "it as its idea only under `when` (with the context words that choose that "
                "sense); or write the idea as a phrase, or leave the word out"
            )
    if group.when:
        used = {w for e in group.when.entries for w in stemmed(e)}
        if not any(used & set(stemmed(text)) for text in group.counterexample):
            yield (
                "a counterexample must use one of when.entries without a context word "
                f"({', '.join(group.when.entries)})"
            )


def _collisions(groups: Sequence[LexiconGroup]) -> Iterable[str]:
    """An entry (as stemmed) in two groups, or needing context in one place and not another."""
    owner: dict[tuple[str, ...], tuple[int, LexiconGroup, bool]] = {}
    for index, group in enumerate(groups):
        for entry in group.entries:
            key = stemmed(entry)
            if not key:
                continue
            conditional = group.conditional(entry)
            if key not in owner:
                owner[key] = (index, group, conditional)
                continue
            first_index, first, first_conditional = owner[key]
            if first_index != index:
                yield (
                    f"{entry!r} is in two groups: {_name(first_index, first)} and "
                    f"{_name(index, group)} (an entry names one idea)"
                )
            elif conditional != first_conditional:
                yield (
                    f"{_name(index, group)}: {entry!r} reads like another entry of the group, "
                    "so list both under when.entries or neither"
                )


def _example_problems(group: LexiconGroup, lexicon: Lexicon) -> Iterable[str]:
    idea = Analysis.of(group.canonical, lexicon)
    first = stemmed(group.canonical)
    others = {key for key in map(stemmed, group.entries[1:]) if key and key != first}
    for example in group.example:
        if not any(_contains(stemmed(example), key) for key in others):
            yield f"example {example!r} uses no entry but the first: show another one read as it"
            continue
        match = find(idea, Analysis.of(example, lexicon))
        if match.share < 1.0 or match.contradicted:
            said = " ".join(t.text for t in Analysis.of(example, lexicon).tokens)
            yield f"example {example!r} is not read as {group.canonical!r} (it reads: {said})"
    for counterexample in group.counterexample:
        if find(idea, Analysis.of(counterexample, lexicon)).share > 0.0:
            said = " ".join(t.text for t in Analysis.of(counterexample, lexicon).tokens)
            yield (
                f"counterexample {counterexample!r} is read as {group.canonical!r} "
                f"(it reads: {said})"
            )


def _contains(words: tuple[str, ...], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(words[i : i + n] == phrase for i in range(len(words) - n + 1))


def _one_word(entry: str) -> str:
    """The entry if it is one word (lower-case), else ""."""
    words = entry.lower().split()
    return words[0] if len(words) == 1 else ""


@cache
def everyday_forms(path: Path = EVERYDAY_WORDS_PATH) -> frozenset[str]:
    """The everyday words (with the function words; negations are the negation rules' business,
    which a lexicon entry overrides on purpose) and their inflected forms: "lock", "locks",
    "locked", "locking"."""
    listed = {
        word
        for line in path.read_text(encoding="utf-8").splitlines()
        if not line.startswith("#")
        for word in line.split()
    }
    words = listed | ANSWER_STOPWORDS
    return frozenset(form for word in words for form in inflections(word))


def inflections(word: str) -> set[str]:
    """A word's regular inflections: plural and third person, past, -ing ("fit": "fits",
    "fitted", "fitting"; "freeze": "freezes", "freezing"; "library": "libraries")."""
    forms = {word, f"{word}s", f"{word}es", f"{word}ed", f"{word}ing"}
    if word.endswith("e"):
        forms |= {f"{word}d", f"{word[:-1]}ing"}
    if word.endswith("y"):
        forms |= {f"{word[:-1]}ies", f"{word[:-1]}ied"}
    if (
        len(word) >= 3
        and word[-1] not in "aeiouwxy"
        and word[-2] in "aeiou"
        and word[-3] not in "aeiou"
    ):
        forms |= {f"{word}{word[-1]}ed", f"{word}{word[-1]}ing"}
    return forms
