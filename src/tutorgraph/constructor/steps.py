"""The build's progress in the author's words: the few steps a build goes through, and which
step each progress event belongs to (the page shows these, not the graph's node names)."""

from __future__ import annotations

READING = "Reading your files"
BUILDING = "Building the lessons"
WRITING = "Writing quiz questions"
CHECKING = "Checking the questions"
READY = "Ready to review"
PUBLISHING = "Publishing the course"

STEPS: tuple[str, ...] = (READING, BUILDING, WRITING, CHECKING, READY)

# The stage a pipeline writes on its events -> the step the author sees.
_STAGE_STEP = {
    "ingestion": READING,
    "structure": BUILDING,
    "quiz": WRITING,
    "validation": CHECKING,
    "done": READY,
}

# The action a turn starts -> the step it begins with.
ACTION_STEP = {
    "ingest": READING,
    "build_structure": BUILDING,
    "generate_quiz": WRITING,
    "validate": CHECKING,
    "publish": PUBLISHING,
}


def step_of(stage: str) -> str:
    """The step an event of this stage belongs to; "" for one outside the steps (an error, a
    resumed turn)."""
    return _STAGE_STEP.get(stage, "")


# Where a build stands, for the list of the author's builds.
PHASE_WORDS = {
    "collecting": "waiting for your files",
    "ingested": "files read",
    "structure_review": "structure waiting for your review",
    "structure_approved": "structure approved",
    "quiz_review": "questions waiting for your review",
    "quiz_approved": "questions approved",
    "validated": "checked, ready to publish",
    "published": "published",
}
