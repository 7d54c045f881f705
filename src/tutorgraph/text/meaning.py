"""Does an answer say an idea? Phrasing matching with a paraphrase lexicon, negation, opposites,
numbers and code tokens: what the offline grader uses to credit key points and spot misconceptions.

A text is analysed once (`Analysis.of`): words are lower-cased and stemmed, the lexicon's phrases
are replaced by their group's canonical form ("modifies" and "mutates" both become "chang"; an
entry that needs context, such as "processes" for multiprocessing, only in a text that has one of
its context words), stopwords are dropped (not the words of order: "before", "after", "above",
"below"), and every remaining token remembers whether a negation ("not", "never", "doesn't",
"rather than", "instead of"...) governs it within its clause. Numbers are tokens too
("0.73", "1e-3", "16,777,216") and compare numerically; code operators (`==`, `+=`, `**`...)
are tokens. A complexity is one token in any spelling: "O(n^2)", "O(n ** 2)", "O(n²)", "n^2",
"n squared" and "quadratic" (not "quadratic loss") all read "o(n^2)", "constant time" reads
"o(1)", "linear time" "o(n)"; two complexities match only when equal.

A *phrasing* (a key point, one of its accepted phrasings, or a misconception cue) is found in an
answer when its content tokens occur close together (`find`):
- a key-point phrasing's tokens may come in any order within a window of the answer (so a long
  answer does not collect a point from words scattered over many sentences);
- a cue's words must come in order, with only function words (at most four) between two of
  them, compared verbatim (all words but articles, unstemmed; cues are
  specific wording).
A token counts when it is equal, one typo away (5+ letters), a stem the stemmer left apart
("alia" / "alias"; not for cues: "cold" is not "colder"), or the same number to the precision
the less precise side gives and within `number_tolerance` of it ("0.73" is "0.7311"; "0.1" is
not "0.05"). Maths symbols are spelled out before anything else ("−0.5" is -0.5, "σ" is
"sigmoid", "≪" is "<<"). A phrasing whose words are almost all the question's ("rebinds items
locally" for a question about `items = ...`) needs all its words, question words included; one
reduced to a single ordinary word ("random") is not *specific* and credits nothing.
The match is *contradicted* when a token the phrasing asserts is negated in the answer, or the
answer uses its opposite ("mutable" for "immutable"; a comparative's, "more" for "fewer", only
against a phrasing of `compared_min_tokens` tokens or more) instead, in a window that says at least
`contradiction_min_share` of the phrasing (one shared word is not the answer talking about it; a
caller may ask for more, `denial_share`). A
token the phrasing itself negates ("identity, not equality") is optional and never contradicts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from pathlib import Path

from tutorgraph.text.lexicon import LexiconFormatError, LexiconGroup, read_groups
from tutorgraph.text.negation import NEGATION_SCOPE, is_negation
from tutorgraph.text.opposites import COMPARATIVES, OPPOSITES
from tutorgraph.text.parameters import text_parameters
from tutorgraph.text.stemming import idea_stem, near
from tutorgraph.text.stopwords import ARTICLES, FILLERS, IDEA_STOPWORDS
from tutorgraph.text.tokens import ascii_fold

LEXICON_PATH = Path(__file__).with_name("lexicon.yaml")

_TOKEN = re.compile(
    r"(?P<bigo>(?<![a-z_\d])o\([^()]{1,30}\))"
    r"|(?P<num>(?<![a-z_\d])-?(?:\d{1,3}(?:,\d{3})+(?![\d,])|\d+)(?:\.\d+)?(?:e-?\d+)?%?)"
    r"|(?P<op>==|!=|<=|>=|\+=|-=|\*=|/=|\*\*|//|:=|->|=)"
    r"|(?P<word>[a-z_][a-z0-9_]*(?:'[a-z]+)?|\d+[a-z_]\w*)"
    r"|(?P<stop>[.;:!?()]|,\s|\s[-–—]\s|\n)"
)
# Words that start a new clause: a negation before them does not reach past them.
_CLAUSE_WORDS = frozenset(
    {"but", "whereas", "however", "although", "though", "so", "because", "since", "therefore"}
    | {"which", "while", "then"}
)
_NEGATORS_PHRASES: tuple[tuple[str, ...], ...] = (
    ("rather", "than"),
    ("instead", "of"),
    ("as", "opposed", "to"),
    ("unlike",),
    ("not",),
)
ASSIGNMENT = "bind"  # `b = a` says what "b is bound to a" says (the lexicon's group for bind)


# Complexity said in words or without the O, as the O-notation it means (`_complexity`).
_COMPLEXITY_WORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bconstant[- ]time\b"), "o(1)"),
    (re.compile(r"\blinear[- ]time\b"), "o(n)"),
    (re.compile(r"\blog(?:arithmic)?[- ]time\b"), "o(log n)"),
    (
        re.compile(r"\bquadratic(?:[- ]time)?\b(?![- ](?:loss|penalty|form|function|cost|term))"),
        "o(n^2)",
    ),
    (re.compile(r"\bn[- ]squared\b"), "o(n^2)"),
    (re.compile(r"(?<![\w(^*])n ?(?:\^|\*\*) ?2(?![\d.])"), "o(n^2)"),
)
_SUPERSCRIPTS = str.maketrans({"\u00b2": "^2", "\u00b3": "^3"})


# Python's "built-in" is one word: read as "built" it would be the lexicon's "create".
_BUILTIN = re.compile(r"\bbuilt-ins?\b", re.IGNORECASE)


# A line break inside a sentence of prose pasted from an editor or an e-mail ("the coroutines
# execute at\nthe same time") is a space, not the end of a statement as it is in code: a long,
# unindented line ending in a word or a comma, with no `=` or `#` (code's assignments and
# comments), followed by a line starting with a small letter.
@cache
def _soft_wrap() -> re.Pattern[str]:
    """The wrapped line break described above, for lines of `soft_wrap_from` characters."""
    wrap_from = text_parameters().matching.soft_wrap_from
    return re.compile(rf"(?m)^(?=[^\s=#])([^=#\n]{{{wrap_from - 1},}}[a-z,])\n(?=[a-z])")


def _fold(text: str) -> str:
    text = _soft_wrap().sub(r"\1 ", text)
    folded = ascii_fold(text.replace("`", " ").translate(_SUPERSCRIPTS))
    folded = _BUILTIN.sub("builtin", folded)
    for pattern, notation in _COMPLEXITY_WORDS:
        folded = pattern.sub(notation, folded)
    return folded


def _complexity(raw: str) -> str:
    """One spelling of an O-notation: "O(n ** 2)", "O(n^2)", "O(n²)" all read "o(n^2)"."""
    return re.sub(r"[\s*]", "", raw.replace("**", "^"))


def _number(token: str) -> str | None:
    """A canonical spelling of a numeric token ("0.730" -> "0.73", "50%" -> "0.5"), else None."""
    token = token.replace(",", "")  # thousands: "16,777,216"
    try:
        value = float(token[:-1]) / 100 if token.endswith("%") else float(token)
    except ValueError:
        return None
    if math.isnan(value) or math.isinf(value):
        return None
    return format(value, ".6g")


@dataclass(frozen=True, eq=False)  # hashed by identity: analyses are cached per lexicon
class Lexicon:
    """Stemmed phrases (tuples of word stems) mapped to their group's canonical token. A phrase
    of `conditional` is read so only in a text that has one of its context stems; read plainly,
    a single word of those may still mean its group's idea (`senses`: "process" may be
    multiprocessing), so a phrasing that says the plain word finds an answer that says the idea."""

    phrases: dict[tuple[str, ...], str]
    longest: int
    lengths: dict[str, tuple[int, ...]]  # first stem -> lengths of its phrases, longest first
    conditional: dict[tuple[str, ...], tuple[str, frozenset[str]]] = field(default_factory=dict)
    senses: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def from_groups(cls, groups: Iterable[LexiconGroup]) -> Lexicon:
        """Raises ValueError on an entry (as stemmed) listed in two groups."""
        phrases: dict[tuple[str, ...], str] = {}
        conditional: dict[tuple[str, ...], tuple[str, frozenset[str]]] = {}
        senses: dict[str, set[str]] = {}
        for group in groups:
            canonical = "_".join(stemmed(group.canonical))
            context = frozenset(idea_stem(w) for w in group.when.context) if group.when else None
            for entry in group.entries:
                key = stemmed(entry)
                if not key:
                    continue
                other = phrases.get(key) or conditional.get(key, ("",))[0]
                if other and other != canonical:
                    raise ValueError(
                        f"lexicon: '{' '.join(key)}' is in two groups ({other} and {canonical})"
                    )
                if context is None or not group.conditional(entry):
                    phrases[key] = canonical
                elif key not in phrases:
                    conditional[key] = (canonical, context)
                    if len(key) == 1 and key[0] != canonical:
                        senses.setdefault(key[0], set()).add(canonical)
        lengths: dict[str, set[int]] = {}
        for phrase in [*phrases, *conditional]:
            lengths.setdefault(phrase[0], set()).add(len(phrase))
        return cls(
            phrases=phrases,
            longest=max((len(p) for p in [*phrases, *conditional]), default=1),
            lengths={k: tuple(sorted(v, reverse=True)) for k, v in lengths.items()},
            conditional=conditional,
            senses={k: frozenset(v) for k, v in senses.items()},
        )

    def readings(self, word: str) -> frozenset[str]:
        """What a one-word entry (a stem) may be read as: its group's canonical, or, for a word
        that needs context, itself and the idea it names in context."""
        return frozenset({self.phrases.get((word,), word)} | self.senses.get(word, frozenset()))


def stemmed(entry: str) -> tuple[str, ...]:
    """A lexicon entry as the analysis compares it: its words' stems."""
    return tuple(idea_stem(w) for w in _raw_words(entry))


