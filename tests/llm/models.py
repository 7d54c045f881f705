"""Schemas shared by the llm tests."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Verdict(BaseModel):
    """What a grader might return."""

    score: int = Field(ge=0, le=5)
    label: Literal["correct", "partial", "wrong"]
    feedback: str = ""
