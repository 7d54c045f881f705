"""One model interface, several engines: OpenAI-compatible, offline, scripted, plus wrappers."""

from __future__ import annotations

from tutorgraph.llm.factory import build_model
from tutorgraph.llm.fallback import FallbackModel, aclose_model
from tutorgraph.llm.offline import ChatHandler, OfflineEngine, StructuredHandler, offline_registry
from tutorgraph.llm.openai_engine import OpenAIEngine
from tutorgraph.llm.scripted import ScriptedEngine, ScriptedQueueEmpty, ScriptedRequest
from tutorgraph.llm.types import (
    ErrorEvent,
    Finish,
    FinishReason,
    Message,
    Model,
    Role,
    SchemaT,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    ToolSpec,
    Usage,
)

__all__ = [
    "ChatHandler",
    "ErrorEvent",
    "FallbackModel",
    "Finish",
    "FinishReason",
    "Message",
    "Model",
    "OfflineEngine",
    "OpenAIEngine",
    "Role",
    "SchemaT",
    "ScriptedEngine",
    "ScriptedQueueEmpty",
    "ScriptedRequest",
    "StreamEvent",
    "StructuredHandler",
    "TextDelta",
    "ToolCall",
    "ToolCallEvent",
    "ToolResultEvent",
    "ToolSpec",
    "Usage",
    "aclose_model",
    "build_model",
    "offline_registry",
]