def _raw_words(text: str) -> list[str]:
    return [m.group(0) for m in _TOKEN.finditer(_fold(text)) if m.lastgroup != "stop"]


def load_lexicon(path: Path = LEXICON_PATH) -> Lexicon:
    """The lexicon file's groups (see `text/lexicon.py` for its format; LexiconFormatError, a
    ValueError, on a malformed file or an entry listed in two groups)."""
    try:
        return Lexicon.from_groups(read_groups(path))
    except LexiconFormatError:
        raise
    except ValueError as exc:
        raise LexiconFormatError(f"{path}: {exc}") from None


default_lexicon = cache(load_lexicon)


@dataclass(frozen=True)
class Token:
    text: str
    negated: bool
    position: int  # index among the text's content tokens
    number: str | None = None
    stopword: bool = False  # kept only in verbatim analyses
    # The ideas a word read plainly may still name: its text had no context word to choose
    # ("process" with no thread or GIL near may be multiprocessing, `Lexicon.senses`).
    also: frozenset[str] = frozenset()


@dataclass(frozen=True, eq=False)  # cached_property needs a __dict__; identity is enough
class Analysis:
    """A text's content tokens, canonicalised, each with its negation and position."""

    tokens: tuple[Token, ...]

    @classmethod
    def of(cls, text: str, lexicon: Lexicon | None = None, *, verbatim: bool = False) -> Analysis:
        """`verbatim` keeps every word but articles, unstemmed ("sorted" is not "sort"), with
        the lexicon's phrases still canonical: how misconception cues and answers are compared."""
        return _analyse(text, lexicon or default_lexicon(), verbatim)

    @property
    def texts(self) -> frozenset[str]:
        return frozenset(t.text for t in self.tokens)

    @cached_property
    def by_text(self) -> dict[str, tuple[Token, ...]]:
        """The tokens of each distinct text, in order: what `find` looks candidates up in."""
        found: dict[str, list[Token]] = {}
        for token in self.tokens:
            found.setdefault(token.text, []).append(token)
        return {text: tuple(tokens) for text, tokens in found.items()}

    @cached_property
    def _matching(
        self,
    ) -> dict[tuple[str, str | None, bool, frozenset[str]], tuple[Token, ...]]:
        """`candidates` already looked up: an answer is compared with every cue and phrasing
        of its topic, which share most of their words."""
        return {}

    def candidates(self, want: Token, *, strict: bool = False) -> tuple[Token, ...]:
        """This text's tokens that match `want`, found through its distinct texts."""
        key = (want.text, want.number, strict, want.also)
        found = self._matching.get(key)
        if found is None:
            found = tuple(
                token
                for text, tokens in self.by_text.items()
                if text in want.also
                or _texts_match(want.text, text, tokens[0].number, want.number, strict)
                for token in tokens
            )
            self._matching[key] = found
        return found

    def __len__(self) -> int:
        return len(self.tokens)


