"""The learner model: what a graded answer changes in what the platform knows about a learner.

The evaluator (`evaluator.py`) runs the spec's eight phases around the text grader
(`tutorgraph.grading`): the path decision, mastery per concept (weighted moving average and BKT,
refitted from the stored answers), the instructor alert and the EVALUATION_COMPLETED event that
is the learner's evidence. Flows record answers through here; grading itself stores nothing."""
