"""The learning loop: every graded answer decides what the learner does next (path planner),
schedules a spaced review of its concept (FSRS), and feeds the learner model they can see."""