@lru_cache(maxsize=65536)  # the knowledge base's phrasings and cues are a few thousand texts
def _analyse(text: str, lexicon: Lexicon, verbatim: bool) -> Analysis:
    # (kind, raw) items with clause stops kept, so a negation never crosses a clause.
    items: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(_fold(text)):
        kind = match.lastgroup or "word"
        raw = match.group(0)
        if kind == "word" and raw in _CLAUSE_WORDS:
            kind = "stop"
        items.append((kind, raw))
    # The text's word stems: what an entry that needs context looks for (`Lexicon.conditional`).
    said = frozenset(idea_stem(w) for k, w in items if k == "word") if lexicon.conditional else None
    tokens: list[Token] = []
    negation_left = 0
    i = 0
    while i < len(items):
        kind, raw = items[i]
        if kind == "stop":
            negation_left = 0
            i += 1
            continue
        if kind == "num":
            tokens.append(Token(raw, negation_left > 0, len(tokens), _number(raw)))
            negation_left = max(0, negation_left - 1)
            i += 1
            continue
        if kind == "bigo":
            tokens.append(Token(_complexity(raw), negation_left > 0, len(tokens)))
            i += 1
            continue
        if kind == "op":
            text = ASSIGNMENT if raw == "=" else raw
            tokens.append(Token(text, negation_left > 0, len(tokens)))
            i += 1
            continue
        # Lexicon phrases first: some hold a negation themselves ("not hashable", "no order").
        phrase_len, canonical = _lexicon_match(items, i, lexicon, said)
        also: frozenset[str] = frozenset()
        if not phrase_len:
            negator = _negator_at(items, i)
            if negator:
                negation_left = NEGATION_SCOPE
                i += negator
                continue
            i += 1
            if verbatim:
                if raw in ARTICLES:
                    continue
                if raw in IDEA_STOPWORDS or raw in FILLERS:
                    tokens.append(Token(raw, negation_left > 0, len(tokens), stopword=True))
                    continue
                canonical = raw
            elif raw in IDEA_STOPWORDS or raw in FILLERS:
                continue
            else:
                canonical = idea_stem(raw)
            also = lexicon.senses.get(idea_stem(raw), also)
        else:
            i += phrase_len
        tokens.append(Token(canonical, negation_left > 0, len(tokens), also=also))
        negation_left = max(0, negation_left - 1)
    return Analysis(tuple(tokens))


