"""The text grader: a question, a reference or rubric and an answer in, a verdict out (the
model judge, the offline grader, error classification, feedback). It stores nothing: the
evaluator in `tutorgraph.learner_model` records what a grade changes for a learner."""
