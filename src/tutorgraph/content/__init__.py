"""Courses on disk and in the database: manifests, seeding, chunking and retrieval."""
