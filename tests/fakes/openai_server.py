"""The fake OpenAI-compatible server lives in the benchmark package, `tutorgraph_bench` (the
tutor benchmark runs it too; the server never imports it); tests import it from here."""

from __future__ import annotations

from tutorgraph_bench.fake_openai import (
    FakeOpenAIServer,
    Fault,
    FaultKind,
    Reply,
    ReplyLike,
    to_reply,
)

__all__ = ["FakeOpenAIServer", "Fault", "FaultKind", "Reply", "ReplyLike", "to_reply"]
