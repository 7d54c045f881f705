"""Answers that are code, documents or worked numbers, checked by running and computing."""
