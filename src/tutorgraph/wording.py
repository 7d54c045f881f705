"""How counts read in user-facing sentences: "1 gap", "3 gaps", never "3 gap(s)"."""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """`number` and the noun in the right number (`plural` when adding "s" is wrong)."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


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
