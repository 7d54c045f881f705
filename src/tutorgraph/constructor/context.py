"""What the constructor's nodes get from outside the graph: the model, the limits, where uploads
and images live, where progress goes, and how a course is published. The service builds it for
the web and the worker; the CLI builds one of its own."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import ConstructorState, ProgressEvent
from tutorgraph.content.extract import ExtractionLimits
from tutorgraph.llm import Model


def _items_per_topic() -> int:
    return constructor_parameters().quiz_writer.items_per_topic


@dataclass(frozen=True)
class Upload:
    upload_id: str
    filename: str
    data: bytes


@dataclass
class ConstructorContext:
    model: Model
    # Upload ids -> their bytes (the uploads stay in the store until ingested).
    read_uploads: Callable[[list[str]], list[Upload]]
    # Keep an extracted image: (image id, name, media type, caption, bytes).
    store_image: Callable[[str, str, str, str, bytes], None]
    # Record that uploads were read: (upload id, title, kind, words, pages, error or "").
    mark_upload: Callable[[str, str, str, int, int, str], None]
    # Publish the validated course; returns its slug. Must be idempotent per session.
    publish: Callable[[ConstructorState], Awaitable[str]]
    progress: Callable[[ProgressEvent], None] = field(default=lambda _event: None)
    limits: ExtractionLimits = field(default_factory=ExtractionLimits)
    items_per_topic: int = field(default_factory=_items_per_topic)
