"""How numbers and terms read in user-facing sentences: "1 gap", "3 gaps" (never "3 gap(s)"),
a share as a whole percentage, and one sentence for each term several pages show."""

from __future__ import annotations

import math
import re


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """`number` and the noun in the right number (`plural` when adding "s" is wrong)."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def percent(share: float) -> str:
    """A share in [0, 1] (mastery, a score, readiness) as a whole percentage, rounded down, so
    that a number short of a line never reads as having reached it (0.695 against 0.7 is "69%",
    not "70%"). Every page and message formats shares with this one function."""
    return f"{math.floor(round(share * 100, 6))}%"


# One sentence each for the terms a learner meets on several pages; every page that shows a Bloom
# level or the mastery estimate explains it with these words (templates: `explain.<name>`).
EXPLAIN = {
    "bloom": (
        "Levels of understanding, from remembering a fact up to creating something new with it: "
        "remember, understand, apply, analyze, evaluate, create."
    ),
    "mastery": (
        "Mastery is our estimate, from 0 to 100%, of how well you know a concept, moved a step "
        "towards each graded answer's score (a typed answer moves it more than a multiple-choice "
        "pick)."
    ),
    "bkt": (
        "Knowledge tracing estimates the chance that you know a concept from the pattern of your "
        "right and wrong answers, allowing for lucky guesses and slips."
    ),
}

BLOOM_LEVEL = {
    "remember": "recall the fact or the term",
    "understand": "explain it in your own words",
    "apply": "use it on a new problem",
    "analyze": "take a case apart and see why it behaves as it does",
    "evaluate": "judge between options and defend the choice",
    "create": "design something new with it",
}


# The verbs the knowledge base's misconception descriptions open with, as the -ing form that
# reads after "a common mistake:" ("Believes a variable is a box" -> "believing a variable ...").
_GERUNDS = {
    "believes": "believing",
    "thinks": "thinking",
    "assumes": "assuming",
    "expects": "expecting",
    "treats": "treating",
    "confuses": "confusing",
    "mistakes": "mistaking",
    "equates": "equating",
    "applies": "applying",
    "uses": "using",
    "models": "modelling",
    "misreads": "misreading",
    "reads": "reading",
    "misstates": "misstating",
    "misunderstands": "misunderstanding",
    "interprets": "interpreting",
    "ranks": "ranking",
    "fits": "fitting",
    "compares": "comparing",
    "draws": "drawing",
    "catches": "catching",
    "ignores": "ignoring",
    "forgets": "forgetting",
    "overlooks": "overlooking",
    "chooses": "choosing",
    "calls": "calling",
    "puts": "putting",
    "writes": "writing",
    "sets": "setting",
    "relies": "relying",
}
_DOES_NOT = re.compile(r"^does not (\w+)\b", re.IGNORECASE)


def mistake(description: str) -> str:
    """A misconception's description as the mistake it names, in its own words: "Believes X."
    -> "believing X."; "Does not realise X" -> "not realising X"; any other opening is kept."""
    text = " ".join(description.split()).rstrip(".") + "."
    first, _, rest = text.partition(" ")
    gerund = _GERUNDS.get(first.lower())
    if gerund is not None:
        return f"{gerund} {rest}"
    negated = _DOES_NOT.match(text)
    if negated is not None:
        verb = negated.group(1).lower()
        base = verb[:-1] if verb.endswith("e") and not verb.endswith("ee") else verb
        return f"not {base}ing{text[negated.end() :]}"
    return text if first.isupper() else text[0].lower() + text[1:]  # "KL penalty ..." stays
