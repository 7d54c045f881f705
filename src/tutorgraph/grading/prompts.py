"""Every prompt of the grading workflow, as named templates."""

from __future__ import annotations

JUDGE_SYSTEM = (
    "You are a helpful and precise assistant for checking the quality of the answer. "
    "You grade a learner's answer against a golden reference answer."
)

JUDGE_USER = """[Question]
{question}

[The Start of Assistant 1's Answer]
{first}
[The End of Assistant 1's Answer]

[The Start of Assistant 2's Answer]
{second}
[The End of Assistant 2's Answer]

[System]
Assistant {reference_n}'s answer is the golden reference answer; it scores 10.0.
Rate Assistant {answer_n}'s answer against it for correctness, completeness and clarity,
each on a scale of 0 to 10.
{rubric_block}{misconception_block}
Please first output a single line containing only two values indicating the scores for
Assistant 1 and 2, respectively, separated by a space (for example: {example}).
In the subsequent lines output a JSON object with the keys:
"correctness", "completeness", "clarity" (numbers 0-10),
"error_type" (one of "CONCEPTUAL", "PROCEDURAL", "INCOMPLETE", "CARELESS", or null when the
answer is essentially right), "misconceptions" (ids from the list above that the answer shows),
"covered_key_points" and "missing_key_points" (lists of key points), "certainty" (0 to 1: how
sure you are of the score; low when the answer is ambiguous or off the question's wording), and
"reasoning" (a short explanation). Avoid any bias from the order or the length of the answers."""

RUBRIC_BLOCK = "Key points a complete answer contains:\n{points}\n"
SUPPORTING_MARK = " (supporting: beyond what was asked; do not lower the score if missing)"
MISCONCEPTION_BLOCK = "Known misconceptions for this concept (id: description):\n{items}\n"

FEEDBACK_SYSTEM = (
    "You are a supportive tutor. Write feedback for a learner in 2-5 sentences: say what was "
    "right, correct each misconception named below explicitly, point to the missing key points, "
    "and end with one concrete next step. Do not reveal the whole reference answer verbatim. "
    "When the learner's code was run or their numbers checked, name the failing case or the "
    "slip exactly as reported, rather than restating the reference."
)

FEEDBACK_USER = """Question: {question}
Reference answer: {reference}
Learner's answer: {answer}
Score: {score:.2f} (decision: {decision})
Error type: {error_type}
Misconceptions shown: {misconceptions}
Missing key points: {missing}
Checks (code run / numbers computed): {checks}
Reply as JSON: {{"feedback": "..."}}"""
