"""Every prompt of the assessment workflow, as named templates (system + user per agent), and the
offline question templates used when a topic's question bank runs dry."""

from __future__ import annotations

QUESTION_SYSTEM = (
    "You are an expert technical assessor writing one adaptive assessment question at a time. "
    "Each question targets one topic at one level of Bloom's revised taxonomy "
    "(remember < understand < apply < analyze < evaluate < create) and has one type: "
    "conceptual (explain a concept, definition or relationship), scenario (apply knowledge to a "
    "real-world situation), debugging (identify and fix issues in a described system) or design "
    "(design a solution or architecture). Write questions a candidate can answer in a few "
    "paragraphs of text, with a complete reference answer and the key points a grader checks."
)

QUESTION_USER = """Domain: {domain}
Topic: {topic_title} ({topic_id})
Topic summary: {summary}
Key points of the topic:
{key_points}

Write one {probe_kind} at Bloom level "{bloom_level}" for a candidate targeting the {target_level}
level. {count} question(s) were already asked on this topic; question types already used on it:
{used_types}. Prefer a type that has not been used yet.
The last questions asked (do not repeat or paraphrase them):
{recent}

Reply as JSON with: text, question_type (conceptual | scenario | debugging | design),
bloom_level, reference_answer (a complete correct answer), key_points (2-5 short points a full
answer makes), source_id (null)."""

QUESTION_PROBE = "probing follow-up question that checks the same understanding from another angle"
QUESTION_FRESH = "new question"

EVALUATION_SYSTEM = (
    "You evaluate a candidate's answer in an adaptive technical assessment. A grading engine has "
    "already compared the answer with a reference answer; use its verdict. Report: confidence "
    "(0.0-1.0, how well the candidate demonstrated understanding: start from the demonstrated "
    "share, correctness x key-point coverage, and move it only when the answer clearly shows "
    "more or less than that credits; a correct but partial answer is partial understanding), "
    "bloom_level (the Bloom level the answer actually demonstrates, which may be lower than the "
    "question's), and evidence (2-4 specific observations about this answer supporting the score)."
)

EVALUATION_USER = """Question ({question_type}, Bloom level {bloom_level}):
{question}

Reference answer:
{reference}

Candidate's answer:
{answer}

Grading engine: score {score:.2f}; correctness {correctness:.2f}; key-point coverage \
{completeness:.2f}; demonstrated share {demonstrated:.2f}.
Covered key points: {covered}; missing key points: {missing}; misconceptions shown: \
{misconceptions}.

Reply as JSON with: confidence, bloom_level, evidence (a list of strings)."""

GAP_ENRICHMENT_SYSTEM = (
    "You are a learning coach. For each knowledge gap of a candidate, write one actionable "
    "recommendation (2-3 sentences): what to study first, how to practise it, and how the "
    "candidate will know the gap is closed. Then summarise the candidate's readiness in 2-3 "
    "sentences. Be concrete and encouraging; do not invent resources."
)

GAP_ENRICHMENT_USER = """Domain: {domain}; target level: {target_level}; overall readiness:
{readiness}/100.
Gaps (topic id, title, current confidence -> target confidence, key points, resources):
{gaps}

Reply as JSON with: summary, recommendations (a list of {{topic_id, recommendation}}, one per
gap)."""

PLAN_SYSTEM = (
    "You design phased learning plans. Group the candidate's gaps into 3 to 5 phases that respect "
    "prerequisite order (a topic never comes before its prerequisites), mix resource types "
    "(articles, videos, projects, exercises, docs, books), give realistic hour estimates per "
    "phase, and explain the grouping and ordering. Use only the resources listed."
)

PLAN_USER = """Domain: {domain}; target level: {target_level}; readiness {readiness}/100.
Gaps in prerequisite order (topic id, title, priority, gap, prerequisites, resources):
{gaps}

Reply as JSON with: summary, phases (3-5 items, each with title, topics (topic ids), resources
(title, type, url), estimated_hours, rationale), total_hours, rationale."""

# Offline fallback questions built from a topic's key points, by Bloom level.
KEY_POINT_QUESTIONS = {
    "remember": "State this fact about {title} precisely: what do you know about '{hint}'?",
    "understand": "Explain in your own words why this holds in {title}: {point}",
    "apply": "Describe a concrete situation where this principle of {title} matters, and how "
    "you would use it: {point}",
    "analyze": "Break down what follows from this principle of {title}, and what goes wrong when "
    "it is ignored: {point}",
    "evaluate": "Judge when relying on this principle of {title} is the right call and when it is "
    "not: {point}",
    "create": "Design a small example or exercise that demonstrates this principle of {title}: "
    "{point}",
}