_NEGATOR_STARTS = frozenset(phrase[0] for phrase in _NEGATORS_PHRASES)


def _negator_at(items: list[tuple[str, str]], i: int) -> int:
    """How many items a negation starting at `i` spans (0: none)."""
    kind, word = items[i]
    if kind != "word":
        return 0
    if is_negation(word):
        return 1
    if word not in _NEGATOR_STARTS:
        return 0
    for phrase in _NEGATORS_PHRASES:
        span = items[i : i + len(phrase)]
        if len(span) == len(phrase) and all(
            k == "word" and w == p for (k, w), p in zip(span, phrase, strict=True)
        ):
            return len(phrase)
    return 0


def _lexicon_match(
    items: list[tuple[str, str]], i: int, lexicon: Lexicon, said: frozenset[str] | None
) -> tuple[int, str]:
    """The longest lexicon phrase starting at item `i`: (number of items, canonical token). A
    phrase that needs context counts only when the text's stems (`said`) hold a context word."""
    if items[i][0] != "word":
        return 0, ""
    for length in lexicon.lengths.get(idea_stem(items[i][1]), ()):
        span = items[i : i + length]
        if len(span) < length or any(kind != "word" for kind, _ in span):
            continue
        key = tuple(idea_stem(word) for _, word in span)
        canonical = lexicon.phrases.get(key)
        if canonical is None and key in lexicon.conditional:
            sense, context = lexicon.conditional[key]
            canonical = sense if said and not context.isdisjoint(said) else None
        if canonical is not None:
            return length, canonical
    return 0, ""


