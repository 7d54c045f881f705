"""Answer quality (the signal `decide` reads after each answer) and the offline scorecard.

Answer quality, for answers about the resume, in [0, 1]: how much the answer says (up to
FULL_WORDS words), whether it is specific (numbers, the resume's tools and skills, named
things), whether it reasons (because, so that, trade-off, instead, which meant...) and whether
the candidate says what they did themselves. Gibberish (mostly tokens that are not words) is 0.
For technical questions the grading engine's score is the quality.

The scorecard's five scores (0-100), each with the transcript's words as its evidence:
- communication: the mean answer quality, with the best and the thinnest answer quoted;
- technical: the grading engine's scores on the knowledge-base questions, or, when none was
  asked, the specifics of the resume answers (capped at 70: no question tested it);
- problem solving: reasoning and concreteness in the answers about challenges, design,
  trade-offs and implementation;
- code quality: the sandbox runs (the last run's outcome, failures on the way, functions and
  names in the code); not assessed when no code was run;
- overall: the mean of the assessed four.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from statistics import mean

from tutorgraph.interview.schemas import ScorecardOutput
from tutorgraph.interview.state import Answer, InterviewState, QuestionRecord, Score, Submission
from tutorgraph.knowledge import get_domain

FULL_WORDS = 80
QUOTE_WORDS = 40
_REASONING = re.compile(
    r"\b(?:because|so that|therefore|which meant|that meant|trade-?offs?|instead|otherwise|"
    r"the reason|as a result|in order to|rather than|so we|so i|due to|caused|root cause|"
    r"measured|benchmark|compared)\b"
)
_FIRST_PERSON = re.compile(r"\bi (?:\w+ed|built|wrote|led|ran|made|chose|took|found|set up)\b")
_WORDLIKE = re.compile(r"^[a-z][a-z'-]*$")
_VOWEL = re.compile(r"[aeiouy]")


def gibberish(text: str) -> bool:
    tokens = re.findall(r"[a-zA-Z']+", text.lower())
    if not tokens:
        return bool(text.strip()) and not re.search(r"\d", text)
    wordlike = [
        t
        for t in tokens
        if _WORDLIKE.match(t) and _VOWEL.search(t) and not re.search(r"[^aeiouy']{5,}", t)
    ]
    return len(wordlike) / len(tokens) < 0.6 or (len(tokens) >= 3 and len(set(tokens)) == 1)


def answer_quality(text: str, *, skills: Sequence[str] = ()) -> float:
    lowered = text.lower().strip()
    if not lowered or gibberish(lowered):
        return 0.0
    words = len(lowered.split())
    specific = bool(re.search(r"\d", lowered)) or any(
        re.search(rf"\b{re.escape(s.lower())}\b", lowered) for s in skills
    )
    reasons = min(len(_REASONING.findall(lowered)), 2) / 2
    quality = (
        0.45 * min(words / FULL_WORDS, 1.0)
        + 0.2 * specific
        + 0.25 * reasons
        + 0.1 * bool(_FIRST_PERSON.search(lowered))
    )
    return round(min(quality, 1.0), 2)


def quote(text: str) -> str:
    words = text.split()
    cut = " ".join(words[:QUOTE_WORDS])
    return f"\u201c{cut}{'…' if len(words) > QUOTE_WORDS else ''}\u201d"


def communication(answers: Sequence[Answer]) -> Score:
    resume = [a for a in answers if a.get("score") is None]
    if not answers:
        return {"score": None, "summary": "No answers were given.", "evidence": []}
    pool = resume or list(answers)
    value = round(100 * mean(a["quality"] for a in pool))
    best = max(pool, key=lambda a: a["quality"])
    worst = min(pool, key=lambda a: a["quality"])
    evidence = [f"Best-explained answer: {quote(best['text'])}"]
    if worst is not best:
        evidence.append(
            f"Thinnest answer: {quote(worst['text']) if worst['text'] else '(no answer)'}"
        )
    summary = (
        "Clear, specific answers with reasons."
        if value >= 70
        else "Answers were understandable but often short of specifics or reasons."
        if value >= 40
        else "Most answers were too short or vague to show what you did."
    )
    return {"score": value, "summary": summary, "evidence": evidence}


def technical(answers: Sequence[Answer], records: dict[str, QuestionRecord]) -> Score:
    best: dict[str, Answer] = {}
    for a in answers:  # a followup's answer is graded on the same question: the best counts
        record = records.get(a["question_id"])
        if a.get("score") is None or record is None:
            continue
        key = str(record.get("topic_id"))
        if key not in best or float(a["score"] or 0) > float(best[key]["score"] or 0):
            best[key] = a
    graded = list(best.values())
    if graded:
        value = round(100 * mean(float(a["score"] or 0.0) for a in graded))
        evidence = []
        for a in graded:
            record = records.get(a["question_id"])
            topic = record.get("topic_title") if record else None
            evidence.append(
                f"{topic or 'technical question'}: {round(100 * float(a['score'] or 0))}/100 "
                f"for {quote(a['text']) if a['text'] else '(no answer)'}"
            )
        misconceptions = sorted({m for a in graded for m in a.get("misconceptions", [])})
        summary = f"Graded against the knowledge base on {len(graded)} question(s)."
        if misconceptions:
            summary += f" Misconceptions shown: {', '.join(misconceptions)}."
        return {"score": value, "summary": summary, "evidence": evidence}
    resume = [a for a in answers if a["text"]]
    if not resume:
        return {"score": None, "summary": "No technical answer to judge.", "evidence": []}
    specific = [a for a in resume if re.search(r"\d|[A-Z][a-z]+[A-Z]|\b[A-Z]{2,}\b", a["text"])]
    value = min(70, round(100 * len(specific) / len(resume)))
    return {
        "score": value,
        "summary": "No technical question was graded; judged from the technical specifics of "
        "your answers (at most 70).",
        "evidence": [quote(a["text"]) for a in specific[:2]],
    }


def problem_solving(answers: Sequence[Answer], records: dict[str, QuestionRecord]) -> Score:
    relevant = [
        a
        for a in answers
        if (r := records.get(a["question_id"])) is not None
        and r["aspect"] in ("challenges", "design", "tradeoffs", "implementation")
    ]
    pool = relevant or [a for a in answers if a.get("score") is not None]
    if not pool:
        return {
            "score": None,
            "summary": "No question about challenges, design or trade-offs was answered.",
            "evidence": [],
        }

    def reasoning(a: Answer) -> float:
        lowered = a["text"].lower()
        return min(len(_REASONING.findall(lowered)) / 2, 1.0) * 0.6 + 0.4 * a["quality"]

    value = round(100 * mean(reasoning(a) for a in pool))
    best = max(pool, key=reasoning)
    summary = (
        "You explained causes and choices, not just what happened."
        if value >= 60
        else "Say more about why: the cause of a problem, the options you weighed."
    )
    return {
        "score": value,
        "summary": summary,
        "evidence": [quote(best["text"])] if best["text"] else [],
    }


def code_quality(submissions: Sequence[Submission]) -> Score:
    if not submissions:
        return {"score": None, "summary": "No code was run in the sandbox.", "evidence": []}
    last = submissions[-1]
    failures = sum(s["outcome"] != "ok" for s in submissions)
    value = 60 if last["outcome"] == "ok" else 25
    code = last["code"]
    if re.search(r"^\s*def \w+\(", code, re.MULTILINE):
        value += 15
    if re.search(r"^\s*(?:assert |def test_)", code, re.MULTILINE):
        value += 10
    if re.search(r'"""|#', code):
        value += 5
    single_letters = re.findall(r"\b([a-z])\s*=", code)
    if len(single_letters) > 3:
        value -= 10
    value -= min(failures * 5, 20)
    value = max(0, min(100, value))
    first_line = (last["stderr"].strip().splitlines() or [""])[-1]
    evidence = [f"Last run: {last['outcome']}" + (f" ({first_line})" if first_line else "")]
    evidence.append(f"{len(submissions)} run(s), {failures} failed")
    summary = (
        "Working code, structured into functions."
        if value >= 70
        else "The code ran, with room to structure it."
        if last["outcome"] == "ok"
        else "The last run failed; get it working first, then tidy it."
    )
    return {"score": value, "summary": summary, "evidence": evidence}


