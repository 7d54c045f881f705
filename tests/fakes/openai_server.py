"""The fake OpenAI-compatible server lives in the package (the tutor benchmark runs it too);
tests import it from here."""

from __future__ import annotations

from tutorgraph.bench.fake_openai import (
    FakeOpenAIServer,
    Fault,
    FaultKind,
    Reply,
    ReplyLike,
    to_reply,
)

__all__ = ["FakeOpenAIServer", "Fault", "FaultKind", "Reply", "ReplyLike", "to_reply"]