def _same_number(a: str, b: str) -> bool:
    """Equal to the precision of the less precise spelling ("0.73" vs "0.7311" match)."""
    x, y = float(a), float(b)
    if x == y:
        return True
    decimals = min(_decimals(a), _decimals(b))
    tolerance = text_parameters().matching.number_tolerance  # "0.1" is not "0.05"
    close = abs(x - y) <= tolerance * max(abs(x), abs(y))
    return close and decimals >= 1 and round(x, decimals) == round(y, decimals)


def _decimals(number: str) -> int:
    mantissa = number.split("e")[0]
    return len(mantissa.split(".")[1]) if "." in mantissa else 0


@lru_cache(maxsize=262144)
def _texts_match(
    want: str, have: str, have_number: str | None, want_number: str | None, strict: bool
) -> bool:
    if want_number is not None or have_number is not None:
        return (
            want_number is not None
            and have_number is not None
            and _same_number(want_number, have_number)
        )
    if want.startswith("o(") or have.startswith("o("):  # O(n) is not O(n^2): no typo slack
        return want == have
    if near(want, have):
        return True
    return not strict and _stem_prefix(want, have)


def _token_matches(want: Token, have: Token, *, strict: bool = False) -> bool:
    if want.number is not None or have.number is not None:
        return (
            want.number is not None
            and have.number is not None
            and _same_number(want.number, have.number)
        )
    if near(want.text, have.text) or have.text in want.also:
        return True
    return not strict and _stem_prefix(want.text, have.text)


def _stem_prefix(a: str, b: str) -> bool:
    """Stems the stemmer left apart ("alia" / "alias", "lazi" / "lazili"): one is a prefix of the
    other, at least `stem_prefix_min` (4) letters long, at most `stem_prefix_extra` (2) letters
    shorter."""
    p = text_parameters().matching
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return (
        len(short) >= p.stem_prefix_min
        and len(long_) - len(short) <= p.stem_prefix_extra
        and long_.startswith(short)
    )


@dataclass(frozen=True)
class Match:
    """How much of a phrasing an answer says, and whether it says the opposite."""

    share: float  # of the phrasing's required tokens found together
    contradicted: bool
    needed: int
    specific: bool = True  # False: one ordinary word ("random"), too little to say an idea


NO_MATCH = Match(share=0.0, contradicted=False, needed=0)


def _specific(required: Sequence[Token]) -> bool:
    """Two tokens or more, or one that names something: a number, a code token or operator, or a
    lexicon concept of several words ("low rank")."""
    if len(required) != 1:
        return True
    token = required[0]
    return token.number is not None or not token.text.isalpha()


