"""The offline learning plan: 3-5 phases in prerequisite order, built from the knowledge base.

- Gap topics, in topological order, are cut into contiguous phases (so a topic's prerequisites are
  always in the same or an earlier phase): ceil(gaps / 2) phases, at least 3, at most 5.
- With fewer than 3 gaps, a consolidation phase (strong topics no gap depends on) and a
  practice-project phase complete the plan (and a short review opens a plan with no gaps).
- Each topic brings two knowledge-base resources of different types and an exercise from its
  question bank one Bloom level above what the learner showed; the plan ends with a project from
  a create-level question.
- Hours per topic: (2 + 2 * difficulty) * (0.5 + 1.5 * gap), rounded up to the half hour."""

from __future__ import annotations

import math

from tutorgraph.assessment.gaps import mixed_resources
from tutorgraph.assessment.schemas import PlanOutput, PlanPhase, PlanRequest, PlanResource
from tutorgraph.assessment.state import EnrichedGap
from tutorgraph.knowledge import BloomLevel, KnowledgeBase, Topic, get_domain
from tutorgraph.wording import counted

MIN_PHASES = 3
MAX_PHASES = 5
LABELS = ("Foundations", "Core", "Building up", "Deepening", "Mastery")


def offline_plan(request: PlanRequest) -> PlanOutput:
    kb = get_domain(request.domain)
    gaps = {gap["topic_id"]: gap for gap in request.gaps}
    ordered = kb.sort(gaps)
    phases: list[PlanPhase] = []
    if ordered:
        count = min(MAX_PHASES, max(MIN_PHASES, math.ceil(len(ordered) / 2)))
        for index, chunk in enumerate(_chunks(ordered, min(count, len(ordered)))):
            phases.append(_topic_phase(kb, [gaps[t] for t in chunk], index, phases))
    missing = MIN_PHASES - len(phases)
    if missing <= 0:
        phases[-1].resources.append(_project(kb.topic(ordered[-1])))
    else:
        if missing == 3:
            phases.append(_review_phase(kb, request))
        if missing >= 2:
            phases.append(_consolidation_phase(kb, request))
        phases.append(_project_phase(kb, request, ordered))
    total = sum(phase.estimated_hours for phase in phases)
    return PlanOutput(
        summary=(
            f"{counted(len(ordered), 'gap topic')} in {counted(len(phases), 'phase')}, "
            f"about {total:g} hours "
            f"toward the {request.target_level} level."
        ),
        phases=phases,
        total_hours=total,
        rationale=(
            "Phases follow the knowledge base's prerequisite order, so foundational concepts come "
            "before the topics that build on them; topics are grouped into phases of similar "
            "size; each phase mixes reading or watching with exercises, and the plan ends in "
            "practice that ties the topics together."
        ),
    )


def _chunks(items: list[str], count: int) -> list[list[str]]:
    size, extra = divmod(len(items), count)
    chunks, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        chunks.append(items[start:end])
        start = end
    return chunks


def topic_hours(topic: Topic, gap: float) -> float:
    return math.ceil((2 + 2 * topic.difficulty) * (0.5 + 1.5 * gap) * 2) / 2


def _topic_phase(
    kb: KnowledgeBase, gaps: list[EnrichedGap], index: int, earlier: list[PlanPhase]
) -> PlanPhase:
    topics = [kb.topic(gap["topic_id"]) for gap in gaps]
    resources: list[PlanResource] = []
    for topic, gap in zip(topics, gaps, strict=True):
        for resource in mixed_resources(list(topic.resources))[:2]:
            resources.append(
                PlanResource(title=resource.title, type=resource.type, url=str(resource.url))
            )
        exercise = _exercise(topic, gap)
        if exercise is not None:
            resources.append(exercise)
    titles = [topic.title for topic in topics]
    done = {t for phase in earlier for t in phase.topics}
    builds_on = sorted({kb.topic(p).title for t in topics for p in t.prerequisites if p in done})
    critical = sum(1 for gap in gaps if gap["priority"] in ("critical", "high"))
    if builds_on:
        reason = f"Builds on {', '.join(builds_on)} from the earlier phases."
    elif earlier:
        reason = "Needs nothing from the earlier phases; it follows them in prerequisite order."
    else:
        reason = "Nothing here depends on a later topic, so it comes first."
    if critical:
        share = {1: "Its gap is", 2: "Both its gaps are"}.get(
            len(gaps), f"All {len(gaps)} of its gaps are"
        )
        if critical < len(gaps):
            share = f"{critical} of its {len(gaps)} gaps {'is' if critical == 1 else 'are'}"
        reason += f" {share} high or critical priority."
    return PlanPhase(
        title=f"{LABELS[index]}: {_join(titles)}",
        topics=[topic.id for topic in topics],
        resources=resources,
        estimated_hours=sum(topic_hours(t, g["gap"]) for t, g in zip(topics, gaps, strict=True)),
        rationale=reason,
    )