def overall(scores: Sequence[Score]) -> Score:
    assessed = [s["score"] for s in scores if s["score"] is not None]
    if not assessed:
        return {
            "score": None,
            "summary": "Not enough was said to score the interview.",
            "evidence": [],
        }
    value = round(mean(assessed))
    summary = (
        "A strong interview."
        if value >= 75
        else "A solid base with clear things to work on."
        if value >= 50
        else "An interview to learn from: the recommendations say where to start."
    )
    return {"score": value, "summary": summary, "evidence": []}


def strengths_and_weaknesses(
    scores: dict[str, Score], misconceptions: Sequence[str], uncovered: Sequence[str]
) -> tuple[list[str], list[str], list[str]]:
    """Strengths (scores >= 70), weaknesses (< 50) and what to do about each."""
    names = {
        "communication": "communication",
        "technical": "technical knowledge",
        "problem_solving": "problem solving",
        "code_quality": "code quality",
    }
    advice = {
        "communication": "Answer with one concrete example: the situation, what you did, and "
        "the result with a number.",
        "technical": "Review the topics of the questions you missed in Practice; the review "
        "queue has them.",
        "problem_solving": "For each project, prepare the hardest problem, the options you "
        "weighed and why you chose one.",
        "code_quality": "Write small functions with clear names, run them, and add a quick "
        "assert to show they work.",
    }
    strengths, weaknesses, recommendations = [], [], []
    for key, label in names.items():
        value = scores[key]["score"]
        if value is None:
            continue
        if value >= 70:
            strengths.append(f"Strong {label} ({value}/100): {scores[key]['summary']}")
        elif value < 50:
            weaknesses.append(f"Weak {label} ({value}/100): {scores[key]['summary']}")
            recommendations.append(advice[key])
    for misconception in misconceptions:
        weaknesses.append(f"Misconception: {misconception}")
    if uncovered:
        recommendations.append(
            "Prepare to talk about what we didn't reach: " + ", ".join(uncovered[:4]) + "."
        )
    if not recommendations:
        recommendations.append("Try a harder level next time, or a different role.")
    return strengths, weaknesses, recommendations