def find(
    phrasing: Analysis,
    answer: Analysis,
    *,
    ignore: frozenset[str] = frozenset(),
    ordered: bool = False,
    denial_share: float | None = None,
) -> Match:
    """How well `answer` says `phrasing` (see the module doc). Tokens in `ignore` (the question's)
    are not required unless nothing else is left. `denial_share` defaults to
    `contradiction_min_share`."""
    p = text_parameters().matching
    if denial_share is None:
        denial_share = p.contradiction_min_share
    everything = _distinct(list(phrasing.tokens))
    required = _distinct([t for t in phrasing.tokens if t.text not in ignore])
    if len(required) < min(p.min_required, len(everything)):
        # "rebinds items locally" for a question about `items = ...`: "local" alone says nothing
        required = everything
    if not required or not answer.tokens:
        return NO_MATCH
    if ordered:
        return _find_ordered(required, answer)
    specific = _specific(required)
    window = max(p.unordered_window_min, p.unordered_window_per_token * len(required))
    denial = all(t.negated for t in required)  # "no copy is made": saying "a copy" contradicts
    # Per required token, where the answer says it: (position, agrees, contradicts).
    hits: list[list[tuple[int, bool, bool]]] = []
    for want in required:
        found: list[tuple[int, bool, bool]] = []
        for have in answer.candidates(want):
            agrees = have.negated == want.negated
            # Denying what the phrasing asserts contradicts it; asserting what the phrasing
            # denies ("identity, not equality" vs "== compares equality") is only no match,
            # unless denying is all the phrasing does.
            found.append((have.position, agrees, not agrees and (denial or not want.negated)))
        if not want.negated and not (
            want.text in COMPARATIVES and len(everything) < p.compared_min_tokens
        ):
            for opposite in _opposites(want.text):
                found += [(t.position, False, True) for t in answer.by_text.get(opposite, ())]
        hits.append(found)
    # The window that says the most of the phrasing, either way, is where the answer "talks
    # about" it: its agreeing share is the credit; any denial there contradicts.
    best = NO_MATCH
    best_key = (0.0, 0.0, False)
    starts = sorted({position for found in hits for position, _, _ in found})
    for start in starts:
        agreeing = mentioned = 0
        contradicted = False
        for found in hits:
            inside = [(a, c) for p, a, c in found if start <= p < start + window]
            if any(agrees for agrees, _ in inside):
                agreeing += 1
                mentioned += 1
            elif any(contra for _, contra in inside):
                contradicted = True
                mentioned += 1
        # A denial counts where the answer talks about the phrasing, not over one shared word.
        contradicted = contradicted and mentioned / len(required) >= denial_share
        key = (mentioned / len(required), agreeing / len(required), not contradicted)
        if key > best_key:
            best_key = key
            best = Match(
                share=key[1], contradicted=contradicted, needed=len(required), specific=specific
            )
    return best


def _distinct(tokens: list[Token]) -> list[Token]:
    seen: set[tuple[str, bool]] = set()
    out = []
    for token in tokens:
        if (token.text, token.negated) not in seen:
            seen.add((token.text, token.negated))
            out.append(token)
    return out


def _find_ordered(required: list[Token], answer: Analysis) -> Match:
    """The words in order; between two of them at most `ordered_gap` other content words and
    `ordered_span` - 1 words in all; contradicted when a polarity differs."""
    tokens = answer.tokens
    for first in sorted(answer.candidates(required[0], strict=True), key=lambda t: t.position):
        position = first.position
        flipped = first.negated != required[0].negated
        for want in required[1:]:
            nxt = _next_match(want, tokens, position)
            if nxt is None:
                break
            position = nxt
            flipped = flipped or tokens[nxt].negated != want.negated
        else:
            return Match(share=1.0, contradicted=flipped, needed=len(required))
    return NO_MATCH


def _next_match(want: Token, tokens: tuple[Token, ...], after: int) -> int | None:
    p = text_parameters().matching
    skipped_content = 0
    for j in range(after + 1, min(len(tokens), after + 1 + p.ordered_span)):
        if _token_matches(want, tokens[j], strict=True):
            return j
        if not tokens[j].stopword:
            skipped_content += 1
            if skipped_content > p.ordered_gap:
                return None
    return None


@cache
def _opposite_table() -> dict[str, frozenset[str]]:
    lexicon = default_lexicon()
    table: dict[str, set[str]] = {}
    for left, rights in OPPOSITES.items():
        for right in rights:
            for a in lexicon.readings(left):
                for b in lexicon.readings(right) - {a}:
                    table.setdefault(a, set()).add(b)
                    table.setdefault(b, set()).add(a)
    return {k: frozenset(v) for k, v in table.items()}


def _opposites(token: str) -> frozenset[str]:
    return _opposite_table().get(token, frozenset())