def _exercise(topic: Topic, gap: EnrichedGap) -> PlanResource | None:
    shown = BloomLevel(gap["bloom_level"]) if gap["bloom_level"] else BloomLevel.REMEMBER
    wanted = shown.next() if gap["assessed"] else BloomLevel.UNDERSTAND
    questions = sorted(topic.questions, key=lambda q: (q.bloom_level.distance(wanted), q.id))
    if not questions:
        return None
    question = questions[0]
    return PlanResource(
        title=f"Exercise ({question.bloom_level.value}): {exercise_title(question.text)}",
        type="exercise",
    )


def _project(topic: Topic) -> PlanResource:
    """A project from the topic's create-level question (or its first key point)."""
    create = [q for q in topic.questions if q.bloom_level is BloomLevel.CREATE]
    brief = exercise_title(create[0].text) if create else topic.key_points[0]
    return PlanResource(title=f"Project: {brief}", type="project")


def _project_phase(kb: KnowledgeBase, request: PlanRequest, ordered: list[str]) -> PlanPhase:
    pool = ordered or kb.agenda(request.target_level)
    topic = kb.topic(pool[-1])
    resources = [_project(topic)]
    resources += [
        PlanResource(title=r.title, type=r.type, url=str(r.url))
        for r in mixed_resources(list(topic.resources))
        if r.type in ("project", "exercise", "video")
    ][:2]
    return PlanPhase(
        title=f"Practice project: {topic.title}",
        topics=[topic.id],
        resources=resources,
        estimated_hours=2 + 2 * topic.difficulty,
        rationale="A project makes you combine what you studied; knowledge used sticks.",
    )


def _consolidation_phase(kb: KnowledgeBase, request: PlanRequest) -> PlanPhase:
    agenda = kb.agenda(request.target_level)
    gaps = [g["topic_id"] for g in request.gaps]
    # Strong topics no gap depends on (so the phase cannot precede a gap's prerequisite), or
    # else the gaps themselves, practised one level deeper.
    under_gaps = {a for gap in gaps for a in kb.ancestors(gap)}
    strongest = [t for t in agenda if t not in gaps and t not in under_gaps][-2:]
    topics = [kb.topic(t) for t in strongest or gaps[-2:] or agenda[-2:]]
    resources = [
        PlanResource(title=r.title, type=r.type, url=str(r.url))
        for topic in topics
        for r in mixed_resources(list(topic.resources))[:1]
    ]
    resources += [
        PlanResource(title=f"Exercise (evaluate): {exercise_title(q.text)}", type="exercise")
        for topic in topics
        for q in topic.questions
        if q.bloom_level is BloomLevel.EVALUATE
    ][:2]
    return PlanPhase(
        title=f"Consolidate and stretch: {_join([t.title for t in topics])}",
        topics=[t.id for t in topics],
        resources=resources,
        estimated_hours=float(sum(1 + t.difficulty for t in topics)),
        rationale="Revisit your strongest topics at the evaluate level to keep them sharp.",
    )


def _review_phase(kb: KnowledgeBase, request: PlanRequest) -> PlanPhase:
    first = kb.topic(kb.agenda(request.target_level)[0])
    return PlanPhase(
        title=f"Review: {first.title}",
        topics=[first.id],
        resources=[
            PlanResource(title=r.title, type=r.type, url=str(r.url))
            for r in mixed_resources(list(first.resources))[:2]
        ],
        estimated_hours=2.0,
        rationale="A short refresher of the foundation everything else rests on.",
    )


EXERCISE_TITLE_CHARS = 200


def exercise_title(text: str) -> str:
    """A question as an exercise title: its first paragraph (never its code block); when that is
    longer than EXERCISE_TITLE_CHARS, its first sentence (a `.` or `?` outside `inline code`);
    still too long, cut at a word boundary."""
    line = " ".join(text.strip().split("\n\n")[0].split())
    if len(line) <= EXERCISE_TITLE_CHARS:
        return line
    in_code = False
    for i, char in enumerate(line[:-1]):
        if char == "`":
            in_code = not in_code
        elif char in ".?" and line[i + 1] == " " and not in_code:
            line = line[: i + 1]
            break
    if len(line) <= EXERCISE_TITLE_CHARS:
        return line
    return line[: EXERCISE_TITLE_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _join(titles: list[str]) -> str:
    if len(titles) <= 2:
        return " and ".join(titles)
    return f"{', '.join(titles[:-1])} and {titles[-1]}"


def plan_respects_prerequisites(kb: KnowledgeBase, plan: PlanOutput) -> bool:
    """No topic comes in a phase before one of its prerequisites (for checking model plans)."""
    phase_of: dict[str, int] = {}
    for index, phase in enumerate(plan.phases):
        for topic in phase.topics:
            phase_of.setdefault(topic, index)
    for topic, index in phase_of.items():
        if topic not in kb.topics:
            continue
        for prerequisite in kb.topic(topic).prerequisites:
            if phase_of.get(prerequisite, -1) > index:
                return False
    return True
