"""The prompts the engines add themselves: JSON-mode schema instructions and the repair turn."""

from __future__ import annotations

JSON_OBJECT_INSTRUCTIONS = """\
Reply with one JSON object and nothing else: no prose, no code fences. It must validate against \
this JSON schema:
{schema}"""

REPAIR_INSTRUCTIONS = """\
Your previous reply did not validate against the required JSON schema. Errors: {errors}
Reply again with only the corrected JSON object (no prose, no code fences), valid against:
{schema}"""
