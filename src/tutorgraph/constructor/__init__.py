"""The course constructor: an author's files to a validated course with a quiz bank."""