def computed_scorecard(state: InterviewState) -> tuple[ScorecardOutput, list[str]]:
    """The offline scorecard of an interview and the topics it covered (resume anchors
    explored, then knowledge-base topics asked)."""
    records = {q["id"]: q for q in state["questions_asked"]}
    answers = [a for a in state["answers"] if not only_a_request(a)]
    scores = {
        "communication": communication(answers),
        "technical": technical(answers, records),
        "problem_solving": problem_solving(answers, records),
        "code_quality": code_quality(state["sandbox"]["submissions"]),
    }
    scores["overall"] = overall(list(scores.values()))
    misconceptions = sorted({m for a in answers for m in a.get("misconceptions", [])})
    exploration = state["resume_exploration"]
    uncovered = [a["label"] for a in exploration.values() if not a["aspects_covered"]]
    strengths, weaknesses, recommendations = strengths_and_weaknesses(
        scores, misconceptions, uncovered
    )
    topics = [a["label"] for a in exploration.values() if a["aspects_covered"]]
    for record in state["questions_asked"]:
        if record["source"] == "knowledge_base" and record.get("topic_id") and record.get("domain"):
            title = get_domain(str(record["domain"])).topic(str(record["topic_id"])).title
            if title not in topics:
                topics.append(title)
    computed = ScorecardOutput.model_validate(
        scores
        | {"strengths": strengths, "weaknesses": weaknesses, "recommendations": recommendations}
    )
    return computed, topics


def only_a_request(answer: Answer) -> bool:
    """A turn that only asked something of the interview ("can we move on?") is not an answer
    to score; a request after a real answer is."""
    return bool(answer.get("intent")) and len(answer["text"].split()) < 25
