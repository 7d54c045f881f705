"""Grading and mastery: the evaluator, the offline grader, decisions, BKT and alerts."""
